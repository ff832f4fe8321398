package training

import "gonum.org/v1/gonum/stat"

// Scaling measures each feature of the fitted rows: its mean and its (population) standard
// deviation, 1 where the feature is constant. Both models standardise their features by it
// before fitting, so that one penalty or learning rate suits every feature.
func Scaling(x [][]float64) (mean, scale []float64) {
	d := len(x[0])
	mean, scale = make([]float64, d), make([]float64, d)
	col := make([]float64, len(x))
	for j := range d {
		for i := range x {
			col[i] = x[i][j]
		}
		mean[j], scale[j] = stat.PopMeanStdDev(col, nil)
		if scale[j] == 0 {
			scale[j] = 1
		}
	}
	return mean, scale
}
