package serve

import (
	"net"
	"net/http"
	"net/http/httptest"

	"github.com/julienschmidt/httprouter"
)

// What the tests of package serve_test — the server as app.Build wires it, the way cmd/hensachi
// does — need of the package's insides. The tests of those insides alone are in package serve.

// Problem is the problem document the API answers a failure with.
type Problem = problem

// Route is a route the server registered.
type Route struct{ Method, Path string }

// RegisteredRoutes lists the routes s registered, and the preflight of every path other origins
// may call.
func RegisteredRoutes(s *Server) []Route {
	var out []Route
	for _, r := range s.registered {
		out = append(out, Route{r.method, r.path})
	}
	for _, r := range s.registered {
		if corsPath(r.path) {
			out = append(out, Route{http.MethodOptions, r.path})
		}
	}
	return out
}

// NewAPITestServer starts h on a test server whose connections are the API's (apiListener, with
// withConnHooks), after configure (nil: none) has adjusted it, e.g. its limits or its listener.
// The caller closes it.
func NewAPITestServer(h http.Handler, configure func(*httptest.Server)) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	if configure != nil {
		configure(srv)
	}
	srv.Listener = apiListener{srv.Listener}
	withConnHooks(srv.Config)
	srv.Start()
	return srv
}

// ServeAsListenAndServe serves s on ln as ListenAndServe does — its http.Server, with its limits
// and hooks, on the API's listener with the default connection cap — and returns the http.Server
// for the caller to close.
func ServeAsListenAndServe(s *Server, ln net.Listener) *http.Server {
	srv := s.httpServer()
	go serveAPI(srv, newCappedListener(ln, DefaultMaxConns))
	return srv
}

// Instrument is the instrumented handle every route goes through (s.instrument).
func (s *Server) Instrument(route string, h httprouter.Handle) httprouter.Handle {
	return s.instrument(route, h)
}

// ListenDebug listens for the profiles (listenDebug), on loopback only.
func ListenDebug(addr string) (net.Listener, error) { return listenDebug(addr) }
