package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi/internal/testrig/webclient"
	"github.com/hensachi/hensachi/web/account"
)

// TestServeDevLogin runs `hensachi serve -dev-login` as `make serve` does: the login page warns
// that it is for development, the terms version defaults to "dev", the log says so at start,
// "Log in" leads to the development provider's page, and the key its form leads to works on the
// API of the same process (the pages' own test, web/account.TestDevLogin, has no API).
func TestServeDevLogin(t *testing.T) {
	t.Parallel()
	r := startServer(t, os.Args[0], "-dev-login", "-db", filepath.Join(t.TempDir(), "h.db"), "-dataset", fixtureDataset(t),
		"-services", "town", "-uploads", "", "-access-log=false")
	b := webclient.New(t)
	lp := b.Get(r.url + "/login")
	if lp.Status != http.StatusOK {
		t.Fatalf("GET /login: %d\n%s", lp.Status, lp.Body)
	}
	if !strings.Contains(lp.Body, "開発用です。") || !strings.Contains(lp.Body, "バージョン dev") {
		t.Errorf("login page:\n%s", lp.Body)
	}
	_, page := b.DevLogin(r.url, "newcomer@localhost.test")
	key := webclient.KeyFrom(t, page)
	req, _ := http.NewRequest(http.MethodGet, r.url+"/town/v1/meta", nil)
	req.Header.Set("X-API-Key", key)
	if p := b.Do(req); p.Status != http.StatusOK {
		t.Errorf("the development login's key on the API: %d, want 200", p.Status)
	}
	if log := r.tail(); !strings.Contains(log, "DEVELOPMENT LOGIN") {
		t.Errorf("no warning in the log:\n%s", log)
	}
}

// TestServeDevLoginRefused: `hensachi serve -dev-login` exits with a clear error beside a real
// identity provider (flags or environment, as a shell that exports them to `make serve` does) or
// off loopback.
func TestServeDevLoginRefused(t *testing.T) {
	t.Parallel()
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
			t.Parallel()
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
	t.Parallel()
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
