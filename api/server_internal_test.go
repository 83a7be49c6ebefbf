package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestPanicBecomes500(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := &server{log: slog.New(slog.NewJSONHandler(&logs, nil))}
	h := s.observe(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("secret internal detail: table tracking_requests is on fire")
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	res, err := http.Get(srv.URL + "/v2/anything")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc errorDocument
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	id := res.Header.Get("X-Request-Id")
	if res.StatusCode != 500 || len(doc.Errors) != 1 || doc.Errors[0].Status != "500" || doc.Errors[0].Meta == nil || doc.Errors[0].Meta.RequestID != id {
		t.Fatalf("status %d, body %+v", res.StatusCode, doc)
	}
	if strings.Contains(doc.Errors[0].Detail, "fire") {
		t.Fatalf("panic value leaked: %q", doc.Errors[0].Detail)
	}
	if l := logs.String(); !strings.Contains(l, "on fire") || !strings.Contains(l, id) || !strings.Contains(l, `"status":500`) {
		t.Fatalf("panic not logged with its request id and status:\n%s", l)
	}
}
