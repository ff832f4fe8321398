// Package uploadbody reads the HTTP body of a face call's upload, for the API (serve) and the demo
// page (web/account) alike: at a pace the client must keep, into a buffer that takes its bytes from
// the face calls' bodies' budget (facecall.Upload's hold) as it grows. So an upload holds what its
// client has sent, not what it announces, and one that trickles in is cut instead of holding its
// place for the whole body timeout.
package uploadbody

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/hensachi/hensachi"
)

// FirstHold is the most of the bodies' budget an upload holds before it is read, and the buffer
// its image starts in: a portrait fits, and a larger image's buffer grows as it arrives.
const FirstHold = 64 << 10

// Held is what an upload of a body of size bytes holds before it is read: FirstHold, or the body's
// size when smaller.
func Held(size int64) int64 { return min(size, FirstHold) }

// Pace is how fast an upload must arrive: nothing is asked in its first Grace, then at least Bytes
// in every Window, and all of it within Limit. A body that falls behind is refused (TooSlow) as
// soon as it falls behind.
type Pace struct {
	Grace, Window, Limit time.Duration
	Bytes                int64
}

// DefaultPace asks 4 KiB/s over 10 s windows after 10 s: 32 kbit/s, which even a phone on 2G (GPRS
// sends 20–40 kbit/s) keeps, so only a client that sends slowly on purpose or stalls for longer
// than a window is cut. A photo of a few MB needs ten times that rate to arrive within the 60 s
// limit anyway; what the pace adds is that a trickle cannot hold its place for that minute: a
// client at 1 KiB/s is cut after 20 s.
var DefaultPace = Pace{Grace: 10 * time.Second, Window: 10 * time.Second, Bytes: 40 << 10, Limit: 60 * time.Second}

// TooSlow is the refusal of an upload that fell behind: 408 request_timeout.
func (p Pace) TooSlow() error {
	return hensachi.Errorf(hensachi.ERequestTimeout, "the upload arrived too slowly: after its first %v it must bring at least %d KiB every %v, and all of it must arrive within %v",
		p.Grace, p.Bytes>>10, p.Window, p.Limit)
}

// Body is a request body that must keep its pace. Before each read it sets the connection's read
// deadline to the moment the pace would be broken, so a client that falls behind is cut by the
// network poller's clock, with no goroutine watching.
type Body struct {
	body io.Reader
	rc   *http.ResponseController
	pace Pace
	// end is the whole body's deadline; the current window ends at windowEnd, and has brought
	// windowBytes so far (the grace counts as a window that has brought enough)
	end, windowEnd, deadline time.Time
	windowBytes              int64
	late                     bool // a read ran into the deadline
	eof                      bool // the body was read to its end
}

// NewBody paces body, the body of the request w answers, from now on.
func NewBody(w http.ResponseWriter, body io.Reader, pace Pace) *Body {
	now := time.Now()
	return &Body{body: body, rc: http.NewResponseController(w), pace: pace,
		end: now.Add(pace.Limit), windowEnd: now.Add(pace.Grace), windowBytes: pace.Bytes}
}

func (b *Body) Read(p []byte) (int, error) {
	b.roll()                // windows that ended while the handler was not reading start afresh
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
func (b *Body) roll() {
	for now := time.Now(); !now.Before(b.windowEnd); {
		b.windowEnd, b.windowBytes = b.windowEnd.Add(b.pace.Window), 0
	}
}

// Done ends the reading: the deadline goes back to the body's limit, the one net/http's watch for
// a client going away reads under while the call is analysed. It returns the pace's refusal when
// the body fell behind.
func (b *Body) Done() error {
	b.rc.SetReadDeadline(b.end)
	if b.late {
		return b.pace.TooSlow()
	}
	return nil
}

// Unread reports whether the body was left before its end (refused before it or part-way), so
// that the answer should close the connection rather than leave net/http to read the rest.
func (b *Body) Unread() bool { return !b.eof }

// ReadAll reads r to its end into a buffer of held bytes that doubles, up to most, as the bytes
// arrive, each growth first held through hold: so what an upload takes of the budget is what its
// client has sent (at most twice). r must end within most bytes; give one byte more room than the
// largest upload, to tell a larger one.
func ReadAll(r io.Reader, held, most int, hold func(int64) error) ([]byte, error) {
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
