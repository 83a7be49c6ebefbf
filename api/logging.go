package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/boxwatch/boxwatch/store"
)

// observe gives each request an id, recovers panics as 500s, and logs and counts each request.
func (s *server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &requestInfo{id: requestID(r)}
		// The store runs a request's statements on the requests' own connections.
		r = r.WithContext(store.ForRequest(context.WithValue(r.Context(), ctxRequestInfo, ri)))
		rec := &recorder{ResponseWriter: w}
		rec.Header().Set("X-Request-Id", ri.id)
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.ErrorContext(r.Context(), "panic", "request_id", ri.id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if !rec.wrote {
					s.writeError(rec, r, fmt.Errorf("panic: %v", p))
				}
			}
			elapsed := time.Since(start)
			route := ri.route
			if route == "" {
				route = "unmatched"
			}
			s.metrics.observe(r.Method, route, rec.status, elapsed)
			s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("request_id", ri.id),
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.String("route", route),
				slog.Int("status", rec.status),
				slog.Int64("bytes", rec.bytes),
				slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
				slog.String("account_id", ri.account.ID),
				slog.String("remote", r.RemoteAddr),
			)
		}()
		next.ServeHTTP(rec, r)
	})
}

// requestID keeps a caller's X-Request-Id when it is short and plain, or makes a new one.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 64 && plainToken(id) {
		return id
	}
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func plainToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
}

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.status, r.wrote = http.StatusOK, true
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection, for the body deadline.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
