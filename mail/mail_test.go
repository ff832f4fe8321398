package mail_test

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"github.com/hensachi/hensachi/internal/testrig/testsmtp"
	"github.com/hensachi/hensachi/mail"
)

// TestSMTP delivers through a real SMTP server under each TLS policy, and checks that the sender
// refuses to go on where it would send in the clear what the policy says must be encrypted.
func TestSMTP(t *testing.T) {
	cases := []struct {
		name      string
		server    testsmtp.Options
		policy    mail.TLSPolicy
		user, pw  string
		trust     bool // give the client the server's certificate
		wantErr   string
		wantTLS   bool
		wantLogin string
	}{
		{name: "starttls with auth", server: testsmtp.Options{Mode: testsmtp.StartTLS, Username: "u", Password: "p"},
			policy: mail.StartTLS, user: "u", pw: "p", trust: true, wantTLS: true, wantLogin: "u"},
		{name: "implicit tls with auth", server: testsmtp.Options{Mode: testsmtp.Implicit, Username: "u", Password: "p"},
			policy: mail.ImplicitTLS, user: "u", pw: "p", trust: true, wantTLS: true, wantLogin: "u"},
		{name: "plain relay", server: testsmtp.Options{Mode: testsmtp.Plain}, policy: mail.NoTLS},
		{name: "opportunistic, offered", server: testsmtp.Options{Mode: testsmtp.StartTLS}, policy: mail.Opportunistic, trust: true, wantTLS: true},
		{name: "opportunistic, not offered", server: testsmtp.Options{Mode: testsmtp.Plain}, policy: mail.Opportunistic},
		{name: "starttls required, not offered", server: testsmtp.Options{Mode: testsmtp.Plain}, policy: mail.StartTLS, wantErr: "STARTTLS"},
		{name: "untrusted certificate", server: testsmtp.Options{Mode: testsmtp.StartTLS}, policy: mail.StartTLS, wantErr: "certificate"},
		{name: "wrong password", server: testsmtp.Options{Mode: testsmtp.StartTLS, Username: "u", Password: "p"},
			policy: mail.StartTLS, user: "u", pw: "wrong", trust: true, wantErr: "AUTH"},
		// the server offers AUTH only after STARTTLS, and the client must not fall back to sending
		// the password in the clear
		{name: "no password over plain text", server: testsmtp.Options{Mode: testsmtp.StartTLS, Username: "u", Password: "p"},
			policy: mail.NoTLS, user: "u", pw: "p", wantErr: "AUTH"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := testsmtp.Start(t, c.server)
			cfg := mail.SMTPConfig{Addr: srv.Addr(), Username: c.user, Password: c.pw, From: "hensachi <noreply@hensachi.example>",
				TLS: c.policy, Timeout: 5 * time.Second}
			if c.trust {
				cfg.TLSConfig = &tls.Config{RootCAs: srv.Roots}
			}
			s, err := mail.NewSMTP(cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = s.Send(context.Background(), mail.Message{To: "newcomer@example.com", Subject: "Your API key — 偏差値", Text: "key: hsk_abc\n"})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("Send: %v, want an error mentioning %q", err, c.wantErr)
				}
				srv.None(t, 50*time.Millisecond)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m := srv.Next(t, 5*time.Second)
			if m.From != "noreply@hensachi.example" || len(m.To) != 1 || m.To[0] != "newcomer@example.com" {
				t.Errorf("envelope from %q to %v", m.From, m.To)
			}
			if m.TLS != c.wantTLS || m.AuthUser != c.wantLogin {
				t.Errorf("delivered with TLS %v, login %q; want %v, %q", m.TLS, m.AuthUser, c.wantTLS, c.wantLogin)
			}
			if got := m.Header("Subject"); got != "Your API key — 偏差値" {
				t.Errorf("Subject %q", got)
			}
			if body, err := m.Text(); err != nil || !strings.Contains(body, "key: hsk_abc") {
				t.Errorf("body %q, %v", body, err)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	cases := []struct {
		name string
		cfg  mail.SMTPConfig
	}{
		{"no port", mail.SMTPConfig{Addr: "smtp.example.com", From: "a@example.com"}},
		{"bad port", mail.SMTPConfig{Addr: "smtp.example.com:0", From: "a@example.com"}},
		{"no sender", mail.SMTPConfig{Addr: "smtp.example.com:587"}},
		{"bad sender", mail.SMTPConfig{Addr: "smtp.example.com:587", From: "not an address"}},
		{"unknown policy", mail.SMTPConfig{Addr: "smtp.example.com:587", From: "a@example.com", TLS: "ssl3"}},
	}
	for _, c := range cases {
		if _, err := mail.NewSMTP(c.cfg); err == nil {
			t.Errorf("%s: accepted %+v", c.name, c.cfg)
		}
	}
	if _, err := mail.NewSMTP(mail.SMTPConfig{Addr: "smtp.example.com:587", From: "hensachi <a@example.com>"}); err != nil {
		t.Errorf("a good configuration: %v", err)
	}
}
