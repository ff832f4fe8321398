package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeDevLogin runs `hensachi serve -dev-login` as `make serve` does: the login page warns
// that it is for development, the terms version defaults to "dev", the log says so at start, and
// "Log in" leads to the development provider's page.
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
	if body := get(r.url + "/login/start"); !strings.Contains(body, "Development only — not a real identity provider") {
		t.Errorf("the login does not lead to the development provider:\n%s", body)
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
