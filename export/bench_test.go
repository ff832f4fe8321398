package export

import (
	"bytes"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/internal/testrig/towntest"
	"github.com/hensachi/hensachi/town"
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

// BenchmarkSeriesChange builds the long table with a change of every indicator of 2015–2020 for the
// whole country, as its first call does (the changes ranked on first use are kept by the read
// model, so the loop measures writing the table; the first ranking costs a tenth of a
// millisecond an indicator), and reports its size raw and gzipped.
func BenchmarkSeriesChange(b *testing.B) {
	c := realdata.Catalog(b, towntest.PublicURL)
	list, _ := c.List("")
	var idx []int
	for _, i := range c.IndicatorGroupIndexes("") {
		ind := c.Indicator(i)
		if ind.Change != "" && ind.YearIndex(2015) >= 0 && ind.YearIndex(2020) >= 0 && town.BreakBetween(ind, 2015, 2020) == 0 {
			idx = append(idx, i)
		}
	}
	for _, f := range []*Format{CSV, Parquet} {
		b.Run(f.Name, func(b *testing.B) {
			var n int
			var body []byte
			for b.Loop() {
				var buf bytes.Buffer
				tw := f.stream(&buf)
				index := rowIndexes(c, list.Items)
				for _, i := range idx {
					tw.Write(seriesChangePart(c, list.Items, index, i, [2]int{2015, 2020}))
				}
				tw.Close()
				n, body = len(idx), buf.Bytes()
			}
			b.ReportMetric(float64(n), "indicators")
			b.ReportMetric(float64(len(body)), "bytes")
			if f.Gzip {
				b.ReportMetric(float64(len(gzipped(body))), "gzip-bytes")
			}
		})
	}
}
