package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/facecall"
)

const (
	// MaxUpload is the largest image accepted (spec §8: 10 MB, enforced as 10 MiB).
	MaxUpload = facecall.MaxUpload
	// maxBody leaves room for the multipart framing and small extra fields around the image.
	maxBody  = facecall.MaxBody
	maxParts = 8
	// firstHold is the most of the bodies' budget an upload holds before it is read, and the
	// buffer its image starts in (its declared length when smaller): a portrait fits, and a larger
	// image's buffer grows as it arrives.
	firstHold = 64 << 10
)

// uploadRequest checks what a face call's request says of its upload, before anything of it is
// read: a multipart body (its boundary) of a declared length within the cap, or of no declared
// length (chunked: size is then the cap).
func uploadRequest(r *http.Request) (boundary string, size int64, err error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return "", 0, hensachi.Errorf(hensachi.EMissingFile, "send multipart/form-data with the image in a part named file")
	}
	switch {
	case r.ContentLength == 0:
		return "", 0, hensachi.Errorf(hensachi.EMissingFile, "the body is empty; send the image in a part named file")
	case r.ContentLength > maxBody:
		return "", 0, errBodyTooLarge
	case r.ContentLength < 0:
		return params["boundary"], maxBody, nil
	}
	return params["boundary"], r.ContentLength, nil
}

var errBodyTooLarge = hensachi.Errorf(hensachi.EFileTooLarge, "the request body is larger than %d bytes; the image may be at most 10 MiB", maxBody)

// readUpload reads the part named file of a multipart body, enforcing the size cap while reading.
// size is the body's declared length (uploadRequest), the most the image's buffer takes; the
// buffer starts at held bytes, and hold takes the bytes of the bodies' budget it grows by first.
func readUpload(body io.Reader, boundary string, size, held int64, hold func(int64) error) ([]byte, error) {
	mr := multipart.NewReader(body, boundary)
	for range maxParts {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, uploadError(err)
		}
		if part.FormName() != "file" {
			if _, err := io.Copy(io.Discard, part); err != nil {
				return nil, uploadError(err)
			}
			continue
		}
		// room for one byte more than the cap, which tells a file over it, or the end of one
		// that fills the body
		data, err := readGrowing(io.LimitReader(part, MaxUpload+1), int(held), int(min(size, MaxUpload)+1), hold)
		if err != nil {
			return nil, uploadError(err)
		}
		switch {
		case len(data) > MaxUpload:
			return nil, hensachi.Errorf(hensachi.EFileTooLarge, "the image is larger than %d bytes (10 MiB)", MaxUpload)
		case len(data) == 0:
			return nil, hensachi.Errorf(hensachi.EMissingFile, "the part named file is empty")
		}
		return data, nil
	}
	return nil, hensachi.Errorf(hensachi.EMissingFile, "no part named file in the multipart body")
}

// readGrowing reads r to its end into a buffer of held bytes that doubles, up to most, as the
// bytes arrive, each growth first held through hold: so what a body takes of the budget is what
// its client has sent (at most twice), and one that sends slowly takes little. r must end within
// most bytes.
func readGrowing(r io.Reader, held, most int, hold func(int64) error) ([]byte, error) {
	b := make([]byte, 0, held)
	for {
		if len(b) == cap(b) {
			grown := min(max(2*cap(b), 4<<10), most)
			if grown == cap(b) {
				return b, nil // r is past most; the caller sees the size
			}
			if err := hold(int64(grown - cap(b))); err != nil {
				return nil, err
			}
			b = append(make([]byte, 0, grown), b...)
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

func uploadError(err error) error {
	var tooBig *http.MaxBytesError
	var refused *hensachi.Error // no room in the bodies' budget
	switch {
	case errors.As(err, &tooBig):
		return errBodyTooLarge
	case errors.As(err, &refused):
		return err
	}
	return &hensachi.Error{Code: hensachi.EMissingFile, Message: "the multipart body is malformed or ends early; send multipart/form-data with the image in a part named file", Cause: err}
}

// UploadPace is how fast an upload must arrive: nothing is asked in its first Grace, then at least
// Bytes in every Window, and all of it within Limit. A body that falls behind is a 408
// request_timeout at once, and its call gives back the account's share and the bytes it held.
type UploadPace struct {
	Grace, Window, Limit time.Duration
	Bytes                int64
}

// DefaultUploadPace asks 4 KiB/s over 10 s windows after 10 s: 32 kbit/s, which even a phone on
// 2G (GPRS sends 20–40 kbit/s) keeps, so only a client that sends slowly on purpose or stalls for
// longer than a window is cut. A photo of a few MB needs ten times that rate to arrive within the
// 60 s limit anyway; what the pace adds is that a trickle cannot hold its place for that minute: a
// client at 1 KiB/s is cut after 20 s.
var DefaultUploadPace = UploadPace{Grace: 10 * time.Second, Window: 10 * time.Second, Bytes: 40 << 10, Limit: 60 * time.Second}

func (p UploadPace) tooSlow() error {
	return hensachi.Errorf(hensachi.ERequestTimeout, "the upload arrived too slowly: after its first %v it must bring at least %d KiB every %v, and all of it must arrive within %v",
		p.Grace, p.Bytes>>10, p.Window, p.Limit)
}

// pacedBody is a request body that must keep its pace. Before each read it sets the connection's
// read deadline to the moment the pace would be broken, so a client that falls behind is cut by
// the network poller's clock, with no goroutine watching.
type pacedBody struct {
	body io.Reader
	rc   *http.ResponseController
	pace UploadPace
	// end is the whole body's deadline; the current window ends at windowEnd, and has brought
	// windowBytes so far (the grace counts as a window that has brought enough)
	end, windowEnd, deadline time.Time
	windowBytes              int64
	late                     bool // a read ran into the deadline
	eof                      bool // the body was read to its end
}

func newPacedBody(w http.ResponseWriter, body io.Reader, pace UploadPace) *pacedBody {
	now := time.Now()
	return &pacedBody{body: body, rc: http.NewResponseController(w), pace: pace,
		end: now.Add(pace.Limit), windowEnd: now.Add(pace.Grace), windowBytes: pace.Bytes}
}

func (b *pacedBody) Read(p []byte) (int, error) {
	b.roll() // windows that ended while the handler was not reading start afresh
	deadline := b.windowEnd // the current window's bytes are due at its end
	if b.windowBytes >= b.pace.Bytes {
		deadline = deadline.Add(b.pace.Window) // then the next window's
	}
	if deadline.After(b.end) {
		deadline = b.end
	}
	if !deadline.Equal(b.deadline) {
		// ErrNotSupported (a ResponseRecorder) leaves the server's own timeout
		b.rc.SetReadDeadline(deadline)
		b.deadline = deadline
	}
	n, err := b.body.Read(p)
	b.roll() // the bytes count in the window they arrived in
	b.windowBytes += int64(n)
	b.late = b.late || errors.Is(err, os.ErrDeadlineExceeded)
	b.eof = b.eof || errors.Is(err, io.EOF)
	return n, err
}

// roll moves to the window of the present moment.
func (b *pacedBody) roll() {
	for now := time.Now(); !now.Before(b.windowEnd); {
		b.windowEnd, b.windowBytes = b.windowEnd.Add(b.pace.Window), 0
	}
}

// done puts the deadline back to the body's limit, the one net/http's watch for a client going
// away reads under while the call is analysed.
func (b *pacedBody) done() { b.rc.SetReadDeadline(b.end) }

type bboxJSON struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

type faceJSON struct {
	FaceID     int      `json:"face_id"`
	Score      float64  `json:"score"`
	RawScore   float64  `json:"raw_score"`
	Age        int      `json:"age"`
	Gender     string   `json:"gender"`
	GenderProb float64  `json:"gender_prob"`
	BBox       bboxJSON `json:"bbox"`
}

// predict handles POST /face/v1/predict: the face call (package facecall) reads the upload, at
// its pace, once the account is admitted and holds its unit of the quota, and its faces become the
// JSON the document specifies, at its precision. A call refused before the body is read is
// answered without reading it, and so without a 100 Continue to a client that asked for one.
func (s *Server) predict(c *call, _ httprouter.Params) ([]byte, error) {
	if _, err := parseQuery(c.r.URL.RawQuery); err != nil {
		return nil, err
	}
	boundary, size, err := uploadRequest(c.r)
	if err != nil {
		return nil, closeUnread(c, err)
	}
	body := newPacedBody(c.w, http.MaxBytesReader(c.w, c.r.Body, maxBody), s.cfg.UploadPace)
	held := min(size, firstHold)
	a, err := s.faces.Analyze(c.r.Context(), c.account, facecall.Upload{Size: held, Read: func(hold func(int64) error) ([]byte, error) {
		data, err := readUpload(body, boundary, size, held, hold)
		body.done()
		if body.late {
			return nil, s.cfg.UploadPace.tooSlow()
		}
		return data, err
	}})
	if err != nil {
		if !body.eof {
			return nil, closeUnread(c, err)
		}
		return nil, err
	}
	c.res = a.Reservation // keyed commits it with the answer
	results := make([]faceJSON, len(a.Faces))
	for i, f := range a.Faces {
		f = f.Rounded()
		results[i] = faceJSON{FaceID: i, Score: f.Score, RawScore: f.RawScore, Age: f.Age, Gender: f.Gender, GenderProb: f.GenderProb,
			BBox: bboxJSON{X: f.X, Y: f.Y, Width: f.W, Height: f.H}}
	}
	b := []byte(`"faces_detected":` + strconv.Itoa(len(results)) + `,"results":`)
	enc, err := jsonMarshal(results)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// closeUnread ends a call whose body is left unread (refused before it, or part-way) with err. net/http would otherwise read up to
// 256 KiB of the body before answering, which a client that sends slowly makes wait; closing
// instead, apiConn lingers so that a client still sending reads the answer.
func closeUnread(c *call, err error) error {
	c.w.Header().Set("Connection", "close")
	return err
}

func jsonMarshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
