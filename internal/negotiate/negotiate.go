// Package negotiate reads what a request accepts and what it already holds, for the JSON API and
// the pages alike, so that both answer the same Accept-Encoding and If-None-Match the same way,
// and compresses what they make for a request the same way.
package negotiate

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// AcceptsGzip reports whether Accept-Encoding admits gzip (RFC 9110 §12.5.3): named, or "*", with
// a quality above zero; gzip named outweighs a wildcard.
func AcceptsGzip(h http.Header) bool {
	accepted := false
	for _, line := range h.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(line, ",") {
			coding, params, _ := strings.Cut(part, ";")
			coding = strings.ToLower(strings.TrimSpace(coding))
			if coding != "gzip" && coding != "*" {
				continue
			}
			quality := 1.0
			if v, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q="); ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					quality = f
				}
			}
			if coding == "gzip" {
				return quality > 0
			}
			accepted = quality > 0
		}
	}
	return accepted
}

// WantsPage reports whether a request comes from a browser navigating to a page: a GET or HEAD
// whose Accept names text/html. API clients send */* or JSON, and keep getting problem+json.
func WantsPage(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	for _, line := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(line, ",") {
			media, params, _ := strings.Cut(part, ";")
			if strings.EqualFold(strings.TrimSpace(media), "text/html") {
				q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
				return !ok || q != "0" && q != "0.0" && q != "0.00" && q != "0.000"
			}
		}
	}
	return false
}

// NoneMatch reports whether If-None-Match names etag, an entity tag such as "v1" or W/"v1", under
// the weak comparison (RFC 9110 §13.1.2: the client holds that version, so a GET or HEAD is
// answered 304), or is "*". The field's lines form one list of entity tags (§5.6.1: commas with
// optional spaces, empty elements allowed); a list that is malformed anywhere — a tag without its
// quotes, text after one, a "*" among tags — matches nothing.
func NoneMatch(h http.Header, etag string) bool {
	lines := h["If-None-Match"]
	if len(lines) == 0 {
		return false
	}
	if len(lines) == 1 && strings.Trim(lines[0], " \t") == "*" {
		return true
	}
	want, _, ok := scanETag(etag)
	if !ok {
		return false
	}
	matched := false
	for _, s := range lines {
		for {
			s = strings.TrimLeft(s, " \t")
			if s == "" {
				break
			}
			if s[0] == ',' {
				s = s[1:]
				continue
			}
			tag, rest, ok := scanETag(s)
			if !ok {
				return false
			}
			matched = matched || tag == want
			s = strings.TrimLeft(rest, " \t")
			if s != "" && s[0] != ',' {
				return false
			}
		}
	}
	return matched
}

// scanETag reads the entity tag at the start of s (RFC 9110 §8.8.3: an optional W/, then a quoted
// string of etagc) and returns its opaque tag, quotes included, and the rest of s.
func scanETag(s string) (opaque, rest string, ok bool) {
	s = strings.TrimPrefix(s, "W/")
	if len(s) < 2 || s[0] != '"' {
		return "", "", false
	}
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return s[:i+1], s[i+1:], true
		case c == 0x21 || c >= 0x23 && c != 0x7f: // etagc: %x21 / %x23-7E / obs-text
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// MinCompressed is the smallest answer worth compressing: below it gzip's header and trailer and
// the client's work outweigh the bytes saved.
const MinCompressed = 1 << 10

var gzipWriters = sync.Pool{New: func() any {
	z, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return z
}}

// Gzip compresses an answer made for its request (a page, an API answer that is not kept), at
// gzip's fastest level with pooled writers, whole: such answers are at most a few hundred KB.
func Gzip(parts ...[]byte) []byte {
	var b bytes.Buffer
	z := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(z)
	z.Reset(&b)
	for _, p := range parts {
		z.Write(p) // a bytes.Buffer takes everything
	}
	z.Close()
	return b.Bytes()
}
