package town_test

import (
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/realdata"
)

// BenchmarkMunicipalityIndicators measures one municipality's standing on every indicator with
// its series (the read model's part of GET /town/v1/municipalities/{code}/indicators), against
// looking the municipality up, the part every municipality call has: report the ratio.
func BenchmarkMunicipalityIndicators(b *testing.B) {
	c := realdata.Catalog(b, "https://hensachi.example")
	all := c.IndicatorGroupIndexes("")
	b.Run("lookup", func(b *testing.B) {
		for b.Loop() {
			if _, ok := c.Municipality("01100"); !ok {
				b.Fatal("no 01100")
			}
		}
	})
	b.Run("indicators", func(b *testing.B) {
		for b.Loop() {
			if got := c.MunicipalityIndicators(c.Index("01100"), all); len(got) != len(all) {
				b.Fatalf("%d indicators, want %d", len(got), len(all))
			}
		}
	})
}
