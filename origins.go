package hensachi

import (
	"context"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// MaxOrigins bounds an account's origin allow-list: it is checked on every keyed call from a
// browser and shown on the account page.
const MaxOrigins = 20

// maxOriginLength bounds one origin, as browsers send it in the Origin header.
const maxOriginLength = 200

// ParseOrigins checks a list of web origins for an account's allow-list and returns them in the
// form browsers send in the Origin header (scheme and host in lower case, no default port, no
// path), without duplicates, in the order given. Entries are separated by commas, spaces or new
// lines, so the account page's text area and the operator tool's flag read alike; an empty list
// clears the allow-list. A bad entry is an invalid_parameter error on "origins".
func ParseOrigins(list string) ([]string, error) {
	var out []string
	for _, raw := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
		o, err := normalOrigin(raw)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	if len(out) > MaxOrigins {
		return nil, ParamError("origins", "at most %d origins", MaxOrigins)
	}
	return out, nil
}

// normalOrigin returns an origin in the serialised form of the HTML standard: scheme://host[:port].
func normalOrigin(raw string) (string, error) {
	bad := func(why string) error {
		return ParamError("origins", "%q is not a web origin such as https://app.example.com (%s)", truncate(raw, 80), why)
	}
	if len(raw) > maxOriginLength {
		return "", bad("too long")
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", bad("not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", bad("the scheme must be http or https")
	case u.Host == "" || u.Opaque != "":
		return "", bad("no host")
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "", bad("an origin is scheme, host and port only, without a path")
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	switch n, err := strconv.Atoi(port); {
	case host == "":
		return "", bad("no host")
	case port != "" && (err != nil || n < 1 || n > 65535):
		return "", bad("the port must be 1 to 65535")
	case strings.Contains(host, ":"):
		if net.ParseIP(host) == nil {
			return "", bad("not an IPv6 address")
		}
		host = "[" + host + "]"
	case strings.IndexFunc(host, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_')
	}) >= 0:
		// browsers send an internationalised name in its ASCII form
		return "", bad("write the host in ASCII, an internationalised name as xn--…")
	}
	if port == "" || (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		return u.Scheme + "://" + host, nil
	}
	return u.Scheme + "://" + host + ":" + port, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// AllowsOrigin reports whether a browser page of origin may use the account's key: any origin
// when the account lists none, else only those listed. The Origin header is compared as browsers
// serialise it (lower-case scheme and host, no default port).
func (a Account) AllowsOrigin(origin string) bool {
	return len(a.Origins) == 0 || slices.Contains(a.Origins, origin)
}

// SetOrigins replaces the account's origin allow-list with the origins of list (see
// ParseOrigins); an empty list lets any origin use the key again. It returns the list as stored.
func (a Accounts) SetOrigins(ctx context.Context, accountID int64, list string) ([]string, error) {
	origins, err := ParseOrigins(list)
	if err != nil {
		return nil, err
	}
	return origins, a.Store.SetOrigins(ctx, accountID, origins)
}
