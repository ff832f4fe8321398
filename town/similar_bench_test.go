package town_test

import (
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/realdata"
	"github.com/hensachi/hensachi/town"
)

// BenchmarkNew measures deriving the catalog of the real dataset, which a dataset swap waits for;
// most of it is finding every municipality's neighbours.
func BenchmarkNew(b *testing.B) {
	built := realdata.Built(b)
	for b.Loop() {
		town.New(built.Municipalities, built.Meta, "v", "https://hensachi.example")
	}
}
