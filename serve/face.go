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
)

const (
	// MaxUpload is the largest image accepted (spec §8: 10 MB, enforced as 10 MiB).
	MaxUpload = 10 << 20
	// maxBody leaves room for the multipart framing and small extra fields around the image.
	maxBody  = MaxUpload + 64<<10
	maxParts = 8
)

// readUpload reads the part named file of a multipart body, enforcing the size cap while reading.
func readUpload(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, hensachi.Errorf(hensachi.EMissingFile, "send multipart/form-data with the image in a part named file")
	}
	body := http.MaxBytesReader(w, r.Body, maxBody)
	mr := multipart.NewReader(body, params["boundary"])
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
		data, err := io.ReadAll(io.LimitReader(part, MaxUpload+1))
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
	return nil, hensachi.Errorf(hensachi.EMissingFile, "no part named file in the multipart body")
}

func uploadError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return hensachi.Errorf(hensachi.EFileTooLarge, "the request body is larger than %d bytes; the image may be at most 10 MiB", maxBody)
	}
	return &hensachi.Error{Code: hensachi.EMissingFile, Message: "the multipart body is malformed or ends early; send multipart/form-data with the image in a part named file", Cause: err}
}

type bboxJSON struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

type faceJSON struct {
	FaceID     int      `json:"face_id"`
	Score      float64  `json:"score"`
	RawScore   float64  `json:"raw_score"`
	Age        int      `json:"age"`
	Gender     string   `json:"gender"`
	GenderProb float64  `json:"gender_prob"`
	BBox       bboxJSON `json:"bbox"`
}

// predict handles POST /face/v1/predict: the face call (package facecall) reads the upload once
// admitted, and its faces become the JSON the document specifies, at its precision.
func (s *Server) predict(c *call, _ httprouter.Params) ([]byte, error) {
	if _, err := parseQuery(c.r.URL.RawQuery); err != nil {
		return nil, err
	}
	a, err := s.faces.Analyze(c.r.Context(), c.account, func() ([]byte, error) { return readUpload(c.w, c.r) })
	if err != nil {
		if errors.Is(err, facecall.ErrRefusedBeforeRead) {
			// net/http would otherwise read up to 256 KiB of the body before answering, which a
			// client that sends slowly makes wait; closing instead, apiConn lingers so that a client
			// still sending reads the answer
			c.w.Header().Set("Connection", "close")
		}
		return nil, err
	}
	c.res = a.Reservation // keyed commits it with the answer
	results := make([]faceJSON, len(a.Faces))
	for i, f := range a.Faces {
		f = f.Rounded()
		results[i] = faceJSON{FaceID: i, Score: f.Score, RawScore: f.RawScore, Age: f.Age, Gender: f.Gender, GenderProb: f.GenderProb,
			BBox: bboxJSON{X: f.X, Y: f.Y, Width: f.W, Height: f.H}}
	}
	b := []byte(`"faces_detected":` + strconv.Itoa(len(results)) + `,"results":`)
	enc, err := jsonMarshal(results)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
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
