package training

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Output is one figure a model gives a face, compared by Reproduced.
type Output struct {
	Name      string // as the messages say it, e.g. "held-out ages (years)"
	Tolerance float64
}

// Reproduced compares a retrained model with the committed one by what matters: the same choice
// in fitting (config describes it), and the same outputs on the held-out faces to within float
// noise. ONNX Runtime kernels may differ in the last bits between CPUs, so the features, and the
// files, need not be byte-identical. outputs returns a face's figures in the order of want. On
// success it says how close the outputs came.
func Reproduced[M, S any](committed, fresh M, config func(M) string, test []S, want []Output, outputs func(M, S) ([]float64, error)) (string, error) {
	if c, f := config(committed), config(fresh); c != f {
		return "", fmt.Errorf("retraining chose %s, the committed model has %s", f, c)
	}
	worst := make([]float64, len(want))
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
			worst[k] = math.Max(worst[k], math.Abs(c[k]-f[k]))
		}
	}
	var off, near []string
	for k, o := range want {
		near = append(near, fmt.Sprintf("%s agree within %.2g", o.Name, worst[k]))
		if worst[k] > o.Tolerance {
			off = append(off, fmt.Sprintf("%s differ by up to %.2g (tolerance %g)", o.Name, worst[k], o.Tolerance))
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
