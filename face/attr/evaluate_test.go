package attr_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hensachi/hensachi/face/attr"
	"github.com/hensachi/hensachi/internal/facetest"
	"github.com/hensachi/hensachi/internal/testenv"
)

// Floors are the held-out figures of the committed model (face/models/GENDER.md, AGE.md) less a
// margin for numerical differences between machines.
const (
	utkGenderFloor      = 0.86  // all ages (measured 0.873)
	utkAdultGenderFloor = 0.945 // 15 and over (0.955)
	scutGenderFloor     = 0.975 // (0.983)
	utkAdultMAECeiling  = 7.6   // years, 15 and over (7.28)
	eceCeiling          = 0.03  // (0.016 on both)
)

// TestCommittedModelOnHeldOut evaluates the committed model on the held-out UTKFace windows and the
// SCUT-FBP5500 test split with the service's own pipeline.
func TestCommittedModelOnHeldOut(t *testing.T) {
	testenv.Evaluation(t)
	a := facetest.Analyzer(t)
	utk, err := attr.ReadUTKFace(testenv.Shared(t, "datasets/utkface-train"))
	if err != nil {
		t.Fatal(err)
	}
	scut, err := attr.ReadSCUT(testenv.Shared(t, "datasets/scut-fbp5500"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := attr.Load(filepath.Join(testenv.Models(t), "attributes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var held []attr.Sample
	for _, s := range append(utk, scut...) {
		if s.HeldOut {
			held = append(held, s)
		}
	}
	held, missed, err := attr.Extract(context.Background(), a, held, runtime.NumCPU())
	if err != nil {
		t.Fatal(err)
	}
	u, s := m.Evaluate(held, attr.SourceUTKFace), m.Evaluate(held, attr.SourceSCUT)
	t.Logf("UTKFace held out: %+v adults %+v ECE %.4f; SCUT test: %+v ECE %.4f; %d images without a face",
		u.Overall, u.Adults, u.GenderECE, s.Overall, s.GenderECE, missed)
	if u.Overall.GenderAccuracy < utkGenderFloor || u.Adults.GenderAccuracy < utkAdultGenderFloor ||
		s.Overall.GenderAccuracy < scutGenderFloor {
		t.Errorf("gender accuracy %.4f, adults %.4f, SCUT %.4f; floors %.3f, %.3f, %.3f", u.Overall.GenderAccuracy,
			u.Adults.GenderAccuracy, s.Overall.GenderAccuracy, utkGenderFloor, utkAdultGenderFloor, scutGenderFloor)
	}
	if u.Adults.AgeMAE > utkAdultMAECeiling {
		t.Errorf("adult age MAE %.2f, ceiling %.2f", u.Adults.AgeMAE, utkAdultMAECeiling)
	}
	if u.GenderECE > eceCeiling || s.GenderECE > eceCeiling {
		t.Errorf("gender calibration error %.4f (UTKFace), %.4f (SCUT); ceiling %.2f", u.GenderECE, s.GenderECE, eceCeiling)
	}
	if missed > 20 {
		t.Errorf("%d held-out images without a face", missed)
	}
	if d := u.Adults.AgeMAE - m.Test[attr.SourceUTKFace].Adults.AgeMAE; d > 0.1 || d < -0.1 {
		t.Errorf("adult age MAE %.2f differs from the model card's %.2f", u.Adults.AgeMAE, m.Test[attr.SourceUTKFace].Adults.AgeMAE)
	}
}
