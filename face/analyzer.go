package face

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	ort "github.com/yalue/onnxruntime_go"
)

// Config says where the models are and how much of the machine inference may use.
type Config struct {
	DetectorPath  string // YuNet-n with dynamic input
	GenderAgePath string // InsightFace 2018 gender-age, 112×112 aligned RGB
	EmbeddingPath string // 512-d face embedding, 112×112 aligned
	// FaceResPath is HSE FaceRes on a looser 160×160 crop (FaceResTemplate), whose outputs the
	// attribute model reads beside the others; empty: not run.
	FaceResPath string
	Scorer      Scorer // the attractiveness model; nil leaves raw_score and score out
	// Attributes is the age and gender model on the per-face features; nil reads them from the
	// gender-age model's own outputs.
	Attributes AttributeModel
	// Workers is how many images are analysed at once (default: one per CPU); each ONNX run uses
	// IntraOpThreads threads (default: the CPUs divided among the workers).
	Workers        int
	IntraOpThreads int
	// PhotoParallelism is how many goroutines may run one photo's per-face models at once
	// (default: one per CPU). A photo borrows CPUs only while no other photo is using them, so
	// under full load each photo runs on one, whatever this says; 1 never borrows.
	PhotoParallelism int
	// QueueSize is how many images may wait for a worker; beyond it a call is refused at once.
	QueueSize int
	// MaxFaces bounds the faces analysed per image, largest first.
	MaxFaces int
	// QuickPass first searches a photo at no more than quickSide pixels a side, never enlarged, and
	// keeps what that pass finds when every face on its image is at least quickFaceSide: a portrait
	// or a photo of a few large faces then costs the detector a quarter of the main pass, and
	// anything else then gets the passes it would get without it. The server sets it; the
	// training extraction does not, so that the features the committed models were fitted on stay
	// the main pass's to the bit (training.TestTrainingReproducesCommittedModels).
	QuickPass bool
	// SecondLook analyses a photo in which no face was found once more, smoothed and with its
	// contrast stretched (Photo.secondLook): the faces of a dark, grainy photo are then found, and
	// read from the clearer pixels. The server sets it; the training extraction does not, since
	// the faces it adds would add images to the fits.
	SecondLook bool
}

// Scorer turns a face embedding into the 1–5 attractiveness score and its deviation score.
type Scorer interface {
	Score(embedding []float32) (raw, hensachi float64)
}

// Face is the analysis of one face.
type Face struct {
	X, Y, W, H int // box in upright-image pixels, clipped to the image
	Age        int
	Male       float64 // probability that the face is male
	Scored     bool
	RawScore   float64
	Score      float64
	Detection  Detection
	Embedding  []float32 // the attractiveness model's features
	Features   Features  // what the attribute model reads
}

// Analyzer runs the models in a bounded pool of workers with a bounded queue in front.
type Analyzer struct {
	cfg       Config
	detector  *ort.DynamicAdvancedSession
	genderAge *ort.DynamicAdvancedSession
	embedding *ort.DynamicAdvancedSession
	faceRes   *ort.DynamicAdvancedSession
	cpus      cpuBudget
	jobs      chan *job
	stop      chan struct{}
	workers   sync.WaitGroup // the running workers, which Close waits for before releasing the sessions
	closing   sync.Once
}

type job struct {
	ctx   context.Context
	photo *Photo
	faces []Face
	err   error
	done  chan struct{}
}

var yunetOutputNames = []string{
	"cls_8", "cls_16", "cls_32", "obj_8", "obj_16", "obj_32",
	"bbox_8", "bbox_16", "bbox_32", "kps_8", "kps_16", "kps_32",
}

// NewAnalyzer creates the sessions once, warms them up, and starts the workers. ONNX Runtime must
// be initialised first.
func NewAnalyzer(cfg Config) (_ *Analyzer, err error) {
	cfg = cfg.withDefaults()
	a := &Analyzer{
		cfg:  cfg,
		cpus: cpuBudget{limit: int32(runtime.NumCPU()), perRun: int32(cfg.IntraOpThreads)},
		jobs: make(chan *job, cfg.QueueSize),
		stop: make(chan struct{}),
	}
	defer func() {
		if err != nil {
			a.Close() // releases the sessions opened so far
		}
	}()
	if err := a.openSessions(); err != nil {
		return nil, err
	}
	if err := a.warmUp(context.Background()); err != nil {
		return nil, fmt.Errorf("warm up: %w", err)
	}
	turboFactors() // loads libjpeg-turbo at start-up, and logs which JPEG decoder uploads get
	for range cfg.Workers {
		a.workers.Go(a.work)
	}
	return a, nil
}

// withDefaults fills in what the configuration leaves at zero.
func (cfg Config) withDefaults() Config {
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.IntraOpThreads <= 0 {
		cfg.IntraOpThreads = max(1, runtime.NumCPU()/cfg.Workers)
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 2 * cfg.Workers
	}
	if cfg.PhotoParallelism <= 0 {
		cfg.PhotoParallelism = runtime.NumCPU()
	}
	if cfg.MaxFaces <= 0 {
		cfg.MaxFaces = 100
	}
	return cfg
}

// openSessions loads the models: the detector and the gender-age model always, the embedding
// model and FaceRes when the configuration names them.
func (a *Analyzer) openSessions() error {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return fmt.Errorf("onnx session options: %w", err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(a.cfg.IntraOpThreads); err != nil {
		return err
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return err
	}
	models := []struct {
		session  **ort.DynamicAdvancedSession
		path     string
		optional bool // not loaded when path is empty
		in, out  []string
	}{
		{&a.detector, a.cfg.DetectorPath, false, []string{"input"}, yunetOutputNames},
		{&a.genderAge, a.cfg.GenderAgePath, false, []string{"data"}, []string{"fc1"}},
		{&a.embedding, a.cfg.EmbeddingPath, true, []string{"input"}, []string{"output"}},
		{&a.faceRes, a.cfg.FaceResPath, true, []string{"input"}, faceResOutputNames},
	}
	for _, m := range models {
		if m.optional && m.path == "" {
			continue
		}
		if *m.session, err = ort.NewDynamicAdvancedSession(m.path, m.in, m.out, opts); err != nil {
			return fmt.Errorf("load model %s: %w", m.path, err)
		}
	}
	return nil
}

// warmUp runs every session once: the first run of a session allocates and plans, and no request
// should pay for that. The blank photo has no face, so the per-face models run on blank crops.
func (a *Analyzer) warmUp(ctx context.Context) error {
	warm := &RGB{W: 160, H: 120, Pix: make([]uint8, 3*160*120)}
	if _, err := a.analyze(ctx, PhotoOf(warm)); err != nil {
		return err
	}
	blank := make([]uint8, 3*AlignSize*AlignSize)
	if _, _, err := a.genderAgeOutputs(ctx, blank, false); err != nil {
		return err
	}
	if a.embedding != nil {
		if _, err := runOne(ctx, a.embedding, normalisedPlanes(blank)); err != nil {
			return err
		}
	}
	if a.faceRes != nil {
		if _, err := a.faceResOutputs(ctx, make([]uint8, 3*FaceResTemplate.Size*FaceResTemplate.Size)); err != nil {
			return err
		}
	}
	return nil
}

// Close stops the workers, waits for the images they are analysing, and releases the sessions.
func (a *Analyzer) Close() {
	a.closing.Do(func() {
		close(a.stop)
		// a worker may be in the middle of a run for a caller that has given up: releasing the
		// sessions under it would be a use after free in ONNX Runtime
		a.workers.Wait()
		for _, s := range []*ort.DynamicAdvancedSession{a.detector, a.genderAge, a.embedding, a.faceRes} {
			if s != nil {
				s.Destroy()
			}
		}
	})
}

// Capacity is how many images the analyzer takes at once: its workers and its queue.
func (a *Analyzer) Capacity() int { return a.cfg.Workers + a.cfg.QueueSize }

// ErrOverloaded is returned when the queue is full; ErrClosed once the analyzer is shutting down.
var (
	ErrOverloaded = errors.New("face analysis queue full")
	ErrClosed     = errors.New("face analyzer closed")
)

// Analyze analyses an image decoded at full resolution (Decode), as AnalyzePhoto does.
func (a *Analyzer) Analyze(ctx context.Context, img *RGB) ([]Face, error) {
	return a.AnalyzePhoto(ctx, PhotoOf(img))
}

// AnalyzePhoto queues a photo for a worker and waits for the result. A full queue fails at once
// with ErrOverloaded; a caller that gives up (ctx done) leaves the job to be skipped by the worker.
// The worker may decode finer levels of the photo (a second detection pass, small faces).
func (a *Analyzer) AnalyzePhoto(ctx context.Context, photo *Photo) ([]Face, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // a caller already gone takes no place in the queue
	}
	j := &job{ctx: ctx, photo: photo, done: make(chan struct{})}
	select {
	case <-a.stop:
		return nil, ErrClosed
	case a.jobs <- j:
	default:
		return nil, ErrOverloaded
	}
	select {
	case <-j.done:
		return j.faces, j.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-a.stop: // shutting down: a job still queued will not be taken
		return nil, ErrClosed
	}
}

func (a *Analyzer) work() {
	for {
		select {
		case <-a.stop:
			return
		case j := <-a.jobs:
			if err := j.ctx.Err(); err != nil {
				j.err = err // the client is gone: do not spend the pool on it
			} else {
				a.cpus.hold()
				j.faces, j.err = a.analyze(j.ctx, j.photo)
				a.cpus.giveBack()
			}
			close(j.done)
		}
	}
}

// run executes a session, aborting it if ctx ends meanwhile.
func run(ctx context.Context, s *ort.DynamicAdvancedSession, inputs, outputs []ort.Value) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	opts, err := ort.NewRunOptions()
	if err != nil {
		return err
	}
	defer opts.Destroy()
	// Terminate runs on its own goroutine; if it has started, wait for it before Destroy frees opts
	terminated := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { opts.Terminate(); close(terminated) })
	defer func() {
		if !stop() {
			<-terminated
		}
	}()
	if err := s.RunWithOptions(inputs, outputs, opts); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	return nil
}

func destroyAll(vs []ort.Value) {
	for _, v := range vs {
		if v != nil {
			v.Destroy()
		}
	}
}

// analyze finds and analyses the photo's faces, and with SecondLook, when it has none, those of its
// second look's view, found by the passes secondLookPasses allows there.
func (a *Analyzer) analyze(ctx context.Context, p *Photo) ([]Face, error) {
	faces, err := a.analyzeOnce(ctx, p, everyPass)
	if err != nil || len(faces) > 0 || !a.cfg.SecondLook {
		return faces, err
	}
	view, err := p.secondLook(detectScales(p.W, p.H)[0])
	if err != nil {
		return nil, err
	}
	return a.analyzeOnce(ctx, view, secondLookPasses(p.W, p.H))
}

// analyzeOnce finds the photo's faces with the detector's passes that which allows, and analyses
// them.
func (a *Analyzer) analyzeOnce(ctx context.Context, p *Photo, which passes) ([]Face, error) {
	dets, _, err := a.detectPasses(ctx, p, which)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(dets, func(x, y Detection) int {
		return cmpDesc(x.Box.area(), y.Box.area())
	})
	if len(dets) > a.cfg.MaxFaces {
		dets = dets[:a.cfg.MaxFaces]
	}
	// The crops are taken here, in order of size, before any model runs: a crop may decode a
	// finer level of the photo, and which level each crop then finds must not depend on how the
	// models' runs were scheduled, or the same photo could get different answers. The price is
	// FaceRes's crop of a detection that the verification then drops.
	work := make([]faceWork, 0, len(dets))
	for _, d := range dets {
		f := Face{Detection: d}
		f.X, f.Y, f.W, f.H = ClipBox(d.Box, p.W, p.H)
		if f.W == 0 || f.H == 0 {
			continue
		}
		aligned, err := alignFrom(p, d.Landmarks, ArcFace112)
		if err != nil {
			return nil, err
		}
		var crop []uint8
		if a.faceRes != nil {
			if crop, err = alignFrom(p, d.Landmarks, FaceResTemplate); err != nil {
				return nil, err
			}
		}
		work = append(work, faceWork{Face: f, aligned: aligned, crop: crop})
	}
	if err := a.runFaceModels(ctx, work); err != nil {
		return nil, err
	}
	faces := make([]Face, 0, len(work))
	for i := range work {
		w := &work[i]
		if w.verdict.Load() != verdictFace {
			continue
		}
		f := w.Face
		f.Features.FaceRes = w.faceRes
		f.Embedding = f.Features.Embedding
		if a.cfg.Attributes != nil {
			age, male, err := a.cfg.Attributes.Attributes(&f.Features)
			if err != nil {
				return nil, fmt.Errorf("attributes: %w", err)
			}
			f.Age, f.Male = int(math.Round(age)), male
		} else {
			f.Age, f.Male = decodeGenderAge(f.Features.GenderAge)
		}
		if a.cfg.Scorer != nil && f.Embedding != nil {
			f.RawScore, f.Score = a.cfg.Scorer.Score(f.Embedding)
			f.Scored = true
		}
		faces = append(faces, f)
	}
	return faces, nil
}

// faceWork is one detection on its way to a Face: its crops, then its models' outputs.
type faceWork struct {
	Face
	aligned, crop []uint8 // at ArcFace112 and at FaceResTemplate
	faceRes       []float32
	verdict       atomic.Int32 // 0 until the per-face models have checked the detection
}

const (
	verdictFace = iota + 1
	verdictNotFace
)

// runFaceModels runs the per-face models on every face: the embedding, whose norm verifies the
// detection (isFace), the gender-age model and FaceRes. The runs are tasks taken in order by the
// calling worker and by helpers on CPUs that no other photo is using (photoTasks), so that a photo
// analysed while the machine is otherwise idle uses all of it: the embedding, the longest run, on
// one CPU while the gender-age model and then FaceRes run on the other. FaceRes's run on a face is
// skipped when the face has already been found not to be one; a helper may have run it before
// the verdict, which only costs a CPU that was idle.
func (a *Analyzer) runFaceModels(ctx context.Context, work []faceWork) error {
	mirrored := a.readsMirror()
	const (
		embeddingTask = iota
		genderAgeTask
		faceResTask
		perFace
	)
	return a.photoTasks(ctx, perFace*len(work), func(ctx context.Context, i int) error {
		w := &work[i/perFace]
		var err error
		switch i % perFace {
		case embeddingTask:
			if a.embedding != nil {
				if w.Features.Embedding, err = runOne(ctx, a.embedding, normalisedPlanes(w.aligned)); err != nil {
					return fmt.Errorf("embedding: %w", err)
				}
			}
			if isFace(&w.Features) {
				w.verdict.Store(verdictFace)
			} else {
				w.verdict.Store(verdictNotFace)
			}
		case genderAgeTask:
			w.Features.GenderAge, w.Features.MirroredGenderAge, err = a.genderAgeOutputs(ctx, w.aligned, mirrored)
		case faceResTask:
			if a.faceRes != nil && w.verdict.Load() != verdictNotFace {
				w.faceRes, err = a.faceResOutputs(ctx, w.crop)
			}
		}
		return err
	})
}

// readsMirror reports whether the attribute model reads the gender-age model's outputs on the
// mirrored face, which then costs a second run of that model.
func (a *Analyzer) readsMirror() bool {
	return a.cfg.Attributes != nil && a.cfg.Attributes.Mirrored()
}

// photoTasks runs task(0) … task(n−1), each once and in order of taking, on the calling goroutine
// and on up to PhotoParallelism−1 helpers, each of which must first borrow a CPU from the
// analyzer's budget: under full load there is none to borrow and the photo's tasks run one after
// another, as they would with a single goroutine. A helper steps back between tasks when a worker
// has started on another photo meanwhile and the CPUs are overcommitted. The first error stops the
// others' runs.
func (a *Analyzer) photoTasks(ctx context.Context, n int, task func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	take := func(helper bool) {
		for {
			if helper && a.cpus.overcommitted() {
				return
			}
			i := int(next.Add(1)) - 1
			if i >= n || ctx.Err() != nil {
				return
			}
			if err := task(ctx, i); err != nil {
				cancel(err)
				return
			}
		}
	}
	var helpers sync.WaitGroup
	for range min(n, a.cfg.PhotoParallelism) - 1 {
		if !a.cpus.borrow() {
			break
		}
		helpers.Go(func() {
			defer a.cpus.giveBack()
			take(true)
		})
	}
	take(false)
	helpers.Wait()
	return context.Cause(ctx)
}

func cmpDesc(x, y float64) int {
	switch {
	case x > y:
		return -1
	case x < y:
		return 1
	}
	return 0
}

// Detect finds faces at every scale of detectScales and merges them.
func (a *Analyzer) Detect(ctx context.Context, img *RGB) ([]Detection, error) {
	dets, _, err := a.detectPasses(ctx, PhotoOf(img), everyPass)
	return dets, err
}

// passes says which of the detector's passes detectPasses may run on a photo.
type passes int

const (
	// everyPass: the quick pass (Config.QuickPass), the main pass, and the fine pass (detectScales).
	everyPass passes = iota
	// mainPassOnly: the main pass alone.
	mainPassOnly
)

// detectPasses runs the detector's passes on the photo and returns what they found, merged, and
// the scales it ran at, in order: with everyPass, the quick pass (QuickPass), kept alone when its
// faces are all large; else the main pass, and the fine one unless the main pass found faces that
// are all large. With mainPassOnly, the main pass alone.
func (a *Analyzer) detectPasses(ctx context.Context, p *Photo, which passes) (_ []Detection, ran []float64, _ error) {
	pass := func(scale float64) ([]Detection, error) {
		ran = append(ran, scale)
		return a.detectAt(ctx, p, scale)
	}
	scales := detectScales(p.W, p.H)
	if quick := quickScale(p.W, p.H); which == everyPass && a.cfg.QuickPass && quick < scales[0] {
		dets, err := pass(quick)
		if err != nil {
			return nil, nil, err
		}
		if largeEnough(dets, quick, quickFaceSide) {
			return NMS(dets, nmsIoU), ran, nil
		}
	}
	all, err := pass(scales[0])
	if err != nil {
		return nil, nil, err
	}
	if which == everyPass && len(scales) > 1 && !largeEnough(all, scales[0], skipFineSide) {
		fine, err := pass(scales[1])
		if err != nil {
			return nil, nil, err
		}
		all = append(all, fine...)
	}
	return NMS(all, nmsIoU), ran, nil
}

// detectAt runs the detector on the photo resized by scale, from the coarsest level that has the
// pixels; boxes are in the original's pixels.
func (a *Analyzer) detectAt(ctx context.Context, p *Photo, scale float64) ([]Detection, error) {
	data, m, pw, ph, err := detectionInput(p, scale)
	if err != nil {
		return nil, err
	}
	in, err := ort.NewTensor(ort.NewShape(1, 3, int64(ph), int64(pw)), data)
	if err != nil {
		return nil, err
	}
	outs := make([]ort.Value, len(yunetOutputNames))
	err = run(ctx, a.detector, []ort.Value{in}, outs)
	in.Destroy()
	if err != nil {
		destroyAll(outs)
		return nil, fmt.Errorf("detect: %w", err)
	}
	var per [3]yunetOutputs
	for si := range yunetStrides {
		per[si] = yunetOutputs{
			cls:  outs[si].(*ort.Tensor[float32]).GetData(),
			obj:  outs[3+si].(*ort.Tensor[float32]).GetData(),
			bbox: outs[6+si].(*ort.Tensor[float32]).GetData(),
			kps:  outs[9+si].(*ort.Tensor[float32]).GetData(),
		}
	}
	dets, err := decodeYuNet(per, pw, ph, m)
	destroyAll(outs)
	if err != nil {
		return nil, err
	}
	return dets, nil
}

// skipFineSide is the side, in pixels of the main pass's image, from which a face makes the
// second pass unnecessary: the faces that only the second pass finds are under about 20 of those
// pixels, several times smaller than every face already found, so they are not the photo's
// subjects. A group photo's faces are smaller than this and keep the second pass.
const skipFineSide = 48

// largeEnough reports whether a pass at scale found faces and all of them are at least side on
// its image.
func largeEnough(dets []Detection, scale, side float64) bool {
	if len(dets) == 0 {
		return false
	}
	for _, d := range dets {
		if math.Min(d.Box.W, d.Box.H)*scale < side {
			return false
		}
	}
	return true
}

// rawPlanes lays an aligned face out as RGB planes of 0–255, as the gender-age model reads it
// (it normalises inside its graph).
func rawPlanes(aligned []uint8) []float32 {
	const n = AlignSize * AlignSize
	raw := make([]float32, 3*n)
	for i := range n {
		raw[i], raw[n+i], raw[2*n+i] = float32(aligned[3*i]), float32(aligned[3*i+1]), float32(aligned[3*i+2])
	}
	return raw
}

// normalisedPlanes lays an aligned face out as RGB planes of (p − 127)/128, as the embedding model
// reads it.
func normalisedPlanes(aligned []uint8) []float32 {
	norm := rawPlanes(aligned)
	for i, v := range norm {
		norm[i] = (v - 127) / 128
	}
	return norm
}

// runOne runs a single-input, single-output model on one 3×112×112 face.
func runOne(ctx context.Context, s *ort.DynamicAdvancedSession, data []float32) ([]float32, error) {
	in, err := ort.NewTensor(ort.NewShape(1, 3, AlignSize, AlignSize), data)
	if err != nil {
		return nil, err
	}
	defer in.Destroy()
	outs := []ort.Value{nil}
	if err := run(ctx, s, []ort.Value{in}, outs); err != nil {
		destroyAll(outs)
		return nil, err
	}
	defer destroyAll(outs)
	return slices.Clone(outs[0].(*ort.Tensor[float32]).GetData()), nil
}

// faceResOutputNames are FaceRes's outputs that the attribute model reads: its 256 dense features
// (the layer its gender and age outputs share), P(male), and the probabilities of 100 age classes.
var faceResOutputNames = []string{"feats/Relu", "gender_pred/Sigmoid", "age_pred/Softmax"}

// FaceResFeatures is the length of Features.FaceRes.
const FaceResFeatures = 256 + 1 + 100

// faceResOutputs runs FaceRes on a crop at FaceResTemplate: BGR planes of 0–255, as the model
// was trained (its normalisation is inside the graph), and returns its outputs end to end.
func (a *Analyzer) faceResOutputs(ctx context.Context, crop []uint8) ([]float32, error) {
	size := int64(FaceResTemplate.Size)
	in, err := ort.NewTensor(ort.NewShape(1, 3, size, size), faceResInput(crop))
	if err != nil {
		return nil, err
	}
	defer in.Destroy()
	outs := make([]ort.Value, len(faceResOutputNames))
	defer destroyAll(outs)
	if err := run(ctx, a.faceRes, []ort.Value{in}, outs); err != nil {
		return nil, fmt.Errorf("faceres: %w", err)
	}
	out := make([]float32, 0, FaceResFeatures)
	for _, v := range outs {
		out = append(out, v.(*ort.Tensor[float32]).GetData()...)
	}
	if len(out) != FaceResFeatures {
		return nil, fmt.Errorf("faceres: %d outputs, want %d", len(out), FaceResFeatures)
	}
	return out, nil
}

// faceResInput lays a packed RGB crop out as FaceRes's BGR planes.
func faceResInput(crop []uint8) []float32 {
	n := len(crop) / 3
	planes := make([]float32, 3*n)
	for i := range n {
		planes[i], planes[n+i], planes[2*n+i] = float32(crop[3*i+2]), float32(crop[3*i+1]), float32(crop[3*i])
	}
	return planes
}

// decodeGenderAge reads fc1: two gender logits (female, male), then 100 pairs whose second value
// wins for each year of age.
func decodeGenderAge(fc1 []float32) (age int, male float64) {
	if len(fc1) < 202 {
		return 0, 0.5
	}
	f, m := float64(fc1[0]), float64(fc1[1])
	male = 1 / (1 + math.Exp(f-m))
	for k := range 100 {
		if fc1[2+2*k+1] > fc1[2+2*k] {
			age++
		}
	}
	return age, male
}
