package main

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi"
	"github.com/hensachi/hensachi/web/account"
)

// TestServeDevLogin runs `hensachi serve -dev-login` as `make serve` does: the login page warns
// that it is for development, the terms version defaults to "dev", the log says so at start,
// "Log in" leads to the development provider's page, and the key its form leads to works on the
// API of the same process (the pages' own test, web/account.TestDevLogin, has no API).
func TestServeDevLogin(t *testing.T) {
	r := startServer(t, os.Args[0], "-dev-login", "-db", filepath.Join(t.TempDir(), "h.db"), "-dataset", fixtureDataset(t),
		"-services", "town", "-uploads", "", "-access-log=false")
	get := func(u string) string {
		t.Helper()
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", u, resp.StatusCode, body)
		}
		return string(body)
	}
	if body := get(r.url + "/login"); !strings.Contains(body, "Development only.") || !strings.Contains(body, "version dev") {
		t.Errorf("login page:\n%s", body)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := browser.Get(r.url + "/login/start")
	if err != nil {
		t.Fatal(err)
	}
	form, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(form), "Development only — not a real identity provider") {
		t.Fatalf("the login does not lead to the development provider:\n%s", form)
	}
	action := regexp.MustCompile(`<form method="post" action="([^"]+)">`).FindSubmatch(form)
	if action == nil {
		t.Fatalf("no form on the provider's page:\n%s", form)
	}
	values := url.Values{"email": {"newcomer@localhost.test"}}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)">`).FindAllSubmatch(form, -1) {
		values.Set(string(m[1]), html.UnescapeString(string(m[2])))
	}
	target, _ := resp.Request.URL.Parse(html.UnescapeString(string(action[1])))
	resp, err = browser.PostForm(target.String(), values)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	key := regexp.MustCompile(`hsk_[0-9A-Za-z]{38}`).Find(page)
	if key == nil || !hensachi.CheckAPIKey(string(key)) {
		t.Fatalf("no key on the page after the development login (%d %s):\n%s", resp.StatusCode, resp.Request.URL, page)
	}
	req, _ := http.NewRequest(http.MethodGet, r.url+"/town/v1/meta", nil)
	req.Header.Set("X-API-Key", string(key))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the development login's key on the API: %d, want 200", resp.StatusCode)
	}
	if log := r.tail(); !strings.Contains(log, "DEVELOPMENT LOGIN") {
		t.Errorf("no warning in the log:\n%s", log)
	}
}

// TestServeDevLoginRefused: `hensachi serve -dev-login` exits with a clear error beside a real
// identity provider (flags or environment, as a shell that exports them to `make serve` does) or
// off loopback.
func TestServeDevLoginRefused(t *testing.T) {
	cases := []struct {
		name      string
		args, env []string
		wantError string
	}{
		{"client id flag", []string{"-addr", "127.0.0.1:0", "-oidc-client-id", "1234.apps.googleusercontent.com"}, nil, "cannot be combined with a real identity provider"},
		{"issuer flag", []string{"-addr", "127.0.0.1:0", "-oidc-issuer", "https://accounts.google.com"}, nil, "cannot be combined with a real identity provider"},
		{"client id in the environment", []string{"-addr", "127.0.0.1:0"}, []string{"HENSACHI_OIDC_CLIENT_ID=1234.apps.googleusercontent.com"}, "cannot be combined with a real identity provider"},
		{"every interface", []string{"-addr", "0.0.0.0:0"}, nil, "is not a loopback address"},
		{"every interface from the environment", nil, []string{"HENSACHI_ADDR=:0"}, "is not a loopback address"},
		{"public URL", []string{"-addr", "127.0.0.1:0", "-public-url", "https://hensachi.example"}, nil, "is not on a loopback address"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			args := append([]string{"serve", "-dev-login", "-db", filepath.Join(t.TempDir(), "h.db"), "-dataset", "/nonexistent/dataset.arrow",
				"-services", "town", "-uploads", ""}, c.args...)
			cmd := hensachiCmd(&out, args...)
			cmd.Env = append(cmd.Env, c.env...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(out.String(), c.wantError) {
					t.Errorf("exit %v, output:\n%s\nwant %q", err, out.String(), c.wantError)
				}
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Errorf("still running after 30 s:\n%s", out.String())
			}
		})
	}
}

// TestStartDevLoginRefused: the development login does not start beside a real identity provider,
// or where others could reach the server; an empty public URL is the one -public-url defaults to.
func TestStartDevLoginRefused(t *testing.T) {
	cases := []struct {
		name, addr, publicURL string
		login                 account.Config
		wantError             string
	}{
		{"real issuer", "127.0.0.1:8080", "", account.Config{Issuer: "https://accounts.google.com"}, "real identity provider"},
		{"real client id", "localhost:8080", "", account.Config{ClientID: "1234.apps.googleusercontent.com"}, "real identity provider"},
		{"real client secret", "localhost:8080", "", account.Config{ClientSecret: "s"}, "real identity provider"},
		{"every interface", ":8080", "", account.Config{}, `listen address ":8080" is not a loopback address`},
		{"every interface, explicitly", "0.0.0.0:8080", "http://localhost:8080", account.Config{}, "not a loopback address"},
		{"every IPv6 interface", "[::]:8080", "http://localhost:8080", account.Config{}, "not a loopback address"},
		{"another interface", "192.0.2.10:8080", "", account.Config{}, "not a loopback address"},
		{"a host name", "hensachi.example:8080", "", account.Config{}, "not a loopback address"},
		{"no listen address", "", "http://localhost:8080", account.Config{}, "not a loopback address"},
		{"public URL elsewhere", "127.0.0.1:8080", "https://hensachi.example", account.Config{}, `public URL "https://hensachi.example" is not on a loopback address`},
		{"public URL on the LAN", "localhost:8080", "http://192.168.1.20:8080", account.Config{}, "is not on a loopback address"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.publicURL == "" {
				c.publicURL = defaultPublicURL(c.addr)
			}
			idp, err := startDevLogin(c.addr, c.publicURL, &c.login)
			if err == nil {
				idp.Close()
				t.Fatal("started")
			}
			if !strings.Contains(err.Error(), c.wantError) {
				t.Errorf("error %q, want %q", err, c.wantError)
			}
		})
	}
	// and it starts on each kind of loopback address, pointing the login at itself
	for _, addr := range []string{"localhost:8080", "127.0.0.1:8080", "[::1]:8080"} {
		var login account.Config
		idp, err := startDevLogin(addr, defaultPublicURL(addr), &login)
		if err != nil {
			t.Errorf("%s: %v", addr, err)
			continue
		}
		if login.Issuer != idp.URL || !login.Development || login.TermsVersion != "dev" {
			t.Errorf("%s: login %+v", addr, login)
		}
		idp.Close()
	}
}
