package serve

import (
	"bytes"
	"net/http/httptest"
	"testing"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/testenv"
	"github.com/hensachi/hensachi/internal/uploadbody"
)

// FuzzReadUpload feeds arbitrary multipart bodies and Content-Types to the upload reader: it
// returns an image of 1 byte to 10 MiB or a missing_file or file_too_large error, never anything
// else.
func FuzzReadUpload(f *testing.F) {
	testenv.Slow(f, "fuzz seeds")
	const ct = "multipart/form-data; boundary=x"
	for _, seed := range []struct{ ct, body string }{
		{ct, "--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n\r\nPNG\r\n--x--\r\n"},
		{ct, "--x\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhi\r\n--x\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nJPEG\r\n--x--\r\n"},
		{ct, "--x\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n\r\n--x--\r\n"},
		{ct, "--x\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nno end"},
		{ct, ""},
		{"multipart/form-data", "--x--"},
		{"image/png", "PNG"},
		{"multipart/form-data; boundary=\"a b\"", "--a b\r\nContent-Disposition: form-data; name=file\r\n\r\nx\r\n--a b--"},
	} {
		f.Add(seed.ct, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		req := httptest.NewRequest("POST", "/face/v1/predict", bytes.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		boundary, size, err := uploadRequest(req)
		var data []byte
		if err == nil {
			unlimited := func(int64) error { return nil }
			data, err = readUpload(uploadbody.NewBody(httptest.NewRecorder(), req.Body, DefaultUploadPace), boundary, size, uploadbody.Held(size), unlimited)
		}
		if err != nil {
			if code := hensachi.ErrorCode(err); code != hensachi.EMissingFile && code != hensachi.EFileTooLarge {
				t.Fatalf("error of code %s: %v", code, err)
			}
			return
		}
		// not necessarily bytes of the body: a quoted-printable part is decoded
		if len(data) == 0 || len(data) > MaxUpload {
			t.Fatalf("read %d bytes", len(data))
		}
	})
}
