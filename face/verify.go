package face

import "math"

// minEmbeddingNorm is the least L2 norm of a face's embedding for the detection to count as a
// face. The embedding model's norm is high for faces and low for what only resembles one (a cat's
// head, a wheel, gravel). The value was chosen on real faces alone, so as to keep nearly every face
// of 40 pixels and more; face/models/DETECTION.md gives the norms measured and the trade-off.
const minEmbeddingNorm = 2.0

// isFace checks a detection after the per-face models have run. Without the embedding model
// every detection counts.
func isFace(f *Features) bool {
	if f.Embedding == nil {
		return true
	}
	return embeddingNorm(f.Embedding) >= minEmbeddingNorm
}

func embeddingNorm(v []float32) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}
