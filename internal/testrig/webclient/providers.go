package webclient

import (
	"crypto/tls"
	"testing"

	"github.com/hensachi/hensachi/internal/testrig/testidp"
	"github.com/hensachi/hensachi/internal/testrig/testsmtp"
	"github.com/hensachi/hensachi/mail"
)

// The test identity provider's client, for the pages' login configuration.
const (
	ClientID     = "hensachi-test"
	ClientSecret = "test-secret"
)

// Providers are the outside services of a login in a test: an identity provider that approves at
// once and a submission server for the key mails.
type Providers struct {
	IDP    *testidp.IDP     // client ClientID with ClientSecret, sending back to the pages' /auth/callback
	SMTP   *testsmtp.Server // STARTTLS and AUTH, as a real submission server
	Mailer *mail.SMTP       // sends through SMTP over TLS, logged in
}

// NewProviders starts the providers for the pages on baseURL; they stop when the test ends.
func NewProviders(t testing.TB, baseURL string) Providers {
	t.Helper()
	p := Providers{IDP: testidp.New(t, ClientID, ClientSecret)}
	p.IDP.AllowRedirect(baseURL + "/auth/callback")
	p.SMTP = testsmtp.Start(t, testsmtp.Options{Mode: testsmtp.StartTLS, Username: "mailer", Password: "mail-secret"})
	var err error
	p.Mailer, err = mail.NewSMTP(mail.SMTPConfig{Addr: p.SMTP.Addr(), Username: "mailer", Password: "mail-secret",
		From: "hensachi <noreply@hensachi.example>", TLS: mail.StartTLS, TLSConfig: &tls.Config{RootCAs: p.SMTP.Roots}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
