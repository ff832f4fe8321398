// Package negotiate reads what a request accepts, for the JSON API and the pages alike, so that
// both answer the same Accept-Encoding the same way.
package negotiate

import (
	"net/http"
	"strconv"
	"strings"
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
