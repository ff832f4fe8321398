package account

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/logtest"
	"github.com/hensachi/hensachi/internal/testrig/webclient"
)

// TestFailurePages: a page that fails answers with its code's status and the page's own heading and
// message, the request id, and for a step of logging in the button to log in again; the log line
// has the cause and, from the request's context (reqinfo.Handler), the request id the page shows.
func TestFailurePages(t *testing.T) {
	logs := logtest.Capture(t)
	env := newLoginEnv(t)
	again := `<a class="button" href="/login">ログイン</a>`
	shownID := func(p webclient.Page) string {
		t.Helper()
		m := shownRequestID.FindString(p.Body)
		id := strings.TrimSuffix(strings.TrimPrefix(m, "リクエスト ID <code>"), "</code>")
		if id == "" {
			t.Fatalf("no request id on the page:\n%s", p.Body)
		}
		return id
	}

	// a callback in a browser that did not start the login
	p := webclient.New(t).Get(env.URL + "/auth/callback?state=s&code=c")
	if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "<title>ログインの期限切れ") ||
		!strings.Contains(p.Body, "10 分以上かかりました") || !strings.Contains(p.Body, again) {
		t.Errorf("callback without a login: %d\n%s", p.Status, p.Body)
	}
	if l := logs.Line("level=WARN", "page refused", "code=invalid_parameter", "callback without a valid login cookie",
		"request_id="+shownID(p)); l == "" {
		t.Errorf("no log line with the cause and the request id:\n%s", logs.String())
	}

	// the account page while the store fails: the page's words, no login button, an error in the log
	b, _ := login(t, env)
	env.store.Close()
	p = b.Get(env.URL + "/account")
	if p.Status != http.StatusInternalServerError || !strings.Contains(p.Body, "<title>アカウントを表示できません") ||
		!strings.Contains(p.Body, "今はアカウントを読み込めません。") || strings.Contains(p.Body, again) {
		t.Errorf("account page without a store: %d\n%s", p.Status, p.Body)
	}
	if l := logs.Line("level=ERROR", "page failed", "account page", "request_id="+shownID(p)); l == "" {
		t.Errorf("no error line with the request id:\n%s", logs.String())
	}
}
