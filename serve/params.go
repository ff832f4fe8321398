package serve

import (
	"net/url"
	"slices"
	"strconv"

	"github.com/hensachi/hensachi"
)

// maxParamLen bounds a query value; no valid value comes close.
const maxParamLen = 64

// parseQuery parses a query string strictly: a malformed string, an unknown parameter, a repeated
// one or an overlong value is an invalid parameter, so a typo never silently changes a result.
func parseQuery(raw string, allowed ...string) (map[string]string, error) {
	if raw == "" {
		return nil, nil // most calls have no query; reading a nil map is fine
	}
	vals, err := url.ParseQuery(raw)
	if err != nil {
		return nil, hensachi.ParamError("", "the query string is malformed: %v", err)
	}
	out := make(map[string]string, len(vals))
	names := make([]string, 0, len(vals))
	for name := range vals {
		names = append(names, name)
	}
	slices.Sort(names) // the same request always reports the same parameter
	for _, name := range names {
		v := vals[name]
		switch {
		case !slices.Contains(allowed, name):
			return nil, hensachi.ParamError(truncateParam(name), "unknown parameter %q%s", truncateParam(name), allowedList(allowed))
		case len(v) > 1:
			return nil, hensachi.ParamError(name, "%s is given %d times; give it once", name, len(v))
		case len(v[0]) > maxParamLen:
			return nil, hensachi.ParamError(name, "%s is too long (%d bytes)", name, len(v[0]))
		case v[0] == "":
			return nil, hensachi.ParamError(name, "%s is empty; omit it for the default", name)
		}
		out[name] = v[0]
	}
	return out, nil
}

func truncateParam(s string) string {
	if len(s) > maxParamLen {
		return s[:maxParamLen]
	}
	return s
}

func allowedList(allowed []string) string {
	if len(allowed) == 0 {
		return "; this call takes no parameters"
	}
	s := "; this call takes "
	for i, a := range allowed {
		if i > 0 {
			s += ", "
		}
		s += a
	}
	return s
}

// intParam reads a decimal integer in [lo, hi], or def when absent. Only plain digits are
// accepted: no sign, no spaces, no exponent.
func intParam(q map[string]string, name string, def, lo, hi int) (int, error) {
	s, ok := q[name]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if !allDigits(s) || err != nil || n < lo || n > hi {
		return 0, hensachi.ParamError(name, "%s must be a whole number from %d to %d, not %q", name, lo, hi, s)
	}
	return n, nil
}

// allDigits reports whether s has only ASCII digits. Codes are checked on every call, and
// strings.Trim with a cutset would build the set each time.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
