package serve

import (
	_ "embed"
	"net/http"

	"github.com/hensachi/hensachi"
)

//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the API's OpenAPI document, which /openapi.json serves and the web front renders.
func OpenAPI() []byte { return openAPIDoc }

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openAPIDoc)
}

// problemDocs explains each error code at the problem's type address, /problems/<code>.
var problemDocs = map[string]string{
	hensachi.EInvalidParameter:   "A parameter is missing, empty, repeated, unknown, of the wrong type or out of range; `param` names it.",
	hensachi.EMissingFile:        "The multipart body has no part named `file`, or it is empty.",
	hensachi.EInvalidImage:       "The image is truncated or corrupt, or larger in pixels or JPEG scans than the service decodes.",
	hensachi.EMissingAPIKey:      "No API key was sent. Send it in `X-API-Key` or `Authorization: Bearer`.",
	hensachi.EInvalidAPIKey:      "The API key is not one this service issued.",
	hensachi.ERevokedAPIKey:      "The API key was revoked, for example by rotation. Use the account's current key.",
	hensachi.EOriginNotAllowed:   "The call came from a web page (its `Origin` header) whose origin the key's account does not list. The account's owner lists the origins allowed on the account page or with `hensachi account origins`; an empty list allows any.",
	hensachi.ENotFound:           "No such route, municipality code or axis.",
	hensachi.EMethodNotAllowed:   "The route exists but not for this method; `Allow` lists the methods.",
	hensachi.EFileTooLarge:       "The upload is larger than 10 MiB.",
	hensachi.EUnsupportedMedia:   "The file is neither JPEG nor PNG (judged by its content).",
	hensachi.EDailyLimitExceeded: "The plan's daily limit for this service is reached. It resets at 00:00 Asia/Tokyo; `Retry-After` gives the seconds.",
	hensachi.EOverloaded:         "The service is busy, or the account's remaining calls of the day are held by calls still in progress. Retry after `Retry-After` seconds.",
	hensachi.EUnavailable:        "A dependency of the service is unavailable. Retry after `Retry-After` seconds.",
	hensachi.ERequestTimeout:     "The request did not arrive in time: its headers took longer than 5 s. Send it again, without pauses.",
	hensachi.EInternal:           "The server failed. Quote `request_id` when reporting it.",
	codeBadRequest:               "The HTTP request itself is malformed (e.g. no Host header); it was refused before reaching the API.",
	codeHeaderTooLarge:           "The request's headers are larger than the server reads (32 KiB).",
	codeVersionNotHandled:        "The request's HTTP version is not one the server speaks over plain text (HTTP/1.0 and 1.1).",
	codeHTTPError:                "The HTTP server refused the request before it reached the API.",
}

func serveProblemDoc(w http.ResponseWriter, r *http.Request, code string) {
	doc, ok := problemDocs[code]
	if !ok {
		writeError(w, r, hensachi.Errorf(hensachi.ENotFound, "no problem type %q", truncateParam(code)))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte(code + ": " + doc + "\n"))
}
