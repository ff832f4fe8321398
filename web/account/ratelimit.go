package account

import (
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// addrLimiter is a token bucket per client address for the login endpoints, which cost the
// identity provider a round trip and may create an account and send a mail. The map is bounded:
// when full, addresses idle long enough for a full bucket are dropped (forgetting them changes
// nothing), and if that is not enough the map starts over — an attacker with that many
// addresses already has that many buckets.
type addrLimiter struct {
	limit rate.Limit
	burst int
	max   int

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newAddrLimiter(limit rate.Limit, burst, max int) *addrLimiter {
	return &addrLimiter{limit: limit, burst: burst, max: max, buckets: map[string]*bucket{}}
}

// allow takes a token for addr, or says how long until one is free.
func (l *addrLimiter) allow(addr string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[addr]
	if b == nil {
		if len(l.buckets) >= l.max {
			l.sweep(now)
		}
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[addr] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now) // a refused request does not use up the token it would have waited for
		return false, d
	}
	return true, 0
}

func (l *addrLimiter) sweep(now time.Time) {
	refill := time.Duration(float64(l.burst) / float64(l.limit) * float64(time.Second))
	for a, b := range l.buckets {
		if now.Sub(b.seen) >= refill {
			delete(l.buckets, a)
		}
	}
	if len(l.buckets) >= l.max {
		slog.Warn("login rate limiter full; starting over", "addresses", len(l.buckets))
		clear(l.buckets)
	}
}

// clientAddr is the address a request is limited by: the connection's peer, or, behind a proxy
// the operator names, the header it sets. X-Forwarded-For is read from the right, where the
// proxy appends the peer it saw; the left entries are whatever the client sent. An IPv6 address
// counts by its /64, which one subscriber usually holds whole.
func clientAddr(r *http.Request, header string) string {
	host := ""
	if header != "" {
		v := r.Header.Values(header)
		if len(v) > 0 {
			last := v[len(v)-1]
			if i := strings.LastIndexByte(last, ','); i >= 0 {
				last = last[i+1:]
			}
			host = strings.TrimSpace(last)
		}
	}
	if host == "" {
		host = r.RemoteAddr
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}
