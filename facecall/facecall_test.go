package facecall

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/face"
	"github.com/hensachi/hensachi/internal/testrig/jpegtest"
	"github.com/hensachi/hensachi/quota"
)

// noUsage is a store without counts, all a quota.Local reads when it starts.
type noUsage struct{ hensachi.Store }

func (noUsage) Usage(context.Context, string, int64) ([]hensachi.Usage, error) { return nil, nil }

// fakes is a face call's surroundings: a quota of limit calls a day, an analyzer that answers
// faces or err, and an upload store; it records the order of the steps.
type fakes struct {
	quota *quota.Local
	faces []face.Face
	err   error
	saved []string // extensions
	steps []string
}

func (f *fakes) AnalyzePhoto(_ context.Context, photo *face.Photo) ([]face.Face, error) {
	f.steps = append(f.steps, "analyse")
	return f.faces, f.err
}

func (f *fakes) Save(_ []byte, ext string) (string, error) {
	f.steps = append(f.steps, "store")
	f.saved = append(f.saved, ext)
	return "name", nil
}

func (f *fakes) Reserve(ctx context.Context, a hensachi.Account, s hensachi.Service) (*quota.Reservation, error) {
	f.steps = append(f.steps, "reserve")
	return f.quota.Reserve(ctx, a, s)
}

func newFakes(t *testing.T, limit int64) *fakes {
	t.Helper()
	limits := hensachi.DefaultLimits()
	limits[hensachi.PlanFree][hensachi.ServiceFace] = limit
	q, err := quota.NewLocal(t.Context(), noUsage{}, limits, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	return &fakes{quota: q}
}

func (f *fakes) service(cfg Config) *Service {
	cfg.Analyzer, cfg.Quota, cfg.Uploads = f, f, f
	return New(cfg)
}

// reader is an upload's read callback that records when it is called.
func (f *fakes) reader(data []byte) func() ([]byte, error) {
	return func() ([]byte, error) {
		f.steps = append(f.steps, "read")
		return data, nil
	}
}

var account = hensachi.Account{ID: 1, Plan: hensachi.PlanFree}

func encodePNG(t *testing.T, w, h int, deep bool) []byte {
	t.Helper()
	var img image.Image = image.NewRGBA(image.Rect(0, 0, w, h))
	if deep {
		img = image.NewRGBA64(image.Rect(0, 0, w, h))
	}
	for y := range h {
		for x := range w {
			img.(interface{ Set(int, int, color.Color) }).Set(x, y, color.RGBA{uint8(x), uint8(y), 128, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestAnalyze: the steps run in order, the faces come in the analyzer's order with their gender,
// the upload is kept, and the unit of quota is the caller's to commit.
func TestAnalyze(t *testing.T) {
	f := newFakes(t, 10)
	f.faces = []face.Face{
		{X: 10, Y: 20, W: 100, H: 120, Age: 31, Male: 0.87654, Scored: true, RawScore: 3.14159, Score: 61.26},
		{X: 150, Y: 30, W: 40, H: 48, Age: 8, Male: 0.2, Scored: true, RawScore: 2.5, Score: 44.44},
	}
	s := f.service(Config{})
	r, err := s.Analyze(t.Context(), account, f.reader(encodePNG(t, 320, 200, false)))
	if err != nil {
		t.Fatal(err)
	}
	if want := "read reserve analyse store"; fmtSteps(f.steps) != want {
		t.Errorf("steps %q, want %q", fmtSteps(f.steps), want)
	}
	want := []Face{
		{X: 10, Y: 20, W: 100, H: 120, Score: 61.26, RawScore: 3.14159, Age: 31, Gender: "male", GenderProb: 0.87654},
		{X: 150, Y: 30, W: 40, H: 48, Score: 44.44, RawScore: 2.5, Age: 8, Gender: "female", GenderProb: 0.8},
	}
	if len(r.Faces) != 2 || r.Faces[0] != want[0] || r.Faces[1].Gender != "female" || r.Faces[1].GenderProb < 0.7999 || r.Faces[1].GenderProb > 0.8001 {
		t.Errorf("faces %+v, want %+v", r.Faces, want)
	}
	if got := r.Faces[0].Rounded(); got.Score != 61.3 || got.RawScore != 3.14 || got.GenderProb != 0.8765 {
		t.Errorf("rounded %+v", got)
	}
	if r.Photo.W != 320 || r.Photo.H != 200 || len(f.saved) != 1 || f.saved[0] != "png" {
		t.Errorf("photo %d×%d, saved %v", r.Photo.W, r.Photo.H, f.saved)
	}
	if used := f.quota.Used(account.ID, hensachi.ServiceFace); used != 0 {
		t.Errorf("counted before the caller committed: %d", used)
	}
	if used := r.Reservation.Commit(); used != 1 {
		t.Errorf("committed: %d", used)
	}
}

func fmtSteps(steps []string) string {
	var b bytes.Buffer
	for i, s := range steps {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	return b.String()
}

// TestAnalyzeFailures: a failure after the reservation gives the unit back and keeps nothing;
// the analyzer's own errors become the codes the answers need.
func TestAnalyzeFailures(t *testing.T) {
	f := newFakes(t, 10)
	s := f.service(Config{})
	img := encodePNG(t, 64, 64, false)
	for _, c := range []struct {
		name  string
		data  []byte
		err   error
		faces []face.Face
		code  string
		retry bool
	}{
		{"not an image", []byte("not an image"), nil, nil, hensachi.EUnsupportedMedia, false},
		// issue 24: refused from the header, before the decoding budget is held or a pixel decoded
		{"1,000 scans", jpegtest.ManyScans(2000, 2000, 1000), nil, nil, hensachi.EInvalidImage, false},
		{"20,000 scans", jpegtest.ManyScans(2000, 2000, 20_000), nil, nil, hensachi.EInvalidImage, false},
		{"overloaded", img, face.ErrOverloaded, nil, hensachi.EOverloaded, true},
		{"closed", img, face.ErrClosed, nil, hensachi.EUnavailable, true},
		{"client gone", img, context.Canceled, nil, hensachi.EUnavailable, false},
		// the API promises a score; an analyzer without its attractiveness model is a fault
		{"no score", img, nil, []face.Face{{X: 1, Y: 1, W: 40, H: 40, Age: 30, Male: 0.9}}, hensachi.EInternal, false},
	} {
		f.err, f.faces = c.err, c.faces
		start := time.Now()
		_, err := s.Analyze(t.Context(), account, f.reader(c.data))
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s: answered after %v", c.name, took)
		}
		var e *hensachi.Error
		if hensachi.ErrorCode(err) != c.code || (errors.As(err, &e) && (e.RetryAfter > 0) != c.retry) {
			t.Errorf("%s: %v, want %s (retry %v)", c.name, err, c.code, c.retry)
		}
	}
	if used := f.quota.Used(account.ID, hensachi.ServiceFace); used != 0 || len(f.saved) != 0 {
		t.Errorf("failed calls counted %d, stored %v", used, f.saved)
	}
	// every unit came back: the whole quota is still there, and then the call is refused before
	// any decoding
	f.err, f.faces = nil, nil
	for range 10 {
		r, err := s.Analyze(t.Context(), account, f.reader(img))
		if err != nil {
			t.Fatalf("after failures: %v", err)
		}
		r.Reservation.Commit()
	}
	f.steps = nil
	if _, err := s.Analyze(t.Context(), account, f.reader(img)); hensachi.ErrorCode(err) != hensachi.EDailyLimitExceeded {
		t.Errorf("over the limit: %v", err)
	}
	if got := fmtSteps(f.steps); got != "read reserve" {
		t.Errorf("steps over the limit %q, want read reserve", got)
	}
}

// TestAdmissionBeforeRead: without a slot, the call is refused before the upload is read.
func TestAdmissionBeforeRead(t *testing.T) {
	f := newFakes(t, 10)
	s := f.service(Config{Slots: 1})
	held, err := s.admission.enter(2)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Analyze(t.Context(), account, f.reader(encodePNG(t, 32, 32, false)))
	if !errors.Is(err, ErrRefusedBeforeRead) || hensachi.ErrorCode(err) != hensachi.EOverloaded || len(f.steps) != 0 {
		t.Errorf("with the only slot taken: %v, steps %v", err, f.steps)
	}
	held.leave()
	if _, err := s.Analyze(t.Context(), account, f.reader(encodePNG(t, 32, 32, false))); err != nil {
		t.Errorf("once the slot is free: %v", err)
	}
}

// TestAdmission: an account holds at most its share of the slots; decoding takes its bytes from
// the budget, counted by bit depth, and gives them back when the call leaves.
func TestAdmission(t *testing.T) {
	a := newAdmission(4, 1, 600_000)
	first, err := a.enter(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.enter(1); hensachi.ErrorCode(err) != hensachi.EOverloaded {
		t.Errorf("a second call of the same account: %v", err)
	}
	second, err := a.enter(2)
	if err != nil {
		t.Fatalf("another account: %v", err)
	}
	// 200×200 16-bit RGBA costs 200·200·(8+3) = 440,000 bytes
	deep, err := face.Inspect(encodePNG(t, 200, 200, true))
	if err != nil {
		t.Fatal(err)
	}
	if err := first.reserveMemory(deep.DecodeBytes); err != nil {
		t.Fatal(err)
	}
	if err := second.reserveMemory(deep.DecodeBytes); hensachi.ErrorCode(err) != hensachi.EOverloaded {
		t.Errorf("a second 16-bit photo while the budget is taken: %v", err)
	}
	if err := second.reserveMemory(700_000); hensachi.ErrorCode(err) != hensachi.EInvalidImage {
		t.Errorf("a photo larger than the whole budget: %v", err)
	}
	first.leave()
	if err := second.reserveMemory(deep.DecodeBytes); err != nil {
		t.Errorf("once the first call left: %v", err)
	}
	second.leave()
	if a.used != 0 || a.bytes != 0 || len(a.accounts) != 0 {
		t.Errorf("after every call left: %d slots, %d bytes, accounts %v", a.used, a.bytes, a.accounts)
	}
}
