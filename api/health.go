package api

import (
	"context"
	"net/http"
	"time"
)

// metaRoutes are the endpoints that need no API key: the OpenAPI document and the health checks.
func (s *server) metaRoutes() []route {
	st := s.cfg.Store
	return []route{
		{
			method: "GET", path: "/v2/openapi.json", tag: "Meta",
			summary: "OpenAPI document",
			doc:     "This document: every endpoint of the API as OpenAPI 3.1. Needs no API key.",
			status:  http.StatusOK, resp: map[string]any{},
			handler: s.handleOpenAPI(),
		},
		{
			method: "GET", path: "/healthz", tag: "Meta",
			summary: "Liveness", doc: "Answers 200 while the process serves requests. Needs no API key.",
			status: http.StatusOK, resp: healthDocument{},
			handler: handleHealthz(),
		},
		{
			method: "GET", path: "/readyz", tag: "Meta",
			summary: "Readiness", doc: "Answers 200 when the database answers, 503 otherwise. Needs no API key.",
			status: http.StatusOK, resp: healthDocument{}, errors: []int{503},
			handler: handleReadyz(st),
		},
	}
}

type healthDocument struct {
	Status string `json:"status" enum:"ok,unavailable"`
}

func handleHealthz() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		writeJSON(w, http.StatusOK, healthDocument{Status: "ok"})
		return nil
	}
}

// pinger tells whether the database answers.
type pinger interface {
	Ping(ctx context.Context) error
}

func handleReadyz(st pinger) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := st.Ping(ctx); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, healthDocument{Status: "unavailable"})
			return nil
		}
		writeJSON(w, http.StatusOK, healthDocument{Status: "ok"})
		return nil
	}
}
