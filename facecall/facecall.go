// Package facecall is one face call of an account, whichever door it comes through (the JSON API
// or the demo page): admission of the account (its share of calls, the bytes of its upload) and a
// unit of the daily quota before the upload is read, then an analyzer slot, the image's header and
// the decoding budget, the pixels, the models, and keeping the upload, in that order.
// It knows no HTTP: the caller reads the upload when asked and maps the errors, hensachi.Error
// codes, to its own answers.
package facecall

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/face"
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

// checkedStore is an UploadStore that can tell at start whether it can store (uploads.Store).
type checkedStore interface{ Check() error }

// MaxUpload is the largest image a call takes (the documented 10 MB, enforced as 10 MiB); MaxBody the
// largest body that carries one, with room for the multipart framing and small extra fields.
const (
	MaxUpload = 10 << 20
	MaxBody   = MaxUpload + 64<<10
)

// AgeRanges turns a reported age into a range of whole years that holds the true age for a
// calibrated share of faces; attr.AgeRanges is the real one.
type AgeRanges interface {
	Range(age int) (low, high int)
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
	// AgeRanges gives each face the range its true age is likely in; nil leaves it out.
	AgeRanges AgeRanges
	// Slots is how many calls are analysed at once, from the end of their upload to the answer
	// (default 8: give the analyzer's workers plus its queue); SlotsPerAccount how many calls one
	// account may have in progress, reading their upload or analysed (default 2); Bodies the bytes
	// the uploads in progress may take together, as much as their clients have sent (default 128
	// MiB: a dozen of the largest); Memory the bytes their decoding may take together (default 512
	// MiB, enough for the largest image the pixel guard lets through).
	Slots           int
	SlotsPerAccount int
	Bodies          int64
	Memory          int64
}

// Service runs face calls.
type Service struct {
	cfg       Config
	admission *admission

	mu         sync.Mutex
	notKept    int64 // uploads analysed but not kept, since the start
	uploadsErr error // why the last upload (or the start-up check) could not be kept; nil once one is
}

// New prepares the calls of an analyzer; the analyzer belongs to the caller.
func New(cfg Config) *Service {
	if cfg.Slots <= 0 {
		cfg.Slots = 8
	}
	if cfg.SlotsPerAccount <= 0 {
		cfg.SlotsPerAccount = 2
	}
	if cfg.Bodies <= 0 {
		cfg.Bodies = 128 << 20
	}
	if cfg.Memory <= 0 {
		cfg.Memory = 512 << 20
	}
	s := &Service{cfg: cfg, admission: newAdmission(cfg.Slots, cfg.SlotsPerAccount, cfg.Bodies, cfg.Memory)}
	if c, ok := cfg.Uploads.(checkedStore); ok {
		if err := c.Check(); err != nil {
			slog.Error("uploads cannot be kept: face calls are answered, and the uploads are lost", "err", err)
			s.uploadsErr = err
		}
	}
	return s
}

// ErrRefusedBeforeRead marks a call refused before its upload was read (by admission or the daily
// limit), so that the caller can answer without reading it.
var ErrRefusedBeforeRead = errors.New("refused before the upload was read")

// Upload is an upload as a call sees it before reading it.
type Upload struct {
	// Size is the bytes reading it takes to begin with, held from the bodies' budget until the
	// call ends; 0 or more than MaxBody counts as MaxBody.
	Size int64
	// Read reads the upload once the call is admitted and holds its unit of the daily quota. A
	// reader whose buffer would outgrow Size first calls hold for the bytes it adds, which takes
	// them from the bodies' budget or refuses (EOverloaded): so the budget counts what clients
	// have sent, not what they announce. A reader that never calls hold must stay within Size.
	Read func(hold func(n int64) error) ([]byte, error)
}

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
	// AgeRange is where the true age likely is (Config.AgeRanges); nil without it.
	AgeRange   *AgeRange
	Gender     string  // "female" or "male"
	GenderProb float64 // the probability of Gender
	// DetectionScore is the detector's confidence that this is a face, 0–1 (at least the
	// detector's threshold, 0.7).
	DetectionScore float64
}

// AgeRange is a range of ages in whole years, both ends included.
type AgeRange struct{ Low, High int }

// Rounded is the face at the precision the API documents (openapi.json), which the demo page shows too.
func (f Face) Rounded() Face {
	f.Score, f.RawScore, f.GenderProb = hensachi.Round(f.Score, 1), hensachi.Round(f.RawScore, 2), hensachi.Round(f.GenderProb, 4)
	f.DetectionScore = hensachi.Round(f.DetectionScore, 4)
	return f
}

// Analyze is one face call of an account. Before the upload is read: admission of the account
// (its share of calls, the upload's bytes) and a unit of the daily quota, so a call that will be
// refused is refused unread. Then the upload is read, and the call takes an analyzer slot, reads
// the image's header and holds its decoding budget, decodes, runs the models and keeps the upload.
// On error the unit is given back; on success the Result holds it.
func (s *Service) Analyze(ctx context.Context, account hensachi.Account, up Upload) (*Result, error) {
	if up.Size <= 0 || up.Size > MaxBody {
		up.Size = MaxBody
	}
	ticket, err := s.admission.enter(account.ID, up.Size)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRefusedBeforeRead, err)
	}
	defer ticket.leave()
	res, err := s.cfg.Quota.Reserve(ctx, account, hensachi.ServiceFace)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRefusedBeforeRead, err)
	}
	photo, faces, data, ext, err := s.readAndAnalyze(ctx, ticket, up.Read)
	if err != nil {
		res.Release()
		return nil, err
	}
	s.keep(ctx, data, ext)
	return &Result{Photo: photo, Faces: faces, Reservation: res}, nil
}

// readAndAnalyze reads the upload, takes an analyzer slot and analyses it.
func (s *Service) readAndAnalyze(ctx context.Context, ticket *ticket, read func(hold func(int64) error) ([]byte, error)) (_ *face.Photo, _ []Face, data []byte, ext string, _ error) {
	data, err := read(ticket.holdBody)
	if err != nil {
		return nil, nil, nil, "", err
	}
	if err := ticket.takeSlot(); err != nil {
		return nil, nil, nil, "", err
	}
	photo, faces, ext, err := s.analyze(ctx, ticket, data)
	return photo, faces, data, ext, err
}

// keep stores an analysed upload. A failure does not fail the call, whose answer the client has
// already earned: keeping uploads is the operator's right under the terms, not part of the answer.
// It is made loud instead: an error in the log, UploadsNotKept for the metrics and /readyz.
func (s *Service) keep(ctx context.Context, data []byte, ext string) {
	if s.cfg.Uploads == nil {
		return
	}
	_, err := s.cfg.Uploads.Save(data, ext)
	if err != nil {
		slog.ErrorContext(ctx, "upload not kept: the call is answered and counted", "err", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.uploadsErr = err
	if err != nil {
		s.notKept++
	}
}

// KeepsUploads reports whether the calls keep their uploads (Config.Uploads), for pages that tell
// the people uploading.
func (s *Service) KeepsUploads() bool { return s.cfg.Uploads != nil }

// UploadsNotKept returns how many analysed uploads could not be kept since the start, and why the
// last attempt (or the start-up check) failed; nil once an upload is kept again, and without storage.
func (s *Service) UploadsNotKept() (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notKept, s.uploadsErr
}

// errCallEnded answers a call whose request ended (the client went away, or its deadline passed)
// before the analysis did.
var errCallEnded = hensachi.Errorf(hensachi.EUnavailable, "the call ended before its analysis did")

func callEnded(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
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
	switch {
	case callEnded(err):
		return nil, nil, "", errCallEnded
	case err != nil:
		return nil, nil, "", err
	}
	found, err := s.cfg.Analyzer.AnalyzePhoto(ctx, photo)
	switch {
	case errors.Is(err, face.ErrOverloaded):
		return nil, nil, "", errBusy
	case errors.Is(err, face.ErrClosed):
		return nil, nil, "", hensachi.Errorf(hensachi.EUnavailable, "the face service is shutting down; retry shortly").RetryIn(time.Second)
	case callEnded(err):
		return nil, nil, "", errCallEnded
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
		faces[i] = Face{X: f.X, Y: f.Y, W: f.W, H: f.H, Score: f.Score, RawScore: f.RawScore, Age: f.Age, Gender: gender, GenderProb: prob,
			DetectionScore: f.Detection.Score}
		if s.cfg.AgeRanges != nil {
			low, high := s.cfg.AgeRanges.Range(f.Age)
			faces[i].AgeRange = &AgeRange{Low: low, High: high}
		}
	}
	return photo, faces, string(header.Format), nil
}
