package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/internal/reqinfo"
)

const (
	// MaxUpload is the largest image accepted (spec §8: 10 MB, enforced as 10 MiB).
	MaxUpload = 10 << 20
	// maxBody leaves room for the multipart framing and small extra fields around the image.
	maxBody  = MaxUpload + 64<<10
	maxParts = 8
)

// FaceAnalyzer finds and analyses the faces of an upright image; face.Analyzer is the real one.
type FaceAnalyzer interface {
	Analyze(ctx context.Context, img *face.RGB) ([]face.Face, error)
}

// UploadStore keeps uploaded images, as the operator's terms say; uploads.Store keeps them on disk.
type UploadStore interface {
	// Save stores an image; ext is its format's file name extension.
	Save(data []byte, ext string) (string, error)
}

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

// predict handles POST /face/v1/predict.
func (s *Server) predict(c *call, _ httprouter.Params) ([]byte, error) {
	if _, err := parseQuery(c.r.URL.RawQuery); err != nil {
		return nil, err
	}
	ticket, err := s.faceAdmission.enter(c.account.ID)
	if err != nil {
		// refused before the body is read: closing the connection spares reading (and the client
		// sending) the rest of an upload of up to 10 MiB
		c.w.Header().Set("Connection", "close")
		return nil, err
	}
	defer ticket.leave()
	data, err := readUpload(c.w, c.r)
	if err != nil {
		return nil, err
	}
	if err := c.reserve(); err != nil {
		return nil, err
	}
	header, err := face.Inspect(data)
	if err != nil {
		return nil, err
	}
	if err := ticket.reserveMemory(header.DecodeBytes); err != nil {
		return nil, err
	}
	img, err := face.Decode(data)
	if err != nil {
		return nil, err
	}
	faces, err := s.cfg.Faces.Analyze(c.r.Context(), img)
	switch {
	case errors.Is(err, face.ErrOverloaded):
		return nil, hensachi.Errorf(hensachi.EOverloaded, "the face service is busy; retry shortly").RetryIn(time.Second)
	case errors.Is(err, face.ErrClosed):
		return nil, hensachi.Errorf(hensachi.EUnavailable, "the face service is shutting down; retry shortly").RetryIn(time.Second)
	case errors.Is(err, context.Canceled):
		return nil, hensachi.Errorf(hensachi.EUnavailable, "the client went away")
	case err != nil:
		return nil, err
	}
	results := make([]faceJSON, len(faces))
	for i, f := range faces {
		gender, prob := "female", 1-f.Male
		if f.Male >= 0.5 {
			gender, prob = "male", f.Male
		}
		if !f.Scored {
			// the document promises both numbers; an analyzer without its attractiveness model is a
			// deployment fault, not a face without a score
			return nil, fmt.Errorf("face %d has no attractiveness score: the analyzer runs without its model", i)
		}
		results[i] = faceJSON{FaceID: i, Score: hensachi.Round(f.Score, 1), RawScore: hensachi.Round(f.RawScore, 2),
			Age: f.Age, Gender: gender, GenderProb: hensachi.Round(prob, 4),
			BBox: bboxJSON{X: f.X, Y: f.Y, Width: f.W, Height: f.H}}
	}
	if s.cfg.Uploads != nil {
		if _, err := s.cfg.Uploads.Save(data, string(header.Format)); err != nil {
			slog.ErrorContext(c.r.Context(), "store upload", "err", err, "request_id", reqinfo.ID(c.r.Context()))
		}
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
