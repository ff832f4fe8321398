package hensachi

import (
	"errors"
	"fmt"
	"time"
)

// Error codes: stable snake_case identifiers that clients can branch on. Kinds maps each to its
// HTTP status, title and explanation; every layer answers through it.
const (
	EInvalidParameter   = "invalid_parameter"
	EMissingFile        = "missing_file"
	EInvalidImage       = "invalid_image"
	EMissingAPIKey      = "missing_api_key"
	EInvalidAPIKey      = "invalid_api_key"
	ERevokedAPIKey      = "revoked_api_key"
	EOriginNotAllowed   = "origin_not_allowed"
	ENotFound           = "not_found"
	EMethodNotAllowed   = "method_not_allowed"
	EFileTooLarge       = "file_too_large"
	EUnsupportedMedia   = "unsupported_media_type"
	EDailyLimitExceeded = "daily_limit_exceeded"
	EOverloaded         = "overloaded"
	EUnavailable        = "unavailable"
	EConflict           = "conflict"
	ERequestTimeout     = "request_timeout"
	EInternal           = "internal_error"

	// The codes of requests the HTTP server refuses before any route runs.
	EBadRequest     = "bad_request"
	EURITooLong     = "uri_too_long"
	EHeaderTooLarge = "request_header_too_large"
	EHTTPVersion    = "http_version_not_supported"
	EHTTPError      = "http_error"

	// The codes only the pages answer with (package web/account); the API never does.
	EForbidden       = "forbidden"
	ETooManyRequests = "too_many_requests"
	EBadGateway      = "bad_gateway"
)

// Kind is what an error code means over HTTP: the status it is answered with, the problem
// document's title, the heading of the pages' message, and what /problems/<code> says of it.
type Kind struct {
	Code    string
	Status  int
	Title   string
	Heading string // in the pages' language
	About   string
}

func kind(code string, status int, title, heading, about string) Kind {
	return Kind{Code: code, Status: status, Title: title, Heading: heading, About: about}
}

// Kinds lists every error code any layer answers with, in the order the documentation lists them.
var Kinds = []Kind{
	kind(EInvalidParameter, 400, "Bad Request", "指定が正しくありません",
		"A parameter is missing, empty, repeated, unknown, malformed (not UTF-8 or not percent-encoded), of the wrong type or out of range; `param` names it."),
	kind(EMissingFile, 400, "Bad Request", "写真がありません", "The multipart body has no part named `file`, or it is empty."),
	kind(EInvalidImage, 400, "Bad Request", "画像を読めません",
		"The image is truncated or corrupt, or larger in pixels or JPEG scans than the service decodes."),
	kind(EMissingAPIKey, 401, "Unauthorized", "API キーがありません", "No API key was sent. Send it in `X-API-Key` or `Authorization: Bearer`."),
	kind(EInvalidAPIKey, 401, "Unauthorized", "API キーが正しくありません", "The API key is not one this service issued."),
	kind(ERevokedAPIKey, 403, "Forbidden", "API キーは無効です", "The API key was revoked, for example by rotation. Use the account's current key."),
	kind(EOriginNotAllowed, 403, "Forbidden", "このオリジンからは使えません",
		"The call came from a web page (its `Origin` header) whose origin the key's account does not list. The account's owner lists the origins allowed on the account page or with `hensachi account origins`; an empty list allows any."),
	kind(ENotFound, 404, "Not Found", "見つかりません", "No such route, municipality code, prefecture or axis."),
	kind(EMethodNotAllowed, 405, "Method Not Allowed", "この方法では使えません", "The route exists but not for this method; `Allow` lists the methods."),
	kind(EConflict, 409, "Conflict", "競合しました", "The change conflicts with the current state, for example an account that exists already."),
	kind(EFileTooLarge, 413, "Request Entity Too Large", "ファイルが大きすぎます", "The upload is larger than 10 MiB."),
	kind(EUnsupportedMedia, 415, "Unsupported Media Type", "JPEG か PNG ではありません", "The file is neither JPEG nor PNG (judged by its content)."),
	kind(ERequestTimeout, 408, "Request Timeout", "時間切れです",
		"The request did not arrive in time: its headers took longer than 5 s, or an upload fell behind the pace the service requires. Send it again, without pauses."),
	kind(EDailyLimitExceeded, 429, "Too Many Requests", "今日の上限に達しました",
		"The plan's daily limit for this service is reached. It resets at 00:00 Asia/Tokyo; `Retry-After` gives the seconds."),
	kind(EOverloaded, 503, "Service Unavailable", "混み合っています",
		"The service is busy, or the account's remaining calls of the day are held by calls still in progress. Retry after `Retry-After` seconds."),
	kind(EUnavailable, 503, "Service Unavailable", "利用できません",
		"Something the call needs is unavailable: a dependency that is down for now (retry after `Retry-After` seconds), or a part this server runs without, such as the boundaries of the GeoJSON export, whose `detail` says why (no `Retry-After`: retrying will not help)."),
	kind(EInternal, 500, "Internal Server Error", "表示できません", "The server failed. Quote `request_id` when reporting it."),
	kind(EBadRequest, 400, "Bad Request", "リクエストが正しくありません",
		"The HTTP request itself is malformed (e.g. no Host header); it was refused before reaching the API."),
	kind(EURITooLong, 414, "Request URI Too Long", "アドレスが長すぎます",
		"The request's target (path and query) is longer than the server reads (32 KiB); it was refused before reaching the API."),
	kind(EHeaderTooLarge, 431, "Request Header Fields Too Large", "ヘッダーが大きすぎます", "The request's headers are larger than the server reads (32 KiB)."),
	kind(EHTTPVersion, 505, "HTTP Version Not Supported", "この HTTP のバージョンは使えません",
		"The request's HTTP version is not one the server speaks over plain text (HTTP/1.0 and 1.1)."),
	kind(EHTTPError, 400, "Bad Request", "リクエストが正しくありません", "The HTTP server refused the request before it reached the API."),
	kind(EForbidden, 403, "Forbidden", "受け付けられません",
		"A page refused the request: a login the identity provider or this service refused, or a form sent from another site or without its token. Only the pages answer with it."),
	kind(ETooManyRequests, 429, "Too Many Requests", "試行が多すぎます",
		"Too many login attempts from one address in a short time. Retry after `Retry-After` seconds. Only the login pages answer with it."),
	kind(EBadGateway, 502, "Bad Gateway", "外部のサービスで失敗しました",
		"A service this one relies on failed: the identity provider, at login. Only the login pages answer with it."),
}

var kindOf = func() map[string]Kind {
	m := make(map[string]Kind, len(Kinds))
	for _, k := range Kinds {
		m[k.Code] = k
	}
	return m
}()

// KindOf returns the kind of a code; a code it does not know is an internal error's.
func KindOf(code string) Kind {
	if k, ok := kindOf[code]; ok {
		return k
	}
	return kindOf[EInternal]
}

// StatusOf is the HTTP status of err's code (ErrorCode); 200 for nil.
func StatusOf(err error) int {
	if err == nil {
		return 200
	}
	return KindOf(ErrorCode(err)).Status
}

// Error is a failure a client or operator is meant to see: its message is safe to show.
type Error struct {
	Code    string
	Message string
	Param   string // the one parameter at fault, if any
	// Japanese is the message for the pages, where it says more than the kind's heading; empty:
	// Message, which is written for the API's readers.
	Japanese string
	// RetryAfter, when set, is how long the client should wait before trying again (429, 503).
	RetryAfter time.Duration
	// Cause is what went wrong underneath, for the log; its text is never shown to the client.
	Cause error
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Cause }

// RetryIn sets how long the client should wait before trying again and returns e.
func (e *Error) RetryIn(after time.Duration) *Error {
	e.RetryAfter = after
	return e
}

// Errorf returns an Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ParamError reports an invalid parameter.
func ParamError(param, format string, args ...any) *Error {
	return &Error{Code: EInvalidParameter, Message: fmt.Sprintf(format, args...), Param: param}
}

// ErrorCode returns the code of the first Error in err's chain, EInternal for any other error,
// and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}
