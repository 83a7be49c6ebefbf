package api

import (
	"context"
	"net/http"
	"time"

	"github.com/boxwatch/boxwatch"
)

type healthDocument struct {
	Status string `json:"status" enum:"ok,unavailable"`
}

func handleHealthz() handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		writeJSON(w, http.StatusOK, healthDocument{Status: "ok"})
		return nil
	}
}

func handleReadyz(st boxwatch.Store) handlerFunc {
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
