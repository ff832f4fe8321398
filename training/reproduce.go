package training

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Output is one figure a model gives a face, compared by Reproduced: over the faces, the largest
// difference within Tolerance, or, for a model that is not held to each face (Median set), the
// median difference within Median and the 99th percentile within Tolerance.
type Output struct {
	Name      string // as the messages say it, e.g. "held-out ages (years)"
	Tolerance float64
	Median    float64
}

// Reproduced compares a retrained model with the committed one by what matters: the same choice
// in fitting (config describes it), and the same outputs on the held-out faces to within want's
// tolerances. ONNX Runtime kernels and the math routines Go picks for a CPU (math.Exp uses FMA
// where the CPU has it) may differ in the last bits between machines: a closed-form fit keeps
// to float noise, but a network trained by many small steps carries the differences into its
// weights, and is compared by its typical face and its tail instead of its worst face. outputs
// returns a face's figures in the order of want. On success it says how close the outputs came.
func Reproduced[M, S any](committed, fresh M, config func(M) string, test []S, want []Output, outputs func(M, S) ([]float64, error)) (string, error) {
	if c, f := config(committed), config(fresh); c != f {
		return "", fmt.Errorf("retraining chose %s, the committed model has %s", f, c)
	}
	diffs := make([][]float64, len(want))
	for _, s := range test {
		c, err := outputs(committed, s)
		if err != nil {
			return "", err
		}
		f, err := outputs(fresh, s)
		if err != nil {
			return "", err
		}
		for k := range want {
			diffs[k] = append(diffs[k], math.Abs(c[k]-f[k]))
		}
	}
	var off, near []string
	for k, o := range want {
		d := diffs[k]
		if len(d) == 0 {
			return "", fmt.Errorf("no faces to compare %s on", o.Name)
		}
		slices.Sort(d)
		worst := d[len(d)-1]
		if o.Median == 0 {
			near = append(near, fmt.Sprintf("%s agree within %.2g", o.Name, worst))
			if worst > o.Tolerance {
				off = append(off, fmt.Sprintf("%s differ by up to %.2g (tolerance %g)", o.Name, worst, o.Tolerance))
			}
			continue
		}
		median, p99 := d[len(d)/2], d[len(d)*99/100]
		near = append(near, fmt.Sprintf("%s differ by %.2g in the median, %.2g at the 99th percentile, %.2g at most", o.Name, median, p99, worst))
		if median > o.Median || p99 > o.Tolerance {
			off = append(off, fmt.Sprintf("%s differ by %.2g in the median (tolerance %g) and %.2g at the 99th percentile (tolerance %g)", o.Name, median, o.Median, p99, o.Tolerance))
		}
	}
	if len(off) > 0 {
		return "", fmt.Errorf("not reproduced: %s", strings.Join(off, ", "))
	}
	return strings.Join(near, ", "), nil
}

// Encode lays a model out as its file: indented JSON and a final newline, the form committed
// under face/models, so that a retrained file can be compared byte for byte.
func Encode(m any) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return nil, fmt.Errorf("encode the model: %w", err)
	}
	return append(b, '\n'), nil
}
