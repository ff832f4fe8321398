// Package testsmtp is a real SMTP server for tests (emersion/go-smtp on a loopback port): it
// speaks EHLO, STARTTLS or TLS from the first byte with its own certificate, AUTH PLAIN, MAIL,
// RCPT and DATA, and hands each message it receives to the test.
package testsmtp

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"io"
	"log"
	"math/big"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Mode is how the server offers TLS.
type Mode int

const (
	Plain    Mode = iota // no TLS at all
	StartTLS             // STARTTLS offered on a plain connection
	Implicit             // TLS from the first byte (SMTPS)
)

// Options configure the server. With a Username, AUTH PLAIN is required before MAIL; go-smtp
// offers AUTH only over TLS.
type Options struct {
	Mode               Mode
	Username, Password string
}

// Message is one delivered message.
type Message struct {
	From     string
	To       []string
	Data     []byte
	TLS      bool   // the message came over an encrypted connection
	AuthUser string // who authenticated, "" when nobody did
}

// Server is a running test SMTP server.
type Server struct {
	Host  string
	Port  int
	Roots *x509.CertPool // trusts the server's certificate, for the client's tls.Config
	msgs  chan Message
	opts  Options
}

// Start starts a server on 127.0.0.1; it stops when the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	cert, roots := selfSigned(t)
	s := &Server{Roots: roots, msgs: make(chan Message, 16), opts: opts}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		_, encrypted := c.TLSConnectionState()
		return &session{s: s, tls: encrypted, conn: c}, nil
	}))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.MaxMessageBytes = 1 << 20
	srv.ErrorLog = log.New(io.Discard, "", 0)
	var ln net.Listener
	var err error
	switch opts.Mode {
	case StartTLS:
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	case Implicit:
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
		ln, err = tls.Listen("tcp", "127.0.0.1:0", srv.TLSConfig)
	default:
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	s.Host, s.Port = "127.0.0.1", addr.Port
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// Addr is host:port.
func (s *Server) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// Username is the user a client must log in as, "" when the server asks for no AUTH.
func (s *Server) Username() string { return s.opts.Username }

// Next waits for the next message; it fails the test after the timeout.
func (s *Server) Next(t testing.TB, timeout time.Duration) Message {
	t.Helper()
	select {
	case m := <-s.msgs:
		return m
	case <-time.After(timeout):
		t.Fatalf("no mail arrived within %s", timeout)
		return Message{}
	}
}

// None fails the test if a message arrives within d.
func (s *Server) None(t testing.TB, d time.Duration) {
	t.Helper()
	select {
	case m := <-s.msgs:
		t.Fatalf("unexpected mail to %v: %s", m.To, m.Data)
	case <-time.After(d):
	}
}

// Header returns a decoded header of the message.
func (m Message) Header(name string) string {
	msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		return ""
	}
	v, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get(name))
	if err != nil {
		return msg.Header.Get(name)
	}
	return v
}

// Text returns the body of a single-part message, transfer encoding undone.
func (m Message) Text() (string, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		return "", err
	}
	var r io.Reader = msg.Body
	switch strings.ToLower(msg.Header.Get("Content-Transfer-Encoding")) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, r)
	}
	b, err := io.ReadAll(r)
	return string(b), err
}

type session struct {
	s        *Server
	conn     *smtp.Conn
	tls      bool
	authUser string
	from     string
	to       []string
}

var _ smtp.AuthSession = (*session)(nil)

func (ss *session) AuthMechanisms() []string {
	if ss.s.opts.Username == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (ss *session) Auth(mech string) (sasl.Server, error) {
	if mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != ss.s.opts.Username || password != ss.s.opts.Password {
			return smtp.ErrAuthFailed
		}
		ss.authUser = username
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.s.opts.Username != "" && ss.authUser == "" {
		return smtp.ErrAuthRequired
	}
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.to = append(ss.to, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	// STARTTLS happens after the session is made, so ask the connection now
	_, encrypted := ss.conn.TLSConnectionState()
	m := Message{From: ss.from, To: ss.to, Data: b, TLS: ss.tls || encrypted, AuthUser: ss.authUser}
	select {
	case ss.s.msgs <- m:
		return nil
	default:
		return errors.New("test mailbox full")
	}
}

func (ss *session) Reset()        { ss.from, ss.to = "", nil }
func (ss *session) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and localhost and a pool that trusts it.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "testsmtp"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots
}
