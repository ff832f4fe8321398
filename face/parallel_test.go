package face

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// taskAnalyzer is an analyzer with no models, enough for photoTasks: a budget of cpus CPUs of
// which held are in use, and photos allowed parallelism goroutines.
func taskAnalyzer(cpus, held, parallelism int) *Analyzer {
	a := &Analyzer{cfg: Config{PhotoParallelism: parallelism}, cpus: cpuBudget{limit: int32(cpus), perRun: 1}}
	a.cpus.held.Store(int32(held))
	return a
}

// concurrency records how many tasks run at once.
type concurrency struct {
	now, peak atomic.Int32
}

func (c *concurrency) enter() {
	n := c.now.Add(1)
	for p := c.peak.Load(); n > p && !c.peak.CompareAndSwap(p, n); p = c.peak.Load() {
	}
}

func (c *concurrency) leave() { c.now.Add(-1) }

func TestPhotoTasks(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		cpus, held, parallelism int
		want                    int // goroutines that must run tasks together
	}{
		{"idle machine", 4, 1, 4, 4},
		{"bounded by the configuration", 4, 1, 2, 2},
		{"bounded by the free CPUs", 4, 2, 4, 3},
		{"full load", 2, 2, 4, 1},
		{"one goroutine", 4, 1, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := taskAnalyzer(tc.cpus, tc.held, tc.parallelism)
			const n = 40
			var runs [n]atomic.Int32
			var c concurrency
			// the first tasks wait until want of them run at once: with fewer goroutines they
			// would wait for ever, hence the deadline
			var started sync.WaitGroup
			started.Add(tc.want)
			together := make(chan struct{})
			go func() { started.Wait(); close(together) }()
			err := a.photoTasks(context.Background(), n, func(ctx context.Context, i int) error {
				c.enter()
				defer c.leave()
				runs[i].Add(1)
				if i < tc.want {
					started.Done()
					select {
					case <-together:
					case <-time.After(10 * time.Second):
						return errors.New("the other goroutines never came")
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for i := range runs {
				if got := runs[i].Load(); got != 1 {
					t.Errorf("task %d ran %d times", i, got)
				}
			}
			if peak := int(c.peak.Load()); peak != tc.want {
				t.Errorf("%d tasks ran at once, want %d", peak, tc.want)
			}
			if held := int(a.cpus.held.Load()); held != tc.held {
				t.Errorf("%d CPUs held after the photo, want %d as before", held, tc.held)
			}
		})
	}
}

// TestPhotoTasksHelperStepsBack starts a worker on another photo while a helper runs one of this
// photo's tasks: the helper must give its CPU back after that task, and the rest run on the
// photo's own goroutine alone.
func TestPhotoTasksHelperStepsBack(t *testing.T) {
	a := taskAnalyzer(2, 1, 2)
	var c concurrency
	var both sync.WaitGroup
	both.Add(2)
	started, held := make(chan struct{}), make(chan struct{})
	go func() { both.Wait(); close(started) }()
	wait := func(ch chan struct{}) error {
		select {
		case <-ch:
			return nil
		case <-time.After(10 * time.Second):
			return errors.New("tasks 0 and 1 did not run together")
		}
	}
	err := a.photoTasks(context.Background(), 20, func(ctx context.Context, i int) error {
		switch i { // tasks 0 and 1 run together, one on each goroutine
		case 0:
			both.Done()
			if err := wait(started); err != nil {
				return err
			}
			a.cpus.hold() // the other worker starts
			close(held)
			return nil
		case 1:
			both.Done()
			return wait(held)
		}
		c.enter()
		defer c.leave()
		// time under test: the job lasts long enough that a second worker let through by a broken
		// cap would overlap it and raise the peak
		time.Sleep(100 * time.Microsecond)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if peak := c.peak.Load(); peak != 1 {
		t.Errorf("%d tasks ran at once after the other worker started, want 1", peak)
	}
	if held := a.cpus.held.Load(); held != 2 {
		t.Errorf("%d CPUs held after the photo, want 2 (the two workers')", held)
	}
}

func TestPhotoTasksError(t *testing.T) {
	a := taskAnalyzer(2, 1, 2)
	failure := errors.New("model failed")
	var after atomic.Int32
	err := a.photoTasks(context.Background(), 100, func(ctx context.Context, i int) error {
		switch {
		case i == 3:
			return failure
		case i > 3:
			// a run in progress on the other goroutine is stopped through its context
			after.Add(1)
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Errorf("task %d: the failure of task 3 did not end its context", i)
			}
		}
		return nil
	})
	if !errors.Is(err, failure) {
		t.Errorf("photoTasks = %v, want the task's error", err)
	}
	// the helper may have taken one task beyond the failing one before the failure; none after
	if n := after.Load(); n > 1 {
		t.Errorf("%d tasks after the failing one ran", n)
	}
}

func TestPhotoTasksCancelled(t *testing.T) {
	a := taskAnalyzer(2, 1, 2)
	ctx, cancel := context.WithCancel(context.Background())
	err := a.photoTasks(ctx, 100, func(ctx context.Context, i int) error {
		if i == 0 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("photoTasks = %v, want context.Canceled", err)
	}
}
