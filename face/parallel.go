package face

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// minRowsPerWorker keeps small images on one goroutine, where splitting costs more than it saves.
const minRowsPerWorker = 64

// forRows runs fn over [0, h) split into bands, one per CPU. The pixel loops of a large photo
// (colour conversion, resizing, the detector's input planes) take tens of milliseconds on one core;
// a single request's latency should not wait for them while the other core idles.
func forRows(h int, fn func(y0, y1 int)) {
	n := min(runtime.GOMAXPROCS(0), h/minRowsPerWorker)
	if n <= 1 {
		fn(0, h)
		return
	}
	var wg sync.WaitGroup
	for i := range n {
		y0, y1 := h*i/n, h*(i+1)/n
		wg.Go(func() { fn(y0, y1) })
	}
	wg.Wait()
}

// cpuBudget counts the CPUs that the analyzer's model runs occupy: each worker analysing a photo
// holds perRun (its runs' intra-op threads), and a photo's helper may borrow as much only while
// the total stays within limit, the machine's CPUs.
type cpuBudget struct {
	limit, perRun int32
	held          atomic.Int32
}

// hold takes a worker's CPUs unconditionally: the workers are sized to the machine already.
func (b *cpuBudget) hold() { b.held.Add(b.perRun) }

// borrow takes a helper's CPUs if they are free.
func (b *cpuBudget) borrow() bool {
	for {
		held := b.held.Load()
		if held+b.perRun > b.limit {
			return false
		}
		if b.held.CompareAndSwap(held, held+b.perRun) {
			return true
		}
	}
}

// overcommitted reports whether more CPUs are held than there are.
func (b *cpuBudget) overcommitted() bool { return b.held.Load() > b.limit }

// giveBack returns what hold or borrow took.
func (b *cpuBudget) giveBack() { b.held.Add(-b.perRun) }
