package testidp

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestTokenEndpoint: the provider refuses what a real one refuses, so tests that pass against it
// mean something: a wrong verifier, a reused code, another redirect URI, a wrong client secret.
func TestTokenEndpoint(t *testing.T) {
	p := New(t, "client", "secret")
	const redirect = "https://rp.example/cb"
	p.AllowRedirect(redirect)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	verifier := strings.Repeat("v", 43)
	sum := sha256.Sum256([]byte(verifier))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	code := func(t *testing.T) string {
		t.Helper()
		q := url.Values{"response_type": {"code"}, "client_id": {"client"}, "redirect_uri": {redirect}, "scope": {"openid email"},
			"state": {"s"}, "nonce": {"n"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
		resp, err := noFollow.Get(p.URL + "/authorize?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc, _ := url.Parse(resp.Header.Get("Location"))
		if c := loc.Query().Get("code"); c != "" && loc.Query().Get("state") == "s" {
			return c
		}
		t.Fatalf("authorize: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		return ""
	}
	redeem := func(form url.Values, user, pass string) (int, map[string]any) {
		req, _ := http.NewRequest(http.MethodPost, p.URL+"/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(user, pass)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	form := func(code, verifier, redirect string) url.Values {
		return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {redirect}}
	}

	cases := []struct {
		name      string
		form      func(code string) url.Values
		secret    string
		wantError string
	}{
		{"good", func(c string) url.Values { return form(c, verifier, redirect) }, "secret", ""},
		{"wrong verifier", func(c string) url.Values { return form(c, strings.Repeat("w", 43), redirect) }, "secret", "invalid_grant"},
		{"no verifier", func(c string) url.Values { return form(c, "", redirect) }, "secret", "invalid_grant"},
		{"other redirect", func(c string) url.Values { return form(c, verifier, redirect+"x") }, "secret", "invalid_grant"},
		{"wrong secret", func(c string) url.Values { return form(c, verifier, redirect) }, "nope", "invalid_client"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := redeem(c.form(code(t)), "client", c.secret)
			if c.wantError == "" {
				if status != http.StatusOK || body["id_token"] == nil {
					t.Errorf("%d %v", status, body)
				}
				return
			}
			if body["error"] != c.wantError {
				t.Errorf("%d %v, want %s", status, body, c.wantError)
			}
		})
	}
	t.Run("code reused", func(t *testing.T) {
		c := code(t)
		redeem(form(c, verifier, redirect), "client", "secret")
		if _, body := redeem(form(c, verifier, redirect), "client", "secret"); body["error"] != "invalid_grant" {
			t.Errorf("second redemption: %v", body)
		}
	})
	t.Run("unregistered redirect", func(t *testing.T) {
		resp, err := noFollow.Get(p.URL + "/authorize?" + url.Values{"client_id": {"client"}, "redirect_uri": {"https://evil.example/cb"}}.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" {
			t.Errorf("%d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
		}
	})
}
