package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSlowClientsCutOff runs serve with short --header-timeout and --body-timeout and sends it
// clients that trickle their headers or their body a byte at a time: each is cut off (headers: the
// connection closed; body: a JSON:API 408) long before it would finish, while an ordinary client's
// requests keep being answered.
func TestSlowClientsCutOff(t *testing.T) {
	t.Parallel()
	const timeout = 500 * time.Millisecond
	const trickle = 100 * time.Millisecond
	// A trickler sends a byte per trickle for up to 10 timeouts: the server's default timeouts
	// (10 s) would let it finish.
	const budget = 10 * timeout

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--addr", "127.0.0.1:0", "--admin-addr", "off",
			"--db", filepath.Join(t.TempDir(), "boxwatch.db"), "--workers", "0",
			"--header-timeout", timeout.String(), "--body-timeout", timeout.String()},
			func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	url, key := readDemo(t, pr)
	go io.Copy(io.Discard, pr)
	addr := strings.TrimPrefix(url, "http://")

	// cutOff trickles what follows head a byte at a time and returns how long the server took to
	// answer or close the connection, and what it answered; ok is false when the trickle ran to
	// its end first.
	cutOff := func(head string) (took time.Duration, answer string, ok bool) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Error(err)
			return 0, "", false
		}
		defer conn.Close()
		closed := make(chan string, 1)
		go func() {
			b, _ := io.ReadAll(conn) // until the server answers and closes, or just closes
			closed <- string(b)
		}()
		start := time.Now()
		if _, err := io.WriteString(conn, head); err != nil {
			t.Error(err)
			return 0, "", false
		}
		for time.Since(start) < budget {
			select {
			case answer := <-closed:
				return time.Since(start), answer, true
			case <-time.After(trickle):
				conn.Write([]byte("a")) // fails once the server has closed: the read above reports it
			}
		}
		return time.Since(start), "", false
	}

	const headerTricklers, bodyTricklers = 20, 5
	var wg sync.WaitGroup
	var mu sync.Mutex
	var headerTimes, bodyTimes []time.Duration
	for range headerTricklers {
		wg.Go(func() {
			took, answer, ok := cutOff("GET /v2/shipping_lines HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Token " + key + "\r\nX-Slow: ")
			if !ok {
				t.Errorf("a client trickling its headers was not cut off within %v", budget)
				return
			}
			if strings.HasPrefix(answer, "HTTP/1.1 2") {
				t.Errorf("a client trickling its headers was answered: %q", answer)
			}
			mu.Lock()
			headerTimes = append(headerTimes, took)
			mu.Unlock()
		})
	}
	for range bodyTricklers {
		wg.Go(func() {
			took, answer, ok := cutOff("POST /v2/tracking_requests HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Token " + key +
				"\r\nContent-Type: application/vnd.api+json\r\nContent-Length: 1000\r\n\r\n{")
			if !ok {
				t.Errorf("a client trickling its body was not cut off within %v", budget)
				return
			}
			res, err := http.ReadResponse(bufio.NewReader(strings.NewReader(answer)), nil)
			if err != nil {
				t.Errorf("a client trickling its body got %q: %v", answer, err)
				return
			}
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusRequestTimeout || res.Header.Get("Content-Type") != "application/vnd.api+json" || !strings.Contains(string(body), `"request_timeout"`) {
				t.Errorf("a client trickling its body got %d %s, want a JSON:API 408", res.StatusCode, body)
			}
			mu.Lock()
			bodyTimes = append(bodyTimes, took)
			mu.Unlock()
		})
	}

	// Meanwhile an ordinary client is served.
	client := &http.Client{Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	var served []time.Duration
	for range 50 {
		req, _ := http.NewRequest("GET", url+"/v2/shipping_lines", nil)
		req.Header.Set("Authorization", "Token "+key)
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("an ordinary client beside the slow ones: %v", err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("an ordinary client beside the slow ones: status %d", res.StatusCode)
		}
		served = append(served, time.Since(start))
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	slices.Sort(served)
	slices.Sort(headerTimes)
	slices.Sort(bodyTimes)
	last := func(d []time.Duration) string {
		if len(d) == 0 {
			return "none"
		}
		return d[len(d)-1].Round(time.Millisecond).String()
	}
	t.Logf("timeouts %v: %d header tricklers cut off after at most %s, %d body tricklers after at most %s; an ordinary client's 50 requests meanwhile: p50 %v, max %v",
		timeout, len(headerTimes), last(headerTimes), len(bodyTimes), last(bodyTimes),
		served[len(served)/2].Round(time.Microsecond), served[len(served)-1].Round(time.Microsecond))

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
}
