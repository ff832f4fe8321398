package account

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/facecall"
	"github.com/hensachi/hensachi/internal/uploadbody"
	"github.com/hensachi/hensachi/web/page"
)

// FaceAnalyzer analyses a photo for the demo page as one face API call of the account: the same
// admission, pipeline and daily limit as POST /face/v1/predict. The upload is read once admitted.
type FaceAnalyzer interface {
	AnalyzeFaces(ctx context.Context, account hensachi.Account, upload facecall.Upload) (FaceAnalysis, error)
	// KeepsUploads reports whether the photos are kept after the analysis (the server's storage
	// setting), which the page tells the people uploading.
	KeepsUploads() bool
}

// FaceAnalysis is what the demo page shows of one analysis.
type FaceAnalysis struct {
	Width, Height      int    // of the upright image, the faces' coordinates
	Preview            []byte // JPEG of the upright image, at most 960 px a side
	PreviewW, PreviewH int
	Faces              []DemoFace
	Used, Limit        int64 // the account's face calls today, this one included
}

// DemoFace is one face as the API returns it.
type DemoFace struct {
	X, Y, W, H      int
	Score, RawScore float64
	Age             int
	AgeRange        *facecall.AgeRange // nil when the server has no calibrated ranges
	Gender          string
	GenderProb      float64
	DetectionScore  float64
}

// GenderPercent and DetectionPercent are the probabilities as people read them: 0.9607 as 96 %.
func (f DemoFace) GenderPercent() string    { return percent(f.GenderProb) }
func (f DemoFace) DetectionPercent() string { return percent(f.DetectionScore) }

func percent(p float64) string { return strconv.FormatFloat(math.Round(p*100), 'f', 0, 64) + " %" }

// demoFaceRow is a face in the page's table, numbered from 1 as on its box.
type demoFaceRow struct {
	No int
	DemoFace
}

// GenderLabel is the gender as the page says it in Japanese.
func (f DemoFace) GenderLabel() string {
	switch f.Gender {
	case "male":
		return "男性"
	case "female":
		return "女性"
	}
	return f.Gender
}

// maxDemoUpload is the API's upload limit with room for the form's other fields.
const maxDemoUpload = 10<<20 + 64<<10

type faceDemoPage struct {
	page.Base
	Available bool // the face service runs on this server
	// KeepsUploads: the server keeps the photos it analyses (its storage setting), which the page
	// says before one is sent.
	KeepsUploads bool
	// Curl is the API's face call for a server without login, where the demo cannot run: the way
	// on is the API with a key from the operator.
	Curl       string
	LoggedIn   bool
	CSRF       string
	Used       int64
	Limit      int64
	Error      string
	Result     *FaceAnalysis
	Image      template.URL
	Overlay    template.HTML
	FaceRows   []demoFaceRow
	ScaleLabel string
}

// faceDemo shows the upload form to a logged-in user and, after a POST, the photo with the boxes
// and fields of every face. What the form or the photo did wrong it shows on the form; a failure of
// the server it returns.
func (w *Pages) faceDemo(rw http.ResponseWriter, r *http.Request) error {
	p := faceDemoPage{Base: w.base("顔分析デモ", "写真をアップロードして顔分析 API の結果を見る。", "/demo/face")}
	p.Credit = w.credit()
	rw.Header().Set("Cache-Control", "no-store")
	p.Available = w.deps.Faces != nil
	if p.Available {
		p.KeepsUploads = w.deps.Faces.KeepsUploads()
	}
	if w.provider == nil {
		p.Curl = `curl -X POST -H "X-API-Key: $HENSACHI_API_KEY" -F file=@photo.jpg "` + strings.TrimSuffix(w.deps.PublicURL, "/") + `/face/v1/predict"`
	}
	var sess session
	var account hensachi.Account
	if w.provider != nil {
		var ok bool
		if sess, ok = w.jar.session(r, w.deps.Now()); ok {
			var err error
			if account, err = w.deps.Accounts.Store.Account(r.Context(), sess.AccountID); err == nil {
				p.LoggedIn, p.CSRF = true, w.jar.csrfToken(sess)
				p.Limit = w.deps.Limits.Daily(account.Plan, hensachi.ServiceFace)
				p.Used = w.deps.Usage.Used(account.ID, hensachi.ServiceFace)
			}
		}
	}
	status := http.StatusOK
	if r.Method == http.MethodPost {
		var err error
		switch {
		case !p.Available:
			err = errDemoOff
		case w.provider == nil:
			err = errDemoNoLogin
		case !p.LoggedIn:
			err = errDemoLoggedOut
		case w.cop.Check(r) != nil:
			err = errDemoCrossSite
		default:
			var a FaceAnalysis
			if a, err = w.deps.Faces.AnalyzeFaces(r.Context(), account, w.demoUpload(rw, r, sess)); err == nil {
				p.setResult(&a)
			}
		}
		status, p.Error = demoError(err)
		if hensachi.ErrorCode(err) == hensachi.EInternal {
			return failure(hensachi.EInternal, "解析できません", "解析に失敗しました。", fmt.Errorf("face demo: %w", err))
		}
	}
	var body strings.Builder
	if err := templates.ExecuteTemplate(&body, "face-demo", p); err != nil {
		return fmt.Errorf("render face demo: %w", err)
	}
	writeDemoPage(rw, r, status, []byte(body.String()))
	return nil
}

// demoUpload is the demo form's upload as the API reads its own: at the upload's pace, into a buffer
// that takes its bytes from the face calls' budget as it grows.
func (w *Pages) demoUpload(rw http.ResponseWriter, r *http.Request, sess session) facecall.Upload {
	size := r.ContentLength
	if size < 0 || size > maxDemoUpload {
		size = maxDemoUpload // the reader stops at the cap
	}
	held := uploadbody.Held(size)
	body := uploadbody.NewBody(rw, http.MaxBytesReader(rw, r.Body, maxDemoUpload), uploadbody.DefaultPace)
	r.Body = struct {
		io.Reader
		io.Closer
	}{body, r.Body}
	return facecall.Upload{Size: held, Read: func(hold func(int64) error) ([]byte, error) {
		data, err := readDemoUpload(r, w, sess, int(held), int(min(size, 10<<20)+1), hold)
		if late := body.Done(); late != nil {
			return nil, late
		}
		return data, err
	}}
}

// readDemoUpload reads the form once admitted: its token first, then the photo, into a buffer of
// held bytes that hold grows, up to most.
func readDemoUpload(r *http.Request, w *Pages, sess session, held, most int, hold func(int64) error) ([]byte, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, hensachi.Errorf(hensachi.EMissingFile, "choose a JPEG or PNG photo")
	}
	csrfOK := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, hensachi.Errorf(hensachi.EMissingFile, "choose a JPEG or PNG photo")
		}
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return nil, hensachi.Errorf(hensachi.EFileTooLarge, "the photo is larger than 10 MiB")
			}
			return nil, hensachi.Errorf(hensachi.EMissingFile, "the form could not be read")
		}
		switch part.FormName() {
		case "csrf":
			token, _ := io.ReadAll(io.LimitReader(part, 256))
			csrfOK = w.jar.checkCSRF(sess, string(token))
		case "file":
			if !csrfOK {
				return nil, errFormRefused
			}
			data, err := uploadbody.ReadAll(io.LimitReader(part, 10<<20+1), held, most, hold)
			var refused *hensachi.Error // no room in the face calls' budget
			switch {
			case errors.As(err, &refused):
				return nil, err
			case err != nil:
				return nil, hensachi.Errorf(hensachi.EFileTooLarge, "the photo is larger than 10 MiB")
			case len(data) > 10<<20:
				return nil, hensachi.Errorf(hensachi.EFileTooLarge, "the photo is larger than 10 MiB")
			case len(data) == 0:
				return nil, hensachi.Errorf(hensachi.EMissingFile, "choose a JPEG or PNG photo")
			}
			return data, nil
		}
	}
}

// The demo form's refusals before an analysis, shown on the form with their code's status.
var (
	errDemoOff     = &hensachi.Error{Code: hensachi.EUnavailable, Message: "the face service does not run here", Japanese: "このサーバーでは顔分析を動かしていません。"}
	errDemoNoLogin = &hensachi.Error{Code: hensachi.EUnavailable, Message: "the demo needs a login, which this server does not take; call the API with a key",
		Japanese: "このサーバーはログインを受け付けていないため、デモは使えません。API キーで POST /face/v1/predict を呼んでください。"}
	errDemoLoggedOut = &hensachi.Error{Code: hensachi.EMissingAPIKey, Message: "log in first", Japanese: "ログインしてから試してください。"}
	errDemoCrossSite = &hensachi.Error{Code: hensachi.EForbidden, Message: "the form was not sent from this site", Japanese: "このフォームはこのサイトから送られていません。ページを読み込み直してください。"}
	errFormRefused   = &hensachi.Error{Code: hensachi.EForbidden, Message: "the form's token is missing or stale", Japanese: "フォームの有効期限が切れています。ページを読み込み直してください。"}
)

// demoMessages say in the page's words what went wrong with an analysis, by error code.
var demoMessages = map[string]string{
	hensachi.EMissingFile:        "JPEG か PNG の写真を選んでください。",
	hensachi.EInvalidImage:       "画像を読めませんでした（壊れているか、画素数が多すぎます）。",
	hensachi.EUnsupportedMedia:   "JPEG か PNG の写真を選んでください。",
	hensachi.EFileTooLarge:       "10 MiB までの写真を選んでください。",
	hensachi.EDailyLimitExceeded: "今日の顔分析の回数の上限に達しました。0 時（日本時間）に戻ります。",
	hensachi.EOverloaded:         "混み合っています。少し待ってからもう一度お試しください。",
	hensachi.EUnavailable:        "混み合っています。少し待ってからもう一度お試しください。",
	hensachi.ERequestTimeout:     "写真の送信が遅すぎました。通信状態のよいところでもう一度お試しください。",
}

// demoError is the status the page answers an error of the form with (its code's) and what it says.
func demoError(err error) (int, string) {
	kind := hensachi.KindOf(hensachi.ErrorCode(err))
	var e *hensachi.Error
	switch {
	case err == nil:
		return http.StatusOK, ""
	case errors.As(err, &e) && e.Japanese != "":
		return kind.Status, e.Japanese
	}
	if msg, ok := demoMessages[kind.Code]; ok {
		return kind.Status, msg
	}
	return kind.Status, kind.Heading
}

func (p *faceDemoPage) setResult(a *FaceAnalysis) {
	p.Result, p.Used = a, a.Used
	for i, f := range a.Faces {
		p.FaceRows = append(p.FaceRows, demoFaceRow{i + 1, f})
	}
	p.Image = template.URL("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(a.Preview))
	// the boxes are drawn in the upright image's coordinates over the preview, which the SVG scales
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="faces" style="max-width:%dpx" viewBox="0 0 %d %d" role="img" aria-labelledby="faces-title"><title id="faces-title">検出された顔 %d 件</title>`,
		max(a.PreviewW, 320), a.Width, a.Height, len(a.Faces))
	fmt.Fprintf(&b, `<image href="%s" x="0" y="0" width="%d" height="%d"/>`, p.Image, a.Width, a.Height)
	stroke := max(2, a.Width/300)
	for i, f := range a.Faces {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#ffd400" stroke-width="%d"/>`, f.X, f.Y, f.W, f.H, stroke)
		// the number's style is inline, so no style sheet rule for text can hide it; the dark outline
		// keeps it legible on a light photo
		fmt.Fprintf(&b, `<text x="%d" y="%d" style="fill:#ffd400;stroke:#000;stroke-width:%dpx;paint-order:stroke;font-size:%dpx;font-weight:700">%d</text>`,
			f.X, max(f.Y-stroke*2, stroke*10), max(1, stroke/2), stroke*10, i+1) // numbered from 1, as the table
	}
	b.WriteString(`</svg>`)
	p.Overlay = template.HTML(b.String())
	p.ScaleLabel = strconv.Itoa(a.Width) + "×" + strconv.Itoa(a.Height)
}

// writeDemoPage writes the demo page: the security headers of every page, with the analysed photo
// allowed as an inline image.
func writeDemoPage(rw http.ResponseWriter, r *http.Request, status int, body []byte) {
	page.WriteWithPolicy(rw, r, status, body, strings.Replace(page.Policy, page.ImageSources, page.ImageSources+" data:", 1))
}

// credit is the dataset's source credit for the footer, when the server has the dataset.
func (w *Pages) credit() hensachi.Link {
	if w.deps.Credit == nil {
		return hensachi.Link{}
	}
	return w.deps.Credit()
}
