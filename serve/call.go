package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	vm "github.com/VictoriaMetrics/metrics"
	"github.com/julienschmidt/httprouter"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/export"
	"github.com/hensachi/hensachi/internal/negotiate"
	"github.com/hensachi/hensachi/internal/param"
	"github.com/hensachi/hensachi/internal/reqinfo"
	"github.com/hensachi/hensachi/quota"
	"github.com/hensachi/hensachi/town"
)

// call is one keyed API request in progress.
type call struct {
	s       *Server
	w       http.ResponseWriter
	r       *http.Request
	now     time.Time // read once when the call starts, for its key lookup and its headers
	account hensachi.Account
	service hensachi.Service
	catalog *town.Catalog // the catalog this call reads, for the statistics service
	b       *bodies       // its encoded answers, once asked for (bodies)
	res     *quota.Reservation
	// gzip: the client accepts gzip, so the answer is gzipped when it is worth it, and its tag is
	// bodies.gzipETag
	gzip bool
	// kept: the handler's members are a body kept with the catalog, whose compression is too
	// (bodies.gzipStartOf)
	kept bool
	// file or jsonExport, when set by the handler, is written instead of the envelope of its
	// members (export.go)
	file       *export.File
	jsonExport *jsonExport
	// values of the fields every keyed answer sets, held here so they need no allocation of their
	// own: net/http copies them when the header is written
	rateLimit, contentLength [1]string
}

// bodies are the encoded answers of the call's catalog.
func (c *call) bodies() *bodies {
	if c.b == nil {
		c.b = catalogBodies.Of(c.catalog)
	}
	return c.b
}

// errNotModified ends a call with 304; it is not an error the client sees.
var errNotModified = errors.New("not modified")

// serve answers a conditional read of the call's catalog: 304 when the client holds its version
// in the encoding it would get, which does not count, else it reserves quota and produces the
// payload. The validator and the caching fields are set first, so that a 304 carries those its 200
// would (RFC 9110 §15.4.5). The tag is the encoding's: a client that accepts gzip gets gzipETag,
// whether or not its answer is large enough to be compressed, so that one tag never names two
// bodies.
func (c *call) serve(produce func() ([]byte, error)) ([]byte, error) {
	b := c.bodies()
	h := c.w.Header()
	h["Etag"] = b.etag
	if c.gzip {
		h["Etag"] = b.gzipETag
	}
	h["Cache-Control"] = privateNoCache
	if negotiate.NoneMatch(c.r.Header, h["Etag"][0]) {
		return nil, errNotModified
	}
	if err := c.reserve(); err != nil {
		return nil, err
	}
	return produce()
}

// reserve holds one unit of the account's daily quota; it must precede any costly work. A HEAD
// holds none and counts nothing: it is refused at the limit as its GET would be, and otherwise
// answered with the GET's headers, which say where the account stands without it.
func (c *call) reserve() error {
	if c.r.Method == http.MethodHead {
		limit := c.s.cfg.Limits.Daily(c.account.Plan, c.service)
		if c.s.quota.Used(c.account.ID, c.service) >= limit {
			return quota.LimitError(c.account, c.service, limit, hensachi.NextReset(c.now).Sub(c.now))
		}
		return nil
	}
	res, err := c.s.quota.Reserve(c.r.Context(), c.account, c.service)
	if err != nil {
		return err
	}
	c.res = res
	return nil
}

// Quota is the daily quota as the server enforces and measures it: its refusals at the limit
// count in /metrics, by service. The API's handlers and the face calls (facecall.Config.Quota),
// the demo page's included, all reserve through the one Quota, so every refusal counts once.
type Quota struct {
	quota.Enforcer
	rejections *vm.Set // hensachi_daily_limit_rejections_total by service
}

// NewQuota measures an enforcer.
func NewQuota(e quota.Enforcer) *Quota {
	return &Quota{Enforcer: e, rejections: vm.NewSet()}
}

// Reserve holds one unit of an account's daily quota of a service, counting refusals by the limit.
func (q *Quota) Reserve(ctx context.Context, account hensachi.Account, service hensachi.Service) (*quota.Reservation, error) {
	res, err := q.Enforcer.Reserve(ctx, account, service)
	if hensachi.ErrorCode(err) == hensachi.EDailyLimitExceeded { // not a database that is away
		q.rejections.GetOrCreateCounter(fmt.Sprintf("hensachi_daily_limit_rejections_total{service=%q}", service)).Inc()
	}
	return res, err
}

// apiHandler handles a keyed call. It returns the members of the success body other than
// success and usage (e.g. `"data":{…}`), already encoded.
type apiHandler func(c *call, ps httprouter.Params) ([]byte, error)

// keyed wraps an API handler: authenticate, run, then count the call if it succeeded and write
// the envelope with the usage that includes it. Every failure goes through writeError.
func (s *Server) keyed(service hensachi.Service, h apiHandler) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
		c := &call{s: s, w: w, r: r, now: s.now(), service: service}
		account, err := s.keys.authenticate(r.Context(), r, c.now)
		if err != nil {
			writeError(w, r, err)
			return
		}
		c.account = account
		reqinfo.SetAccount(r.Context(), account.ID)
		addVary(w.Header(), "Accept-Encoding") // its 304 included
		c.gzip = negotiate.AcceptsGzip(r.Header)
		if origin := headerValue(r.Header, "Origin"); origin != "" && !account.AllowsOrigin(origin) {
			writeError(w, r, hensachi.Errorf(hensachi.EOriginNotAllowed,
				"this API key's account allows calls from the pages of its listed origins only, and %s is not one of them", param.Truncate(origin)))
			return
		}
		limit := s.cfg.Limits.Daily(account.Plan, service)
		if service == hensachi.ServiceTown {
			// the catalog holds its own copies: the call keeps reading it, and its ETag names what it
			// reads, when a new dataset swaps in meanwhile
			if c.catalog, err = s.catalogs.Catalog(); err != nil {
				c.setRateLimit(limit, s.quota.Used(account.ID, service), 0)
				writeError(w, r, err)
				return
			}
		}
		defer func() {
			if c.res != nil {
				c.res.Release() // a no-op once committed; frees the unit if the handler failed or panicked
			}
		}()
		members, err := h(c, ps)
		switch {
		case errors.Is(err, errNotModified):
			c.setRateLimit(limit, s.quota.Used(account.ID, service), 0)
			w.WriteHeader(http.StatusNotModified)
			return
		case err != nil:
			// every keyed answer says where the account stands, errors included; a 429's reset is
			// its Retry-After, so the two always agree
			used, reset := s.quota.Used(account.ID, service), time.Duration(0)
			var e *hensachi.Error
			if errors.As(err, &e) && e.Code == hensachi.EDailyLimitExceeded {
				used, reset = limit, e.RetryAfter
			}
			c.setRateLimit(limit, used, reset)
			writeError(w, r, err)
			return
		}
		var used int64
		if c.res != nil {
			used = c.res.Commit()
		} else { // a HEAD, which reserved nothing
			used = s.quota.Used(account.ID, service)
		}
		c.setRateLimit(limit, used, 0)
		if c.file != nil || c.jsonExport != nil {
			c.writeExport(used, limit)
			return
		}
		c.writeSuccess(members, used, limit)
	}
}

// setRateLimit sets the IETF draft RateLimit-Policy and RateLimit fields: the daily quota, what
// remains of it, and the seconds until it resets at midnight in Tokyo (reset, when not zero).
func (c *call) setRateLimit(limit, used int64, reset time.Duration) {
	if reset == 0 {
		reset = hensachi.NextReset(c.now).Sub(c.now)
	}
	h := c.w.Header()
	// keys in canonical form, assigned directly: this runs on every keyed call
	h["Ratelimit-Policy"] = c.s.policyHeader(limit)
	b := make([]byte, 0, 48)
	b = append(b, `"daily";r=`...)
	b = strconv.AppendInt(b, max(0, limit-used), 10)
	b = append(b, ";t="...)
	b = strconv.AppendInt(b, int64(wholeSeconds(reset)), 10)
	c.rateLimit[0] = string(b)
	h["Ratelimit"] = c.rateLimit[:]
}

// policyHeader is the RateLimit-Policy value of a daily limit. Limits are few (plans × services), so
// the values are made once and shared: net/http only reads header values.
func (s *Server) policyHeader(limit int64) []string {
	if v, ok := s.policies.Load(limit); ok {
		return v.([]string)
	}
	v, _ := s.policies.LoadOrStore(limit, []string{`"daily";q=` + strconv.FormatInt(limit, 10) + `;w=86400`})
	return v.([]string)
}

// Header values shared by every success; net/http only reads them.
var (
	jsonContentType = []string{"application/json"}
	privateNoCache  = []string{"private, no-cache"}
	gzipEncoding    = []string{"gzip"}
)

// keptBody marks the members a handler returns as a body kept with the catalog (bodies), whose
// compressed start is kept too.
func (c *call) keptBody(members []byte) []byte {
	c.kept = true
	return members
}

// successBodies recycles the buffers success bodies are assembled in, so that a body goes out in
// one Write with its Content-Length. Most members are a cached body shared by all calls: net/http
// copies a body of their size into its buffers as often when it comes in three parts, which cost
// two more writes through the response.
var successBodies = sync.Pool{New: func() any { return new([]byte) }}

// envelopeHead is how the success envelope starts, before the members of the answer.
const envelopeHead = `{"success":true,`

// writeSuccess writes {"success":true,<members>,"usage":{…}}, gzipped when the client accepts it
// and the answer is worth it.
func (c *call) writeSuccess(members []byte, used, limit int64) {
	h := c.w.Header()
	if c.gzip && len(envelopeHead)+len(members)+len(`,"usage":{}}`) > negotiate.MinCompressed {
		tail := c.appendUsage(nil, used, limit)
		var start, end []byte
		if c.kept {
			z := c.bodies().gzipStartOf(members)
			start, end = z.bytes, z.finish(tail)
		} else {
			start = negotiate.Gzip([]byte(envelopeHead), members, tail)
		}
		h["Content-Type"] = jsonContentType
		h["Content-Encoding"] = gzipEncoding
		c.contentLength[0] = strconv.Itoa(len(start) + len(end))
		h["Content-Length"] = c.contentLength[:]
		h["Cache-Control"] = privateNoCache
		c.w.WriteHeader(http.StatusOK)
		c.w.Write(start)
		c.w.Write(end)
		return
	}
	if len(members) > maxPooledBody { // made for the call, and too large to be worth a copy
		tail := c.appendUsage(nil, used, limit)
		h["Content-Type"] = jsonContentType
		c.contentLength[0] = strconv.Itoa(len(envelopeHead) + len(members) + len(tail))
		h["Content-Length"] = c.contentLength[:]
		h["Cache-Control"] = privateNoCache
		c.w.WriteHeader(http.StatusOK)
		c.w.Write([]byte(envelopeHead))
		c.w.Write(members)
		c.w.Write(tail)
		return
	}
	bp := successBodies.Get().(*[]byte)
	b := append((*bp)[:0], envelopeHead...)
	b = append(b, members...)
	b = c.appendUsage(b, used, limit)
	h["Content-Type"] = jsonContentType
	c.contentLength[0] = strconv.Itoa(len(b))
	h["Content-Length"] = c.contentLength[:]
	h["Cache-Control"] = privateNoCache
	c.w.WriteHeader(http.StatusOK)
	c.w.Write(b)
	if cap(b) <= maxPooledBody {
		*bp = b
		successBodies.Put(bp)
	}
}

// appendUsage appends the end of the success envelope: `,"usage":{…}}`.
func (c *call) appendUsage(b []byte, used, limit int64) []byte {
	b = append(b, `,"usage":{"plan":"`...)
	b = append(b, c.account.Plan...)
	b = append(b, `","used_today":`...)
	b = strconv.AppendInt(b, used, 10)
	b = append(b, `,"limit_today":`...)
	b = strconv.AppendInt(b, limit, 10)
	return append(b, "}}"...)
}

// maxPooledBody bounds the buffers kept for reuse: municipalities, rankings and a prefecture's list
// fit; the list of all municipalities does not.
const maxPooledBody = 64 << 10
