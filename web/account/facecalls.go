package account

import (
	"bytes"
	"context"
	"image/jpeg"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/facecall"
)

// previewSide is the longest side of the demo page's copy of an analysed photo.
const previewSide = 960

// FaceCalls runs the demo page's uploads as face calls of the logged-in account (package
// facecall), the calls POST /face/v1/predict makes: the same admission, pipeline and daily limit.
type FaceCalls struct {
	Calls  *facecall.Service
	Limits hensachi.Limits
}

// KeepsUploads reports whether the calls keep the photos, as the server's storage is set.
func (f FaceCalls) KeepsUploads() bool { return f.Calls.KeepsUploads() }

// AnalyzeFaces makes the call and counts it at once: the page shows the day's count with the result.
func (f FaceCalls) AnalyzeFaces(ctx context.Context, account hensachi.Account, upload facecall.Upload) (FaceAnalysis, error) {
	a, err := f.Calls.Analyze(ctx, account, upload)
	if err != nil {
		return FaceAnalysis{}, err
	}
	out := FaceAnalysis{Width: a.Photo.W, Height: a.Photo.H, Used: a.Reservation.Commit(), Limit: f.Limits.Daily(account.Plan, hensachi.ServiceFace)}
	for _, face := range a.Faces {
		face = face.Rounded()
		out.Faces = append(out.Faces, DemoFace{X: face.X, Y: face.Y, W: face.W, H: face.H,
			Score: face.Score, RawScore: face.RawScore, Age: face.Age, AgeRange: face.AgeRange, Gender: face.Gender, GenderProb: face.GenderProb,
			DetectionScore: face.DetectionScore})
	}
	preview, err := a.Photo.Preview(previewSide)
	if err != nil {
		return FaceAnalysis{}, err
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, preview.RGBA(), &jpeg.Options{Quality: 80}); err != nil {
		return FaceAnalysis{}, err
	}
	out.Preview, out.PreviewW, out.PreviewH = b.Bytes(), preview.W, preview.H
	return out, nil
}
