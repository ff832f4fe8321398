package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/facecall"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/internal/uploadbody"
)

const (
	// MaxUpload is the largest image accepted (the documented 10 MB, enforced as 10 MiB).
	MaxUpload = facecall.MaxUpload
	// maxBody leaves room for the multipart framing and small extra fields around the image.
	maxBody  = facecall.MaxBody
	maxParts = 8
)

// uploadRequest checks what a face call's request says of its upload, before anything of it is
// read: a multipart body (its boundary) of a declared length within the cap, or of no declared
// length (chunked: size is then the cap).
func uploadRequest(r *http.Request) (boundary string, size int64, err error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return "", 0, hensachi.Errorf(hensachi.EMissingFile, "send multipart/form-data with the image in a part named file")
	}
	switch {
	case r.ContentLength == 0:
		return "", 0, hensachi.Errorf(hensachi.EMissingFile, "the body is empty; send the image in a part named file")
	case r.ContentLength > maxBody:
		return "", 0, errBodyTooLarge
	case r.ContentLength < 0:
		return params["boundary"], maxBody, nil
	}
	return params["boundary"], r.ContentLength, nil
}

var errBodyTooLarge = hensachi.Errorf(hensachi.EFileTooLarge, "the request body is larger than %d bytes; the image may be at most 10 MiB", maxBody)

// readUpload reads the part named file of a multipart body, enforcing the size cap while reading.
// size is the body's declared length (uploadRequest), the most the image's buffer takes; the
// buffer starts at held bytes, and hold takes the bytes of the bodies' budget it grows by first.
// Other parts are skipped, but a second part named file is refused: which image was analysed
// would otherwise be a guess.
func readUpload(body io.Reader, boundary string, size, held int64, hold func(int64) error) ([]byte, error) {
	mr := multipart.NewReader(body, boundary)
	var data []byte
	for range maxParts {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, uploadError(err)
		}
		if part.FormName() != "file" {
			if _, err := io.Copy(io.Discard, part); err != nil {
				return nil, uploadError(err)
			}
			continue
		}
		if data != nil {
			return nil, hensachi.ParamError("file", "the body has more than one part named file; send one image per call")
		}
		if data, err = readFilePart(part, size, held, hold); err != nil {
			return nil, err
		}
	}
	if data == nil {
		return nil, hensachi.Errorf(hensachi.EMissingFile, "no part named file in the multipart body")
	}
	return data, nil
}

func readFilePart(part io.Reader, size, held int64, hold func(int64) error) ([]byte, error) {
	// room for one byte more than the cap, which tells a file over it, or the end of one that
	// fills the body
	data, err := uploadbody.ReadAll(io.LimitReader(part, MaxUpload+1), int(held), int(min(size, MaxUpload)+1), hold)
	if err != nil {
		return nil, uploadError(err)
	}
	switch {
	case len(data) > MaxUpload:
		return nil, hensachi.Errorf(hensachi.EFileTooLarge, "the image is larger than %d bytes (10 MiB)", MaxUpload)
	case len(data) == 0:
		return nil, hensachi.Errorf(hensachi.EMissingFile, "the part named file is empty")
	}
	return data, nil
}

func uploadError(err error) error {
	var tooBig *http.MaxBytesError
	var refused *hensachi.Error // no room in the bodies' budget
	switch {
	case errors.As(err, &tooBig):
		return errBodyTooLarge
	case errors.As(err, &refused):
		return err
	}
	return &hensachi.Error{Code: hensachi.EMissingFile, Message: "the multipart body is malformed or ends early; send multipart/form-data with the image in a part named file", Cause: err}
}

// UploadPace is how fast a face call's upload must arrive.
type UploadPace = uploadbody.Pace

// DefaultUploadPace is the pace an upload must keep unless Config.UploadPace says otherwise.
var DefaultUploadPace = uploadbody.DefaultPace

type bboxJSON struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

type ageRangeJSON struct {
	Low  int `json:"low"`
	High int `json:"high"`
}

// faceJSON is one face as the document specifies it, and, beside, the extra fields: the
// detector's confidence and the range of the age.
type faceJSON struct {
	FaceID         int           `json:"face_id"`
	Score          float64       `json:"score"`
	RawScore       float64       `json:"raw_score"`
	Age            int           `json:"age"`
	Gender         string        `json:"gender"`
	GenderProb     float64       `json:"gender_prob"`
	BBox           bboxJSON      `json:"bbox"`
	DetectionScore float64       `json:"detection_score"`
	AgeRange       *ageRangeJSON `json:"age_range,omitempty"`
}

// predict handles POST /face/v1/predict: the face call (package facecall) reads the upload, at
// its pace, once the account is admitted and holds its unit of the quota, and its faces become the
// JSON the document specifies, at its precision. A call refused before the body is read is
// answered without reading it, and so without a 100 Continue to a client that asked for one.
func (s *Server) predict(c *call, _ httprouter.Params) ([]byte, error) {
	if _, err := param.ParseAPI(c.r.URL.RawQuery); err != nil {
		return nil, err
	}
	boundary, size, err := uploadRequest(c.r)
	if err != nil {
		return nil, closeUnread(c, err)
	}
	body := uploadbody.NewBody(c.w, http.MaxBytesReader(c.w, c.r.Body, maxBody), s.cfg.UploadPace)
	held := uploadbody.Held(size)
	a, err := s.faces.Analyze(c.r.Context(), c.account, facecall.Upload{Size: held, Read: func(hold func(int64) error) ([]byte, error) {
		data, err := readUpload(body, boundary, size, held, hold)
		if late := body.Done(); late != nil {
			return nil, late
		}
		return data, err
	}})
	if err != nil {
		if body.Unread() {
			return nil, closeUnread(c, err)
		}
		return nil, err
	}
	c.res = a.Reservation // keyed commits it with the answer
	results := make([]faceJSON, len(a.Faces))
	for i, f := range a.Faces {
		f = f.Rounded()
		results[i] = faceJSON{FaceID: i, Score: f.Score, RawScore: f.RawScore, Age: f.Age, Gender: f.Gender, GenderProb: f.GenderProb,
			BBox: bboxJSON{X: f.X, Y: f.Y, Width: f.W, Height: f.H}, DetectionScore: f.DetectionScore}
		if r := f.AgeRange; r != nil {
			results[i].AgeRange = &ageRangeJSON{Low: r.Low, High: r.High}
		}
	}
	b := []byte(`"faces_detected":` + strconv.Itoa(len(results)) + `,"results":`)
	enc, err := jsonMarshal(results)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// closeUnread ends a call whose body is left unread (refused before it, or part-way) with err. net/http would otherwise read up to
// 256 KiB of the body before answering, which a client that sends slowly makes wait; closing
// instead, apiConn lingers so that a client still sending reads the answer.
func closeUnread(c *call, err error) error {
	c.w.Header().Set("Connection", "close")
	return err
}

func jsonMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
