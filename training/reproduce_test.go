package training_test

import (
	"strings"
	"testing"

	"github.com/hensachi/hensachi/training"
)

// TestReproduced: a model held to each face fails on its worst face; one held to its typical face
// passes with a few faces far off, and fails when the typical face or the tail is off; another
// choice in fitting fails whatever the outputs.
func TestReproduced(t *testing.T) {
	type model struct {
		config string
		out    []float64 // by face
	}
	faces := make([]int, 100)
	for i := range faces {
		faces[i] = i
	}
	committed := model{"λ 1", make([]float64, 100)}
	shifted := func(config string, by func(i int) float64) model {
		m := model{config, make([]float64, 100)}
		for i := range m.out {
			m.out[i] = by(i)
		}
		return m
	}
	oneOff := shifted("λ 1", func(i int) float64 { return map[bool]float64{true: 2}[i == 7] })
	typicalOff := shifted("λ 1", func(i int) float64 { return 0.6 })
	tailOff := shifted("λ 1", func(i int) float64 { return map[bool]float64{true: 4}[i < 2] })
	for _, tt := range []struct {
		name  string
		fresh model
		want  training.Output
		fails string // "" when reproduced
	}{
		{"each face, one off", oneOff, training.Output{Name: "ages", Tolerance: 0.5}, "ages differ by up to 2"},
		{"each face, all close", shifted("λ 1", func(int) float64 { return 0.1 }), training.Output{Name: "ages", Tolerance: 0.5}, ""},
		{"typical face, one off", oneOff, training.Output{Name: "ages", Median: 0.5, Tolerance: 3}, ""},
		{"typical face off", typicalOff, training.Output{Name: "ages", Median: 0.5, Tolerance: 3}, "in the median"},
		{"the tail off", tailOff, training.Output{Name: "ages", Median: 0.5, Tolerance: 3}, "at the 99th percentile"},
		{"another choice", shifted("λ 2", func(int) float64 { return 0 }), training.Output{Name: "ages", Tolerance: 0.5}, "retraining chose λ 2"},
	} {
		how, err := training.Reproduced(committed, tt.fresh, func(m model) string { return m.config }, faces,
			[]training.Output{tt.want}, func(m model, i int) ([]float64, error) { return []float64{m.out[i]}, nil })
		switch {
		case tt.fails == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.fails != "" && (err == nil || !strings.Contains(err.Error(), tt.fails)):
			t.Errorf("%s: %q, %v; want an error saying %q", tt.name, how, err, tt.fails)
		}
	}
}
