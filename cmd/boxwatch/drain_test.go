package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestStopDrainsReadiness stops serve while a load balancer watches /readyz: readiness turns 503
// at once while the API still answers, and only then does the listener close.
func TestStopDrainsReadiness(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"serve", "--demo", "--addr", "127.0.0.1:0", "--admin-addr", "off", "--db", b.DSN(t),
				"--drain-timeout", "3s"}, func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
			pw.Close()
		}()
		url, key := readDemo(t, pr)
		go io.Copy(io.Discard, pr)
		client := &http.Client{Timeout: 10 * time.Second}
		get := func(path string) (int, error) {
			req, _ := http.NewRequest("GET", url+path, nil)
			req.Header.Set("Authorization", "Token "+key)
			res, err := client.Do(req)
			if err != nil {
				return 0, err
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			return res.StatusCode, nil
		}
		if status, err := get("/readyz"); status != 200 || err != nil {
			t.Fatalf("/readyz before the stop: %d %v", status, err)
		}

		stopped := time.Now()
		cancel() // as SIGTERM does
		deadline := time.Now().Add(10 * time.Second)
		for {
			status, err := get("/readyz")
			if err != nil {
				t.Fatalf("/readyz while draining: %v; want 503 before the listener closes", err)
			}
			if status == http.StatusServiceUnavailable {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("/readyz still %d 10s after the stop", status)
			}
			time.Sleep(10 * time.Millisecond) // polling as a load balancer does
		}
		if status, err := get("/v2/shipping_lines"); status != 200 || err != nil {
			t.Errorf("API while draining: %d %v; want still served", status, err)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("serve returned %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("serve did not stop after its drain")
		}
		t.Logf("stopped %v after the signal (drain 3s)", time.Since(stopped).Round(10*time.Millisecond))
		if _, err := get("/readyz"); err == nil {
			t.Error("the listener still answers after serve returned")
		}
	})
}

// TestStopWithoutWatcherSkipsDrain stops serve that nothing checks for readiness: there is no
// load balancer to tell, so even an hour's drain is not waited out.
func TestStopWithoutWatcherSkipsDrain(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--addr", "127.0.0.1:0", "--admin-addr", "off", "--db", t.TempDir() + "/bw.db",
			"--drain-timeout", "1h"}, func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	readDemo(t, pr)
	go io.Copy(io.Discard, pr)
	stopped := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve waited out its drain with no readiness check to tell")
	}
	t.Logf("stopped %v after the signal", time.Since(stopped).Round(10*time.Millisecond))
}
