package serve

import (
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
)

// DefaultMaxConns is how many connections the server holds open at once unless told otherwise
// (Config.MaxConns): far above what the APIs' slots need, well below the file descriptors and
// memory a flood of idle connections would otherwise take.
const DefaultMaxConns = 4096

// cappedListener accepts at most cap(slots) connections at once. Past that it stops accepting
// until one closes: the kernel queues the new connections in the listen backlog (and refuses them
// once that is full), so a client waits rather than the server running out of descriptors.
// Reaching the cap is logged once per burst: a line when it is reached, and another once the open
// connections have fallen below nine tenths of the cap, which ends the burst.
type cappedListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	atCap     atomic.Bool // the cap was reached and the burst is not over
}

func newCappedListener(ln net.Listener, max int) *cappedListener {
	if max <= 0 {
		max = DefaultMaxConns
	}
	return &cappedListener{Listener: ln, slots: make(chan struct{}, max), done: make(chan struct{})}
}

func (l *cappedListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		if l.atCap.CompareAndSwap(false, true) {
			slog.Warn("connection cap reached: new connections wait until others close", "max_conns", cap(l.slots))
		}
		select {
		case l.slots <- struct{}{}:
		case <-l.done:
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &cappedConn{Conn: c, l: l}, nil
}

func (l *cappedListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// release gives a closed connection's slot back and ends the burst once the open connections are
// below nine tenths of the cap.
func (l *cappedListener) release() {
	<-l.slots
	if len(l.slots) < cap(l.slots)*9/10 && l.atCap.CompareAndSwap(true, false) {
		slog.Info("connections below the cap again", "max_conns", cap(l.slots))
	}
}

// cappedConn holds a slot of its listener until it is closed.
type cappedConn struct {
	net.Conn
	l    *cappedListener
	once sync.Once
}

func (c *cappedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.l.release)
	return err
}

// ReadFrom passes a body read from a file on to the TCP connection's ReadFrom, which sends it
// with sendfile.
func (c *cappedConn) ReadFrom(r io.Reader) (int64, error) { return io.Copy(c.Conn, r) }

// CloseWrite passes net/http's half-close on (apiConn lingers through it).
func (c *cappedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
