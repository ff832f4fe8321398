package serve

import (
	"bytes"
	"context"
	"image/jpeg"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/quota"
	"github.com/hensachi/hensachi/webui"
)

// previewSide is the longest side of the demo page's copy of an analysed photo.
const previewSide = 960

// faceDemo runs the demo page's uploads as face API calls of the logged-in account.
type faceDemo struct{ s *Server }

func (d faceDemo) AnalyzeFaces(ctx context.Context, account hensachi.Account, read func() ([]byte, error)) (webui.FaceAnalysis, error) {
	s := d.s
	var res *quota.Reservation
	defer func() {
		if res != nil {
			res.Release() // a no-op once committed
		}
	}()
	a, err := s.analyzeUpload(ctx, account.ID, read, func() (err error) {
		res, err = s.reserve(ctx, account, hensachi.ServiceFace)
		return err
	})
	if err != nil {
		return webui.FaceAnalysis{}, err
	}
	out := webui.FaceAnalysis{Width: a.photo.W, Height: a.photo.H, Used: res.Commit(), Limit: s.cfg.Limits.Daily(account.Plan, hensachi.ServiceFace)}
	for _, f := range a.faces {
		out.Faces = append(out.Faces, webui.DemoFace{X: f.BBox.X, Y: f.BBox.Y, W: f.BBox.Width, H: f.BBox.Height,
			Score: f.Score, RawScore: f.RawScore, Age: f.Age, Gender: f.Gender, GenderProb: f.GenderProb})
	}
	preview, err := a.photo.Preview(previewSide)
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
