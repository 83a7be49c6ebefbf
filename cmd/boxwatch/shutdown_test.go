package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestServeLeavesNoGoroutine runs serve with its simulator, job workers and webhook deliveries
// busy, stops it, and checks that every goroutine it started has ended once run returns: the
// listeners, the workers, the dispatcher, the rate-limit sweeper (PostgreSQL), the AIS feeds, the
// simulator and the outbound clients' idle connections.
func TestServeLeavesNoGoroutine(t *testing.T) {
	storetest.ForEachInTurn(t, func(t *testing.T, b storetest.Backend) {
		dsn := b.DSN(t)
		var delivered atomic.Int32
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			delivered.Add(1)
		}))
		client := &http.Client{Transport: &http.Transport{}}
		// An AIS feed that is down: its source keeps reconnecting until serve stops.
		down, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		down.Close()
		before := goleak.IgnoreCurrent()

		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"serve", "--demo", "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0", "--db", dsn,
				"--webhook-allow-private", "--sim-speed", "1000", "--ais", "udp://127.0.0.1:0", "--ais", "tcp://" + down.Addr().String()}, func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
			pw.Close()
		}()
		url, key := readDemo(t, pr)
		go io.Copy(io.Discard, pr)

		call := func(method, path, body string) map[string]any {
			t.Helper()
			req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Token "+key)
			req.Header.Set("Content-Type", "application/vnd.api+json")
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var doc map[string]any
			if err := json.NewDecoder(res.Body).Decode(&doc); err != nil || res.StatusCode >= 300 {
				t.Fatalf("%s %s: %d %v %v", method, path, res.StatusCode, doc, err)
			}
			return doc
		}
		call("POST", "/v2/webhooks", `{"data":{"type":"webhook","attributes":{"url":"`+receiver.URL+`","active":true,"events":["tracking_request.succeeded"]}}}`)
		doc := call("POST", "/v2/tracking_requests", `{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":"TEST-TR-SUCCEEDED","scac":"TEST"}}}`)
		id := doc["data"].(map[string]any)["id"].(string)
		deadline := time.Now().Add(30 * time.Second)
		for {
			status := call("GET", "/v2/tracking_requests/"+id, "")["data"].(map[string]any)["attributes"].(map[string]any)["status"]
			if status == "created" && delivered.Load() > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after 30s: status %v, %d deliveries", status, delivered.Load())
			}
			time.Sleep(20 * time.Millisecond) // polling the API for the lookup and the delivery
		}

		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("serve returned %v after shutdown", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("serve did not stop after its context was cancelled")
		}
		client.CloseIdleConnections()
		receiver.Close()
		goleak.VerifyNone(t, before)
	})
}

// readDemo reads serve --demo's output up to the key and returns the API's URL and the key.
func readDemo(t testing.TB, r io.Reader) (url, key string) {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() && key == "" {
		line := sc.Text()
		if m := regexp.MustCompile(`serving the API at (http://\S+)`).FindStringSubmatch(line); m != nil {
			url = m[1]
		}
		if m := regexp.MustCompile(`^\s+(bw_[0-9a-f_]+)$`).FindStringSubmatch(line); m != nil {
			key = m[1]
		}
	}
	if url == "" || key == "" {
		t.Fatalf("serve --demo printed no URL or key (url %q)", url)
	}
	return url, key
}
