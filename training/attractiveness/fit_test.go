package attractiveness

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFitRecoversLinearRelation trains on y = 3 + 0.5·x0 − 0.25·x2 + small noise.
func TestFitRecoversLinearRelation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var train, test []Sample
	for i := range 600 {
		x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		y := 3 + 0.5*x[0] - 0.25*x[2] + 0.01*rng.NormFloat64()
		s := Sample{Group: []string{"AF", "AM", "CF", "CM"}[i%4], Features: x, Rating: y}
		if i < 500 {
			train = append(train, s)
		} else {
			test = append(test, s)
		}
	}
	m, err := Fit(train)
	if err != nil {
		t.Fatal(err)
	}
	// weights are on standardised features: undo the scaling to compare with the true slopes
	slope := func(j int) float64 { return m.Ridge.Weights[j] / m.Ridge.Scale[j] }
	for j, want := range []float64{0.5, 0, -0.25, 0} {
		if math.Abs(slope(j)-want) > 0.01 {
			t.Errorf("slope %d = %.4f, want %.2f", j, slope(j), want)
		}
	}
	rep := Evaluate(m, test)
	if rep.Overall.PC < 0.99 || rep.Overall.MAE > 0.02 || len(rep.Groups) != 4 {
		t.Errorf("test report %+v", rep)
	}
	if len(m.Reference) != len(train) || m.Training.Chosen == 0 || len(m.Training.CVPearson) != len(Lambdas) {
		t.Errorf("model bookkeeping: %d reference values, λ=%v, %d CV results", len(m.Reference), m.Training.Chosen, len(m.Training.CVPearson))
	}
	if _, err := FitRidge([][]float64{{1, 2}, {3}}, []float64{1, 2}, 1); err == nil {
		t.Error("FitRidge accepts rows of different lengths")
	}
}

// TestMeasure checks the metrics against values worked out by hand.
func TestMeasure(t *testing.T) {
	pred := []float64{1, 2, 3, 4}
	truth := []float64{1, 3, 2, 4}
	m := Measure(pred, truth)
	// errors 0, −1, 1, 0: MAE 0.5, RMSE √0.5; Pearson: deviations (−1.5,−.5,.5,1.5)·(−1.5,.5,−.5,1.5) = 4 over 5
	if m.N != 4 || m.MAE != 0.5 || math.Abs(m.RMSE-math.Sqrt(0.5)) > 1e-12 || math.Abs(m.PC-0.8) > 1e-12 {
		t.Errorf("Measure = %+v, want MAE 0.5, RMSE 0.7071, PC 0.8", m)
	}
}
