package api

import (
	"fmt"
	"net/http"

	"github.com/boxwatch/boxwatch"
)

// fallback answers unknown paths with 404 and known paths with the wrong method with 405, both as
// JSON:API errors (ServeMux alone would answer in plain text).
func (s *server) fallback(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r) // sets the path values that mux.Handler does not
			return
		}
		probe := &statusProbe{header: http.Header{}}
		h.ServeHTTP(probe, r)
		if probe.status == http.StatusMethodNotAllowed {
			s.writeError(w, r, &httpError{status: http.StatusMethodNotAllowed, code: boxwatch.CodeMethodNotAllowed,
				detail: fmt.Sprintf("%s is not allowed here. Allowed: %s.", r.Method, probe.header.Get("Allow")),
				header: http.Header{"Allow": probe.header.Values("Allow")}})
			return
		}
		s.writeError(w, r, &httpError{status: http.StatusNotFound, code: boxwatch.CodeRouteNotFound,
			detail: fmt.Sprintf("No endpoint at %s.", r.URL.Path)})
	})
}

// statusProbe records what ServeMux's own 404 or 405 handler would send, and discards the body.
type statusProbe struct {
	header http.Header
	status int
}

func (p *statusProbe) Header() http.Header         { return p.header }
func (p *statusProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *statusProbe) WriteHeader(status int)      { p.status = status }
