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
	quota   *quota.Local
	faces   []face.Face
	err     error
	saveErr error    // what Save and Check fail with
	saved   []string // extensions
	steps   []string
}

func (f *fakes) AnalyzePhoto(_ context.Context, photo *face.Photo) ([]face.Face, error) {
	f.steps = append(f.steps, "analyse")
	return f.faces, f.err
}

func (f *fakes) Save(_ []byte, ext string) (string, error) {
	f.steps = append(f.steps, "store")
	if f.saveErr != nil {
		return "", f.saveErr
	}
	f.saved = append(f.saved, ext)
	return "name", nil
}

func (f *fakes) Check() error { return f.saveErr }

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

// reader is an upload whose read callback records when it is called.
func (f *fakes) reader(data []byte) Upload {
	return Upload{Size: int64(len(data)), Read: func(func(int64) error) ([]byte, error) {
		f.steps = append(f.steps, "read")
		return data, nil
	}}
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

// spread is an age range from three years below to four above.
type spread struct{}

func (spread) Range(age int) (low, high int) { return age - 3, age + 4 }

// TestAnalyze: the steps run in order, the faces come in the analyzer's order with their gender,
// detection score and age range, the upload is kept, and the unit of quota is the caller's to
// commit.
func TestAnalyze(t *testing.T) {
	f := newFakes(t, 10)
	f.faces = []face.Face{
		{X: 10, Y: 20, W: 100, H: 120, Age: 31, Male: 0.87654, Scored: true, RawScore: 3.14159, Score: 61.26, Detection: face.Detection{Score: 0.876543}},
		{X: 150, Y: 30, W: 40, H: 48, Age: 8, Male: 0.2, Scored: true, RawScore: 2.5, Score: 44.44, Detection: face.Detection{Score: 0.75}},
	}
	s := f.service(Config{AgeRanges: spread{}})
	r, err := s.Analyze(t.Context(), account, f.reader(encodePNG(t, 320, 200, false)))
	if err != nil {
		t.Fatal(err)
	}
	if want := "reserve read analyse store"; fmtSteps(f.steps) != want {
		t.Errorf("steps %q, want %q", fmtSteps(f.steps), want)
	}
	want := []Face{
		{X: 10, Y: 20, W: 100, H: 120, Score: 61.26, RawScore: 3.14159, Age: 31, AgeRange: &AgeRange{28, 35}, Gender: "male", GenderProb: 0.87654, DetectionScore: 0.876543},
		{X: 150, Y: 30, W: 40, H: 48, Score: 44.44, RawScore: 2.5, Age: 8, AgeRange: &AgeRange{5, 12}, Gender: "female", GenderProb: 0.8, DetectionScore: 0.75},
	}
	if len(r.Faces) != 2 || r.Faces[1].Gender != "female" || r.Faces[1].GenderProb < 0.7999 || r.Faces[1].GenderProb > 0.8001 ||
		r.Faces[1].AgeRange == nil || *r.Faces[1].AgeRange != *want[1].AgeRange || r.Faces[1].DetectionScore != 0.75 {
		t.Errorf("faces %+v, want %+v", r.Faces, want)
	}
	if got := r.Faces[0]; got.AgeRange == nil || *got.AgeRange != *want[0].AgeRange {
		t.Errorf("face 0's age range %+v, want %+v", got.AgeRange, want[0].AgeRange)
	} else if got.AgeRange = want[0].AgeRange; got != want[0] {
		t.Errorf("face 0 %+v, want %+v", got, want[0])
	}
	if got := r.Faces[0].Rounded(); got.Score != 61.3 || got.RawScore != 3.14 || got.GenderProb != 0.8765 || got.DetectionScore != 0.8765 {
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
		// refused from the header, before the decoding budget is held or a pixel decoded
		{"1,000 scans", jpegtest.ManyScans(2000, 2000, 1000), nil, nil, hensachi.EInvalidImage, false},
		{"20,000 scans", jpegtest.ManyScans(2000, 2000, 20_000), nil, nil, hensachi.EInvalidImage, false},
		{"overloaded", img, face.ErrOverloaded, nil, hensachi.EOverloaded, true},
		{"closed", img, face.ErrClosed, nil, hensachi.EUnavailable, true},
		{"client gone", img, context.Canceled, nil, hensachi.EUnavailable, false},
		{"deadline passed", img, context.DeadlineExceeded, nil, hensachi.EUnavailable, false},
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
	if got := fmtSteps(f.steps); got != "reserve" {
		t.Errorf("steps over the limit %q, want reserve: the upload is not read", got)
	}
}

// TestAdmissionBeforeRead: an account past its share of calls, a body that does not fit in the
// bodies' budget and an account at its daily limit are refused before the upload is read; a full
// analyzer is found only once the upload is read, and gives the unit back.
func TestAdmissionBeforeRead(t *testing.T) {
	f := newFakes(t, 10)
	s := f.service(Config{Slots: 1, SlotsPerAccount: 1, Bodies: 1 << 20})
	img := encodePNG(t, 32, 32, false)
	held, err := s.admission.enter(account.ID, 1000)
	if err != nil {
		t.Fatal(err)
	}
	other := hensachi.Account{ID: 2, Plan: hensachi.PlanFree}
	big := f.reader(img)
	big.Size = 1<<20 - 999 // does not fit beside the 1,000 bytes held
	for _, c := range []struct {
		name    string
		account hensachi.Account
		up      Upload
	}{
		{"past the account's share", account, f.reader(img)},
		{"past the bodies' budget", other, big},
	} {
		_, err := s.Analyze(t.Context(), c.account, c.up)
		if !errors.Is(err, ErrRefusedBeforeRead) || hensachi.ErrorCode(err) != hensachi.EOverloaded || len(f.steps) != 0 {
			t.Errorf("%s: %v, steps %v", c.name, err, f.steps)
		}
	}
	// the slot is taken after the upload has arrived: a full analyzer refuses it then
	if err := held.takeSlot(); err != nil {
		t.Fatal(err)
	}
	_, err = s.Analyze(t.Context(), other, f.reader(img))
	if hensachi.ErrorCode(err) != hensachi.EOverloaded || errors.Is(err, ErrRefusedBeforeRead) || fmtSteps(f.steps) != "reserve read" {
		t.Errorf("with the only analyzer slot taken: %v, steps %v", err, f.steps)
	}
	held.leave()
	f.steps = nil
	if _, err := s.Analyze(t.Context(), account, f.reader(img)); err != nil {
		t.Errorf("once the slot is free: %v", err)
	}
	if used := f.quota.Used(other.ID, hensachi.ServiceFace); used != 0 {
		t.Errorf("the refused calls counted %d", used)
	}
	// at the daily limit: refused before the upload is read
	limited := newFakes(t, 0)
	_, err = limited.service(Config{}).Analyze(t.Context(), account, limited.reader(img))
	if !errors.Is(err, ErrRefusedBeforeRead) || hensachi.ErrorCode(err) != hensachi.EDailyLimitExceeded || fmtSteps(limited.steps) != "reserve" {
		t.Errorf("at the limit: %v, steps %v", err, limited.steps)
	}
}

// TestAdmission: an account holds at most its share of the calls, bodies take their bytes from
// their budget before they are read, analysis takes a slot, and decoding its bytes from the
// decoding budget, counted by bit depth; all come back when the call leaves.
func TestAdmission(t *testing.T) {
	a := newAdmission(1, 1, 1000, 600_000)
	first, err := a.enter(1, 600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.enter(1, 1); hensachi.ErrorCode(err) != hensachi.EOverloaded {
		t.Errorf("a second call of the same account: %v", err)
	}
	if _, err := a.enter(2, 401); hensachi.ErrorCode(err) != hensachi.EOverloaded {
		t.Errorf("a body past the bodies' budget: %v", err)
	}
	second, err := a.enter(2, 400)
	if err != nil {
		t.Fatalf("another account: %v", err)
	}
	if err := first.takeSlot(); err != nil {
		t.Fatal(err)
	}
	if err := second.takeSlot(); hensachi.ErrorCode(err) != hensachi.EOverloaded {
		t.Errorf("a second analysis with one slot: %v", err)
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
	if err := second.takeSlot(); err != nil {
		t.Errorf("the slot once the first call left: %v", err)
	}
	if err := second.reserveMemory(deep.DecodeBytes); err != nil {
		t.Errorf("once the first call left: %v", err)
	}
	second.leave()
	if a.used != 0 || a.bodyBytes != 0 || a.decodeBytes != 0 || len(a.accounts) != 0 {
		t.Errorf("after every call left: %d slots, %d body bytes, %d decoding bytes, accounts %v", a.used, a.bodyBytes, a.decodeBytes, a.accounts)
	}
}

// TestUploadsNotKept: an upload that cannot be kept does not fail its call, which is answered and
// counted; the failure is counted and named until an upload is kept again, from the start-up check on.
func TestUploadsNotKept(t *testing.T) {
	f := newFakes(t, 10)
	full := errors.New("no space left on device")
	f.saveErr = full
	s := f.service(Config{})
	if n, err := s.UploadsNotKept(); n != 0 || err != full {
		t.Errorf("after a failed start-up check: %d, %v", n, err)
	}
	img := encodePNG(t, 32, 32, false)
	for range 2 {
		r, err := s.Analyze(t.Context(), account, f.reader(img))
		if err != nil {
			t.Fatalf("a call whose upload cannot be kept: %v", err)
		}
		r.Reservation.Commit()
	}
	if n, err := s.UploadsNotKept(); n != 2 || err != full || f.quota.Used(account.ID, hensachi.ServiceFace) != 2 {
		t.Errorf("after two uploads not kept: %d, %v, %d counted", n, err, f.quota.Used(account.ID, hensachi.ServiceFace))
	}
	f.saveErr = nil
	if _, err := s.Analyze(t.Context(), account, f.reader(img)); err != nil {
		t.Fatal(err)
	}
	if n, err := s.UploadsNotKept(); n != 2 || err != nil {
		t.Errorf("once an upload is kept again: %d, %v", n, err)
	}
}
