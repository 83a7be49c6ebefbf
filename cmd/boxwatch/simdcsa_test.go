package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestServeSimulatesDCSA30: with --sim-dcsa-version 3.0 the simulated carriers answer in Track &
// Trace 3.0 and a tracking request still finds its shipment.
func TestServeSimulatesDCSA30(t *testing.T) {
	dsn := storetest.SQLite.DSN(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--sim-dcsa-version", "3.0", "--addr", "127.0.0.1:0", "--admin-addr", "off", "--db", dsn},
			func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	url, key := readDemo(t, pr)
	go io.Copy(io.Discard, pr)
	call := func(method, path, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Token "+key)
		req.Header.Set("Content-Type", "application/vnd.api+json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var doc struct {
			Data struct {
				ID         string         `json:"id"`
				Attributes map[string]any `json:"attributes"`
			} `json:"data"`
		}
		if err := json.NewDecoder(res.Body).Decode(&doc); err != nil || res.StatusCode >= 300 {
			t.Fatalf("%s %s: %d, %v", method, path, res.StatusCode, err)
		}
		doc.Data.Attributes["id"] = doc.Data.ID
		return doc.Data.Attributes
	}
	created := call("POST", "/v2/tracking_requests",
		`{"data":{"type":"tracking_request","attributes":{"request_type":"booking_number","request_number":"224466885","scac":"MAEU"}}}`)
	deadline := time.Now().Add(20 * time.Second)
	for {
		tr := call("GET", "/v2/tracking_requests/"+created["id"].(string), "")
		if tr["status"] == "created" {
			break
		}
		if tr["status"] != "pending" || time.Now().After(deadline) {
			t.Fatalf("tracking request %v, want it created from a 3.0 answer", tr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}
