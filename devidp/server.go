package devidp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Server is a Provider listening on a loopback port of its own.
type Server struct {
	*Provider
	URL string
	srv *http.Server
}

// Start serves a provider on 127.0.0.1 at a port the system picks; cfg.Issuer is set to its URL.
// It listens on loopback only: the browser that logs in runs on the same machine.
func Start(cfg Config) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("devidp: %w", err)
	}
	cfg.Issuer = "http://" + ln.Addr().String()
	p, err := New(cfg)
	if err != nil {
		ln.Close()
		return nil, err
	}
	s := &Server{Provider: p, URL: cfg.Issuer, srv: &http.Server{Handler: p, ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second, IdleTimeout: time.Minute,
		ErrorLog: slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn)}}
	go func() {
		if err := s.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			slog.Error("development identity provider stopped", "err", err)
		}
	}()
	return s, nil
}

// Close stops serving, letting requests in flight finish for up to a few seconds.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}
