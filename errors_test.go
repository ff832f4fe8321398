package hensachi

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
)

func TestKinds(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Kinds {
		if seen[k.Code] {
			t.Errorf("%s listed twice", k.Code)
		}
		seen[k.Code] = true
		if k.Status < 400 || k.Status > 599 || k.Title != http.StatusText(k.Status) || k.Heading == "" || k.About == "" {
			t.Errorf("%s: incomplete kind %+v", k.Code, k)
		}
	}
}

func TestStatusOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, http.StatusOK},
		{Errorf(ENotFound, "no such thing"), http.StatusNotFound},
		{fmt.Errorf("wrapped: %w", ParamError("pref", "bad")), http.StatusBadRequest},
		{Errorf(EDailyLimitExceeded, "enough"), http.StatusTooManyRequests},
		{Errorf("no_such_code", "?"), http.StatusInternalServerError},
		{errors.New("plain"), http.StatusInternalServerError},
	} {
		if got := StatusOf(c.err); got != c.want {
			t.Errorf("StatusOf(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	if k := KindOf("no_such_code"); k.Code != EInternal {
		t.Errorf("an unknown code is %s, want %s", k.Code, EInternal)
	}
}
