package serve

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"

	"github.com/hensachi/hensachi/oidc"
)

// listenDebug serves Go's profiles (net/http/pprof) on a listener of their own, so they are never
// on the API's router, and only on a loopback address: a profile shows the process's internals
// and costs CPU while it is taken. The caller closes the listener.
func listenDebug(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !oidc.IsLoopback(host) {
		return nil, fmt.Errorf("debug address %q is not a loopback address (127.0.0.1, ::1 or localhost)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() {
		if err := http.Serve(ln, mux); err != nil && !errors.Is(err, net.ErrClosed) {
			slog.Error("debug listener", "err", err)
		}
	}()
	slog.Info("profiles", "url", "http://"+ln.Addr().String()+"/debug/pprof/")
	return ln, nil
}
