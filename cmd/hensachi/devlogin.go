package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"

	"github.com/hensachi/hensachi/devidp"
	"github.com/hensachi/hensachi/oidc"
	"github.com/hensachi/hensachi/web/account"
)

// devClientID is the client the development login registers with its provider.
const devClientID = "hensachi-dev"

// startDevLogin starts the embedded development identity provider and points the login at it,
// after refusing what would make it dangerous: a real issuer configured beside it (which of the
// two would a login trust?), or a listen address or public URL that others could reach (anyone
// reaching the server could log in as anyone).
//
// The provider listens on a loopback port of its own rather than on the server's router. The
// relying party then reaches it exactly as it reaches a real issuer — another origin, discovered
// over HTTP, no cookies or middleware shared with the pages — and it is serving before the first
// login, whatever the public URL says (behind a local proxy the server could not reach itself at
// its public URL). The browser reaches it too, since it runs on the same machine: that is what the
// loopback rule guarantees.
func startDevLogin(addr, publicURL string, login *account.Config) (*devidp.Server, error) {
	if login.Issuer != "" || login.ClientID != "" || login.ClientSecret != "" {
		return nil, errors.New("the development login cannot be combined with a real identity provider (-oidc-issuer, -oidc-client-id, -oidc-client-secret): choose one")
	}
	if err := checkLoopback(addr, publicURL); err != nil {
		return nil, fmt.Errorf("the development login runs on this machine only: %w", err)
	}
	secret := rand.Text()
	idp, err := devidp.Start(devidp.Config{ClientID: devClientID, ClientSecret: secret,
		RedirectURIs: []string{strings.TrimSuffix(publicURL, "/") + "/auth/callback"}})
	if err != nil {
		return nil, fmt.Errorf("development login: %w", err)
	}
	login.Issuer, login.ClientID, login.ClientSecret = idp.URL, devClientID, secret
	login.Development = true
	if login.TermsVersion == "" {
		login.TermsVersion = "dev"
	}
	slog.Warn("DEVELOPMENT LOGIN: an embedded identity provider logs anyone in as any e-mail address; never use it for a server others can reach",
		"provider", idp.URL, "login", strings.TrimSuffix(publicURL, "/")+"/login")
	return idp, nil
}

// checkLoopback refuses a listen address or public URL off this machine. A listen address without
// a host (":8080") listens on every interface.
func checkLoopback(addr, publicURL string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !oidc.IsLoopback(host) {
		return fmt.Errorf("listen address %q is not a loopback address (127.0.0.1, ::1 or localhost)", addr)
	}
	u, err := url.Parse(publicURL)
	if err != nil || !oidc.IsLoopback(u.Hostname()) {
		return fmt.Errorf("public URL %q is not on a loopback address (127.0.0.1, ::1 or localhost)", publicURL)
	}
	return nil
}
