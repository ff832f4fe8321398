package serve_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/internal/testrig/browsertest"
)

// appPage is a browser app of another origin: its script calls the API with a key, as a page's
// script does, through a CORS preflight (X-API-Key is not a header a page may send unasked).
const appPage = `<!doctype html><html lang="en"><title>app</title><script>
async function call(url, key) {
	const r = await fetch(url, {headers: {"X-API-Key": key}});
	return {status: r.status, body: await r.json(), rateLimit: r.headers.get("RateLimit") || "",
		etag: r.headers.get("ETag") || "", requestID: r.headers.get("X-Request-Id") || ""};
}
</script>`

// appAnswer is what the app's script reads of an answer.
type appAnswer struct {
	Status int `json:"status"`
	Body   struct {
		Success bool   `json:"success"`
		Code    string `json:"code"`
		Data    struct {
			Municipalities int `json:"municipalities"`
		} `json:"data"`
	} `json:"body"`
	RateLimit string `json:"rateLimit"`
	ETag      string `json:"etag"`
	RequestID string `json:"requestID"`
}

// TestBrowserCORS runs a browser app on another origin (its own server and port) in Chromium: its
// script's call with a key arrives with the JSON and the headers a client reads, for any origin
// while the account lists none; once the account lists origins, a page of another origin is
// refused with 403 origin_not_allowed, which the script can read, and a listed one still works.
func TestBrowserCORS(t *testing.T) {
	ts := newTestServer(t)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(appPage))
	}))
	t.Cleanup(app.Close)
	if app.URL == ts.http.URL {
		t.Fatal("the app and the API share an origin")
	}
	c := browsertest.New(t, 30*time.Second)
	c.Do("open the app", chromedp.Navigate(app.URL+"/"))
	call := func(path string) appAnswer {
		t.Helper()
		js := fmt.Sprintf("call(%q, %q)", ts.http.URL+path, ts.freeKey)
		a, err := chromedp.Run(c.Ctx, chromedp.Evaluate[appAnswer](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("fetch %s from %s: %v", path, app.URL, err)
		}
		return a
	}
	setOrigins := func(list string) {
		t.Helper()
		if _, err := (hensachi.Accounts{Store: ts.store}).SetOrigins(context.Background(), ts.freeID, list); err != nil {
			t.Fatal(err)
		}
	}

	a := call("/town/v1/meta")
	if a.Status != http.StatusOK || !a.Body.Success || a.Body.Data.Municipalities != 1741 {
		t.Fatalf("the app's call: %+v", a)
	}
	if !strings.HasPrefix(a.RateLimit, `"daily";r=`) || a.ETag == "" || a.RequestID == "" {
		t.Errorf("the app cannot read the answer's headers: %+v", a)
	}
	if a := call("/town/v1/municipalities/99999"); a.Status != http.StatusNotFound || a.Body.Code != hensachi.ENotFound {
		t.Errorf("the app reads an error as %+v", a)
	}

	setOrigins(app.URL)
	if a := call("/town/v1/meta"); a.Status != http.StatusOK {
		t.Errorf("the app's call with its origin listed: %+v", a)
	}
	setOrigins("https://elsewhere.example")
	if a := call("/town/v1/meta"); a.Status != http.StatusForbidden || a.Body.Code != hensachi.EOriginNotAllowed {
		t.Errorf("the app's call with its origin not listed: %+v", a)
	}
}
