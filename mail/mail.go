// Package mail sends the service's e-mail (today: API keys to an account's verified address)
// through an SMTP server, with wneessen/go-mail. The rest of the code sees only Sender.
package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Message is a plain-text message to one recipient.
type Message struct {
	To      string
	Subject string
	Text    string
}

// Sender delivers messages.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// TLSPolicy is how the connection to the SMTP server is encrypted.
type TLSPolicy string

const (
	// StartTLS requires STARTTLS (the submission port, 587); the default.
	StartTLS TLSPolicy = "starttls"
	// ImplicitTLS speaks TLS from the first byte (port 465).
	ImplicitTLS TLSPolicy = "tls"
	// Opportunistic uses STARTTLS when the server offers it and sends in the clear otherwise.
	Opportunistic TLSPolicy = "opportunistic"
	// NoTLS never encrypts: only for a relay on the same host or a trusted network.
	NoTLS TLSPolicy = "none"
)

// ParseTLSPolicy reads a policy name; "" is StartTLS.
func ParseTLSPolicy(s string) (TLSPolicy, error) {
	switch p := TLSPolicy(s); p {
	case "":
		return StartTLS, nil
	case StartTLS, ImplicitTLS, Opportunistic, NoTLS:
		return p, nil
	}
	return "", fmt.Errorf("SMTP TLS policy %q: want starttls, tls, opportunistic or none", s)
}

// SMTPConfig configures an SMTP sender.
type SMTPConfig struct {
	Addr     string // host:port of the server
	Username string // empty: no SMTP AUTH
	Password string
	From     string // the sender address, e.g. "hensachi <noreply@example.com>"
	TLS      TLSPolicy
	// TLSConfig is used for the TLS handshake (RootCAs for a private server); ServerName is set
	// from Addr when empty.
	TLSConfig *tls.Config
	Timeout   time.Duration // per delivery; default 15 s
}

// SMTP sends through one SMTP server, one connection per message: keys are mailed rarely, and a
// fresh connection never finds a stale one.
type SMTP struct {
	cfg  SMTPConfig
	host string
	port int
}

var _ Sender = (*SMTP)(nil)

// NewSMTP checks the configuration; it does not connect.
func NewSMTP(cfg SMTPConfig) (*SMTP, error) {
	host, portStr, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("SMTP address %q: want host:port: %w", cfg.Addr, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 1 || port > 65535 {
		return nil, fmt.Errorf("SMTP address %q: bad port", cfg.Addr)
	}
	if cfg.From == "" {
		return nil, errors.New("SMTP: a sender address (From) is required")
	}
	if err := gomail.NewMsg().From(cfg.From); err != nil {
		return nil, fmt.Errorf("SMTP sender address %q: %w", cfg.From, err)
	}
	if cfg.TLS, err = ParseTLSPolicy(string(cfg.TLS)); err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 15 * time.Second
	}
	return &SMTP{cfg: cfg, host: host, port: port}, nil
}

// Send delivers one message.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.cfg.From); err != nil {
		return err
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("recipient %q: %w", m.To, err)
	}
	msg.Subject(m.Subject)
	msg.SetDate()
	msg.SetMessageID()
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)

	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if s.cfg.TLSConfig != nil {
		tlsConfig = s.cfg.TLSConfig.Clone()
	}
	if tlsConfig.ServerName == "" {
		tlsConfig.ServerName = s.host // go-mail only fills it in for its own default config
	}
	opts := []gomail.Option{gomail.WithPort(s.port), gomail.WithTimeout(s.cfg.Timeout), gomail.WithTLSConfig(tlsConfig)}
	switch s.cfg.TLS {
	case ImplicitTLS:
		opts = append(opts, gomail.WithSSL())
	case StartTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	case Opportunistic:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	case NoTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	}
	if s.cfg.Username != "" {
		// auto-discovery picks the strongest mechanism the server offers and, on an unencrypted
		// connection, refuses PLAIN and LOGIN: a password is never sent in the clear
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(s.cfg.Username), gomail.WithPassword(s.cfg.Password))
	}
	client, err := gomail.NewClient(s.host, opts...)
	if err != nil {
		return fmt.Errorf("SMTP client: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("send mail via %s: %w", s.cfg.Addr, err)
	}
	return nil
}
