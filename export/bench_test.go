package export

import (
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
)

// BenchmarkBuild builds the national file of each format as its first request does, and reports
// its size raw and gzipped.
func BenchmarkBuild(b *testing.B) {
	c := realdata.Catalog(b, towntest.PublicURL)
	list, _ := c.List("")
	for _, f := range Formats {
		b.Run(f.Name, func(b *testing.B) {
			var file *File
			for b.Loop() {
				file, _ = build(f, c, list.Items, Selection{}, "bench")
			}
			b.ReportMetric(float64(len(file.Body)), "bytes")
			if f.Gzip {
				b.ReportMetric(float64(len(file.Gzipped())), "gzip-bytes")
			}
		})
	}
}
