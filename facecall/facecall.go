// Package facecall is one face call of an account, whichever door it comes through (the JSON API
// or the demo page): admission (a slot, the account's share, the decoding budget), a unit of the
// daily quota, the image's header and pixels, the models, and keeping the upload, in that order.
// It knows no HTTP: the caller reads the upload when asked and maps the errors, hensachi.Error
// codes, to its own answers.
package facecall

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/internal/reqinfo"
	"github.com/hensachi/hensachi/quota"
)

// Analyzer finds and analyses the faces of a decoded photo, largest first; face.Analyzer is the
// real one.
type Analyzer interface {
	AnalyzePhoto(ctx context.Context, photo *face.Photo) ([]face.Face, error)
}

// UploadStore keeps uploaded images, as the operator's terms say; uploads.Store keeps them on disk.
type UploadStore interface {
	// Save stores an image; ext is its format's file name extension.
	Save(data []byte, ext string) (string, error)
}

// Quota holds units of the accounts' daily quotas; a quota.Enforcer is one.
type Quota interface {
	Reserve(ctx context.Context, account hensachi.Account, service hensachi.Service) (*quota.Reservation, error)
}

// Config configures a Service. The zero value of each optional field picks a safe default.
type Config struct {
	Analyzer Analyzer // required
	Quota    Quota    // required
	// Uploads keeps uploaded images; nil turns storage off.
	Uploads UploadStore
	// Slots is how many calls are admitted at once, from reading the upload to the answer (default
	// 8: give the analyzer's workers plus its queue); SlotsPerAccount how many of them one account
	// may hold (default 2); Memory the bytes their decoding may take together (default 512 MiB,
	// enough for the largest image the pixel guard lets through).
	Slots           int
	SlotsPerAccount int
	Memory          int64
}

// Service runs face calls.
type Service struct {
	cfg       Config
	admission *admission
}

// New prepares the calls of an analyzer; the analyzer belongs to the caller.
func New(cfg Config) *Service {
	if cfg.Slots <= 0 {
		cfg.Slots = 8
	}
	if cfg.SlotsPerAccount <= 0 {
		cfg.SlotsPerAccount = 2
	}
	if cfg.Memory <= 0 {
		cfg.Memory = 512 << 20
	}
	return &Service{cfg: cfg, admission: newAdmission(cfg.Slots, cfg.SlotsPerAccount, cfg.Memory)}
}

// ErrRefusedBeforeRead marks a call that admission refused before the upload was read, so that
// the caller can answer without reading it.
var ErrRefusedBeforeRead = errors.New("refused before the upload was read")

// Result is one analysed upload.
type Result struct {
	// Photo is the decoded upload: decoded at the scale the detector needs, finer on demand.
	Photo *face.Photo
	Faces []Face // largest first
	// Reservation is the call's unit of the daily quota, still held: the caller commits it when
	// the answer goes out, or releases it.
	Reservation *quota.Reservation
}

// Face is one face of an upload.
type Face struct {
	X, Y, W, H int // box in the upright photo's pixels
	Score      float64
	RawScore   float64
	Age        int
	Gender     string  // "female" or "male"
	GenderProb float64 // the probability of Gender
}

// Rounded is the face at the precision the API documents (DESIGN.md), which the demo page shows too.
func (f Face) Rounded() Face {
	f.Score, f.RawScore, f.GenderProb = hensachi.Round(f.Score, 1), hensachi.Round(f.RawScore, 2), hensachi.Round(f.GenderProb, 4)
	return f
}

// Analyze is one face call of an account: admission (a slot, the account's share) before read is
// called to read the upload, then a unit of the daily quota, the image's header and the decoding
// budget, decoding, the models, and storing the upload. On error the unit is given back; on
// success the Result holds it.
func (s *Service) Analyze(ctx context.Context, account hensachi.Account, read func() ([]byte, error)) (*Result, error) {
	ticket, err := s.admission.enter(account.ID)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRefusedBeforeRead, err)
	}
	defer ticket.leave()
	data, err := read()
	if err != nil {
		return nil, err
	}
	res, err := s.cfg.Quota.Reserve(ctx, account, hensachi.ServiceFace)
	if err != nil {
		return nil, err
	}
	photo, faces, ext, err := s.analyze(ctx, ticket, data)
	if err != nil {
		res.Release()
		return nil, err
	}
	if s.cfg.Uploads != nil {
		if _, err := s.cfg.Uploads.Save(data, ext); err != nil {
			slog.ErrorContext(ctx, "store upload", "err", err, "request_id", reqinfo.ID(ctx))
		}
	}
	return &Result{Photo: photo, Faces: faces, Reservation: res}, nil
}

// analyze reads the image's header, holds its decoding budget, decodes it and runs the models; ext
// is the format's file name extension.
func (s *Service) analyze(ctx context.Context, ticket *ticket, data []byte) (_ *face.Photo, _ []Face, ext string, _ error) {
	header, err := face.Inspect(data)
	if err != nil {
		return nil, nil, "", err
	}
	if err := ticket.reserveMemory(header.DecodeBytes); err != nil {
		return nil, nil, "", err
	}
	// decoded at the scale the detector needs; the analyzer decodes finer pixels where a face needs them
	// decoding is bounded by Inspect's budgets (pixels, scans) and not started once ctx is done
	photo, err := face.DecodePhotoContext(ctx, data, header)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, nil, "", hensachi.Errorf(hensachi.EUnavailable, "the client went away")
	}
	if err != nil {
		return nil, nil, "", err
	}
	found, err := s.cfg.Analyzer.AnalyzePhoto(ctx, photo)
	switch {
	case errors.Is(err, face.ErrOverloaded):
		return nil, nil, "", errBusy
	case errors.Is(err, face.ErrClosed):
		return nil, nil, "", hensachi.Errorf(hensachi.EUnavailable, "the face service is shutting down; retry shortly").RetryIn(time.Second)
	case errors.Is(err, context.Canceled):
		return nil, nil, "", hensachi.Errorf(hensachi.EUnavailable, "the client went away")
	case err != nil:
		return nil, nil, "", err
	}
	faces := make([]Face, len(found))
	for i, f := range found {
		if !f.Scored {
			// the API promises both numbers; an analyzer without its attractiveness model is a
			// deployment fault, not a face without a score
			return nil, nil, "", fmt.Errorf("face %d has no attractiveness score: the analyzer runs without its model", i)
		}
		gender, prob := "female", 1-f.Male
		if f.Male >= 0.5 {
			gender, prob = "male", f.Male
		}
		faces[i] = Face{X: f.X, Y: f.Y, W: f.W, H: f.H, Score: f.Score, RawScore: f.RawScore, Age: f.Age, Gender: gender, GenderProb: prob}
	}
	return photo, faces, string(header.Format), nil
}
