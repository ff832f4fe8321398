package face

import (
	"runtime"
	"sync"
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
