package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hensachi/hensachi/cmd/internal/cli"
	"github.com/hensachi/hensachi/mail"
	"github.com/hensachi/hensachi/oidc"
	"github.com/hensachi/hensachi/web/account"
)

// loginFlags configure login with an identity provider, sessions and the SMTP server that mails
// keys. Secrets are better given in the environment than as flags, which other users of the
// machine can read in the process list; their flags show no default, so -h never prints them.
type loginFlags struct {
	issuer, clientID, clientSecret, sessionSecret *string
	termsVersion, termsURL, clientIPHeader        *string
	smtpAddr, smtpUser, smtpPassword, smtpFrom    *string
	smtpTLS                                       *string
	devLogin                                      *bool
}

func addLoginFlags(fs *flag.FlagSet) *loginFlags {
	return &loginFlags{
		issuer:         fs.String("oidc-issuer", os.Getenv("HENSACHI_OIDC_ISSUER"), "OpenID Connect issuer to log in with (env HENSACHI_OIDC_ISSUER; default "+oidc.GoogleIssuer+")"),
		clientID:       fs.String("oidc-client-id", os.Getenv("HENSACHI_OIDC_CLIENT_ID"), "OAuth client id registered with the issuer; empty turns login off (env HENSACHI_OIDC_CLIENT_ID)"),
		clientSecret:   fs.String("oidc-client-secret", "", "OAuth client secret (prefer env HENSACHI_OIDC_CLIENT_SECRET)"),
		sessionSecret:  fs.String("session-secret", "", "at least 32 bytes signing login sessions, the same on every replica; unset: random per start (prefer env HENSACHI_SESSION_SECRET)"),
		termsVersion:   fs.String("terms-version", os.Getenv("HENSACHI_TERMS_VERSION"), "version of the terms of use a login accepts (env HENSACHI_TERMS_VERSION; default 1, or dev with -dev-login)"),
		termsURL:       fs.String("terms-url", os.Getenv("HENSACHI_TERMS_URL"), "address of the terms of use, linked from the login page (env HENSACHI_TERMS_URL)"),
		clientIPHeader: fs.String("client-ip-header", os.Getenv("HENSACHI_CLIENT_IP_HEADER"), "header a trusted reverse proxy sets to the client's address, for the login rate limit, e.g. X-Forwarded-For (env HENSACHI_CLIENT_IP_HEADER)"),
		smtpAddr:       fs.String("smtp-addr", os.Getenv("HENSACHI_SMTP_ADDR"), "SMTP server host:port that mails API keys; empty: keys are only shown (env HENSACHI_SMTP_ADDR)"),
		smtpUser:       fs.String("smtp-user", os.Getenv("HENSACHI_SMTP_USER"), "SMTP AUTH user; empty: no AUTH (env HENSACHI_SMTP_USER)"),
		smtpPassword:   fs.String("smtp-password", "", "SMTP AUTH password (prefer env HENSACHI_SMTP_PASSWORD)"),
		smtpFrom:       fs.String("smtp-from", os.Getenv("HENSACHI_SMTP_FROM"), "sender of key mails, e.g. 'hensachi <noreply@example.com>' (env HENSACHI_SMTP_FROM)"),
		smtpTLS:        fs.String("smtp-tls", cli.EnvOr("HENSACHI_SMTP_TLS", string(mail.StartTLS)), "starttls (required; port 587), tls (from the first byte; port 465), opportunistic, or none (env HENSACHI_SMTP_TLS)"),
		devLogin: fs.Bool("dev-login", os.Getenv("HENSACHI_DEV_LOGIN") == "true",
			"development only: log in through an embedded identity provider that accepts any e-mail address; refused with -oidc-* or off loopback (env HENSACHI_DEV_LOGIN=true)"),
	}
}

// flagOrEnv is a flag's value, or the environment variable name when the flag is empty: for secrets,
// which must not show as a flag's default in the usage text.
func flagOrEnv(name string, flag *string) string {
	if *flag != "" {
		return *flag
	}
	return os.Getenv(name)
}

// config returns the login configuration; login stays off without a client id or -dev-login.
// The issuer stays empty unless given (package web/account defaults it to Google), so that the development
// login can tell a real issuer asked for from none.
func (f *loginFlags) config() (account.Config, error) {
	cfg := account.Config{Issuer: *f.issuer, ClientID: *f.clientID, ClientSecret: flagOrEnv("HENSACHI_OIDC_CLIENT_SECRET", f.clientSecret),
		SessionSecret: []byte(flagOrEnv("HENSACHI_SESSION_SECRET", f.sessionSecret)), TermsVersion: *f.termsVersion,
		TermsURL: *f.termsURL, ClientIPHeader: *f.clientIPHeader}
	if cfg.TermsVersion == "" && !*f.devLogin { // the development login's default is its own
		cfg.TermsVersion = "1"
	}
	if *f.smtpAddr != "" {
		policy, err := mail.ParseTLSPolicy(*f.smtpTLS)
		if err != nil {
			return cfg, fmt.Errorf("-smtp-tls: %w", err)
		}
		sender, err := mail.NewSMTP(mail.SMTPConfig{Addr: *f.smtpAddr, Username: *f.smtpUser,
			Password: flagOrEnv("HENSACHI_SMTP_PASSWORD", f.smtpPassword), From: *f.smtpFrom, TLS: policy})
		if err != nil {
			return cfg, fmt.Errorf("-smtp-*: %w", err)
		}
		cfg.Mailer = sender
	}
	return cfg, nil
}
