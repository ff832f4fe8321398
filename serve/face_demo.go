package serve

import (
	"bytes"
	"context"
	"image/jpeg"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/webui"
)

// previewSide is the longest side of the demo page's copy of an analysed photo.
const previewSide = 960

// faceDemo runs the demo page's uploads as face API calls of the logged-in account.
type faceDemo struct{ s *Server }

func (d faceDemo) AnalyzeFaces(ctx context.Context, account hensachi.Account, read func() ([]byte, error)) (webui.FaceAnalysis, error) {
	a, err := d.s.faces.Analyze(ctx, account, read)
	if err != nil {
		return webui.FaceAnalysis{}, err
	}
	out := webui.FaceAnalysis{Width: a.Photo.W, Height: a.Photo.H, Used: a.Reservation.Commit(), Limit: d.s.cfg.Limits.Daily(account.Plan, hensachi.ServiceFace)}
	for _, f := range a.Faces {
		f = f.Rounded()
		out.Faces = append(out.Faces, webui.DemoFace{X: f.X, Y: f.Y, W: f.W, H: f.H,
			Score: f.Score, RawScore: f.RawScore, Age: f.Age, Gender: f.Gender, GenderProb: f.GenderProb})
	}
	preview, err := a.Photo.Preview(previewSide)
	if err != nil {
		return webui.FaceAnalysis{}, err
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, preview.RGBA(), &jpeg.Options{Quality: 80}); err != nil {
		return webui.FaceAnalysis{}, err
	}
	out.Preview, out.PreviewW, out.PreviewH = b.Bytes(), preview.W, preview.H
	return out, nil
}
