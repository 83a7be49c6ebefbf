package api

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/boxwatch/boxwatch"
)

// fallback answers unknown paths with 404 and known paths with the wrong method with 405, both as
// JSON:API errors (ServeMux alone would answer in plain text). fixed holds the methods of every
// path without a wildcard: such a path asked with another method is a 405 even when a route with
// an id would match it (GET /v2/webhooks/trigger is not a webhook called "trigger").
func (s *server) fallback(mux *http.ServeMux, fixed map[string][]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if methods, ok := fixed[r.URL.Path]; ok && !allows(methods, r.Method) {
			allow := slices.Clone(methods)
			if slices.Contains(allow, http.MethodGet) {
				allow = append(allow, http.MethodHead)
			}
			s.methodNotAllowed(w, r, allow)
			return
		}
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r) // sets the path values that mux.Handler does not
			return
		}
		probe := &statusProbe{header: http.Header{}}
		h.ServeHTTP(probe, r)
		if probe.status == http.StatusMethodNotAllowed {
			s.methodNotAllowed(w, r, probe.header.Values("Allow"))
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

// allows reports whether a route's methods serve a request's; GET serves HEAD as ServeMux does.
func allows(methods []string, method string) bool {
	return slices.Contains(methods, method) || method == http.MethodHead && slices.Contains(methods, http.MethodGet)
}

func (s *server) methodNotAllowed(w http.ResponseWriter, r *http.Request, allow []string) {
	list := strings.Join(allow, ", ")
	s.writeError(w, r, &httpError{status: http.StatusMethodNotAllowed, code: boxwatch.CodeMethodNotAllowed,
		detail: fmt.Sprintf("%s is not allowed here. Allowed: %s.", r.Method, list),
		header: http.Header{"Allow": {list}}})
}
