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

// FaceAnalyzer finds and analyses the faces of a decoded upload; face.Analyzer is the real one.
type FaceAnalyzer interface {
	AnalyzePhoto(ctx context.Context, photo *face.Photo) ([]face.Face, error)
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
	a, err := s.analyzeUpload(c.r.Context(), c.account.ID, func() ([]byte, error) { return readUpload(c.w, c.r) }, c.reserve)
	if err != nil {
		if errors.Is(err, errRefusedBeforeBody) {
			// net/http would otherwise read up to 256 KiB of the body before answering, which a
			// client that sends slowly makes wait; closing instead, apiConn lingers so that a client
			// still sending reads the answer
			c.w.Header().Set("Connection", "close")
		}
		return nil, err
	}
	b := []byte(`"faces_detected":` + strconv.Itoa(len(a.faces)) + `,"results":`)
	enc, err := jsonMarshal(a.faces)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// errRefusedBeforeBody marks an upload refused by admission, before its body was read.
var errRefusedBeforeBody = errors.New("refused before the body was read")

// analysis is an upload's result: the decoded photo and its faces as the API writes them.
type analysis struct {
	photo *face.Photo
	faces []faceJSON
}

// analyzeUpload is one face analysis of an account, for the API and the demo page alike: admission
// (a slot, the account's share) before read is called to read the upload, then reserve to hold a
// unit of the daily quota, the decoding budget, decoding, the models, and storing the upload.
func (s *Server) analyzeUpload(ctx context.Context, account int64, read func() ([]byte, error), reserve func() error) (analysis, error) {
	ticket, err := s.faceAdmission.enter(account)
	if err != nil {
		return analysis{}, fmt.Errorf("%w: %w", errRefusedBeforeBody, err)
	}
	defer ticket.leave()
	data, err := read()
	if err != nil {
		return analysis{}, err
	}
	if err := reserve(); err != nil {
		return analysis{}, err
	}
	header, err := face.Inspect(data)
	if err != nil {
		return analysis{}, err
	}
	if err := ticket.reserveMemory(header.DecodeBytes); err != nil {
		return analysis{}, err
	}
	// decoded at the scale the detector needs; the analyzer decodes finer pixels where a face needs them
	photo, err := face.DecodePhoto(data)
	if err != nil {
		return analysis{}, err
	}
	faces, err := s.cfg.Faces.AnalyzePhoto(ctx, photo)
	switch {
	case errors.Is(err, face.ErrOverloaded):
		return analysis{}, hensachi.Errorf(hensachi.EOverloaded, "the face service is busy; retry shortly").RetryIn(time.Second)
	case errors.Is(err, face.ErrClosed):
		return analysis{}, hensachi.Errorf(hensachi.EUnavailable, "the face service is shutting down; retry shortly").RetryIn(time.Second)
	case errors.Is(err, context.Canceled):
		return analysis{}, hensachi.Errorf(hensachi.EUnavailable, "the client went away")
	case err != nil:
		return analysis{}, err
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
			return analysis{}, fmt.Errorf("face %d has no attractiveness score: the analyzer runs without its model", i)
		}
		results[i] = faceJSON{FaceID: i, Score: hensachi.Round(f.Score, 1), RawScore: hensachi.Round(f.RawScore, 2),
			Age: f.Age, Gender: gender, GenderProb: hensachi.Round(prob, 4),
			BBox: bboxJSON{X: f.X, Y: f.Y, Width: f.W, Height: f.H}}
	}
	if s.cfg.Uploads != nil {
		if _, err := s.cfg.Uploads.Save(data, string(header.Format)); err != nil {
			slog.ErrorContext(ctx, "store upload", "err", err, "request_id", reqinfo.ID(ctx))
		}
	}
	return analysis{photo: photo, faces: results}, nil
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
