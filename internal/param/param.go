// Package param reads the parameters of the statistics calls and pages: one validator per
// parameter (prefecture, municipality code, code list, axis, measure key, indicator key, its survey
// year and group, whole numbers for paging, the municipality a ranking page marks, a choice of a few words), which the API (package serve) and the pages (package
// web/site) share, so that the same input gets the same answer from both: the same error code,
// and so the same status. Messages are written in
// English for the API and in Japanese for the pages (hensachi.Error.Japanese).
//
// How the query string around them is read differs by transport, on purpose: the API refuses an
// unknown or empty parameter (a typo must not silently change a result), while the pages ignore
// unknown ones (links carry tracking parameters) and take an empty value as absent (a form's
// "whole country" option sends pref=). Both refuse a query that is malformed or not UTF-8, naming
// the parameter at fault where one can be named, a value of one over MaxLen bytes, and a
// parameter given twice unless it is a list.
package param

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hensachi/hensachi"
)

// MaxLen bounds a parameter of one value (One): no valid value comes close. A list's value
// (List) is bounded by the request line alone.
const MaxLen = 128

// Query is a request's query string, read once.
type Query struct{ values url.Values }

// ParseAPI reads a query string as the API does: besides what both transports refuse, a parameter
// not in known, or given empty, is an invalid parameter.
func ParseAPI(raw string, known ...string) (Query, error) {
	q, err := parse(raw)
	if err != nil {
		return Query{}, err
	}
	for _, name := range q.names() {
		switch {
		case !slices.Contains(known, name):
			return Query{}, invalid(Truncate(name), fmt.Sprintf("unknown parameter %q%s", Truncate(name), knownList(known)),
				"「"+Truncate(name)+"」という指定はありません。")
		case slices.Contains(q.values[name], ""):
			return Query{}, invalid(name, name+" is empty; omit it for the default", name+" が空です。")
		}
	}
	return q, nil
}

// ParsePage reads a query string as the pages do: unknown parameters are left unread, and an
// empty value is no value.
func ParsePage(raw string) (Query, error) {
	q, err := parse(raw)
	if err != nil {
		return Query{}, err
	}
	for name, vs := range q.values {
		vs = slices.DeleteFunc(vs, func(v string) bool { return v == "" })
		if len(vs) == 0 {
			delete(q.values, name)
		} else {
			q.values[name] = vs
		}
	}
	return q, nil
}

// parse reads a query string as url.ParseQuery does — pairs split at &, name and value at the
// first =, each unescaped — but names the parameter at fault when it fails, where one can be
// named: a ; after a name (limit=1;offset=2 is limit's fault, not a second parameter: a ; is no
// separator since Go 1.17, and guessing that it is one would read what the client did not mean),
// a value with a bad escape or not UTF-8. A name that cannot be read (a bad escape, not UTF-8, or
// none at all: =1) names nothing, and the message quotes the pair as sent.
func parse(raw string) (Query, error) {
	if raw == "" {
		return Query{}, nil // most calls have no query; reading a nil map is fine
	}
	values := url.Values{}
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		rawName, rawValue, _ := strings.Cut(pair, "=")
		sent := strings.ToValidUTF8(Truncate(pair), "\uFFFD") // a message may quote it, and is UTF-8
		before, _, semi := strings.Cut(rawName, ";")
		name, err := url.QueryUnescape(before)
		switch {
		case err != nil || !utf8.ValidString(name):
			return Query{}, invalid("", fmt.Sprintf("the query string is malformed: the name of %q cannot be read (a name is UTF-8, escaped as %%XX)", sent),
				"アドレスの ? 以降の「"+sent+"」の名前が読めません。")
		case name == "":
			return Query{}, invalid("", fmt.Sprintf("the query string is malformed: %q has no parameter's name", sent),
				"アドレスの ? 以降の「"+sent+"」に指定の名前がありません。")
		}
		named := Truncate(name) // the parameter at fault, as an error names it
		value, err := url.QueryUnescape(rawValue)
		switch {
		case semi || strings.Contains(rawValue, ";"):
			return Query{}, invalid(named, fmt.Sprintf("%s is malformed: %q has a ;, which does not separate parameters: use & (or %%3B for a ; in a value)", named, sent),
				named+" に ; があります。指定どうしは & で区切ってください。")
		case err != nil:
			return Query{}, invalid(named, fmt.Sprintf("%s is malformed: %q has a %% not followed by two hex digits (escape %% as %%25)", named, sent),
				named+" の値の形が正しくありません（% の後には 16 進数 2 桁が続きます）。")
		case !utf8.ValidString(value):
			return Query{}, invalid(named, named+" is not UTF-8 text", named+" が UTF-8 の文字列ではありません。")
		}
		values[name] = append(values[name], value)
	}
	return Query{values}, nil
}

// names lists the parameters in order, so that the same request always reports the same one.
func (q Query) names() []string {
	names := make([]string, 0, len(q.values))
	for name := range q.values {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// One returns the value of a parameter that takes one: ok is false when it is absent, and given
// twice or longer than MaxLen it is an invalid parameter.
func (q Query) One(name string) (value string, ok bool, err error) {
	vs := q.values[name]
	switch {
	case len(vs) == 0:
		return "", false, nil
	case len(vs) == 1 && len(vs[0]) > MaxLen:
		return "", false, invalid(name, fmt.Sprintf("%s is too long (%d bytes)", name, len(vs[0])), name+" が長すぎます。")
	case len(vs) == 1:
		return vs[0], true, nil
	}
	return "", false, invalid(name, fmt.Sprintf("%s is given %d times; give it once", name, len(vs)),
		fmt.Sprintf("%s が %d 回指定されています。1 回だけ指定してください。", name, len(vs)))
}

// List returns the items of a list parameter: given once or repeated, each value a comma-separated
// list; spaces around an item and empty items are dropped. A list is as long as the request line
// allows (the server's 32 KiB of headers: every indicator key of the catalogue in one value), not
// MaxLen: each item is checked by its validator.
func (q Query) List(name string) []string {
	var items []string
	for _, v := range q.values[name] {
		for item := range strings.SplitSeq(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				items = append(items, item)
			}
		}
	}
	return items
}

// Has reports whether a parameter is given.
func (q Query) Has(name string) bool { return len(q.values[name]) > 0 }

// Int reads a whole number in [lo, hi], def when absent. Only plain digits are accepted: no sign,
// no spaces, no exponent.
func Int(q Query, name string, def, lo, hi int) (int, error) {
	s, ok, err := q.One(name)
	if err != nil || !ok {
		return def, err
	}
	n, err := strconv.Atoi(s)
	if !Digits(s) || err != nil || n < lo || n > hi {
		return 0, invalid(name, fmt.Sprintf("%s must be a whole number from %d to %d, not %q", name, lo, hi, s),
			fmt.Sprintf("%s には %d から %d までの整数を指定してください。", name, lo, hi))
	}
	return n, nil
}

// Choice reads a parameter that takes one of a few words, the first when absent.
func Choice(q Query, name string, choices ...string) (string, error) {
	s, ok, err := q.One(name)
	switch {
	case err != nil:
		return "", err
	case !ok:
		return choices[0], nil
	case slices.Contains(choices, s):
		return s, nil
	}
	return "", invalid(name, fmt.Sprintf("%s must be one of %s, not %q", name, strings.Join(choices, ", "), Truncate(s)),
		fmt.Sprintf("%s には %s のどれかを指定してください。", name, strings.Join(choices, "、")))
}

// Digits reports whether s has only ASCII digits. Codes are checked on every call, and
// strings.Trim with a cutset would build the set each time.
func Digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Truncate shortens a value the client sent to what a message repeats of it, never inside a
// character.
func Truncate(s string) string {
	if len(s) <= MaxLen {
		return s
	}
	n := MaxLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func knownList(known []string) string {
	if len(known) == 0 {
		return "; this call takes no parameters"
	}
	return "; this call takes " + strings.Join(known, ", ")
}

// invalid is an invalid parameter with its message for the API and for the pages.
func invalid(param, message, japanese string) *hensachi.Error {
	return &hensachi.Error{Code: hensachi.EInvalidParameter, Param: param, Message: message, Japanese: japanese}
}

// notFound is a thing named in the path that does not exist.
func notFound(message, japanese string) *hensachi.Error {
	return &hensachi.Error{Code: hensachi.ENotFound, Message: message, Japanese: japanese}
}
