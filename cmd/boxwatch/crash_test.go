package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// buildBinary compiles boxwatch once per test run.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "boxwatch")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// process is a running boxwatch serve.
type process struct {
	cmd      *exec.Cmd
	url, key string

	mu  sync.Mutex
	log []string // the lines it has written to stderr so far
}

// startServe runs "boxwatch serve --demo" with extra flags and waits for its URL and demo key.
// The process is killed when the test ends if it is still running.
func startServe(t *testing.T, bin, dsn string, flags ...string) *process {
	t.Helper()
	args := append([]string{"serve", "--demo", "--addr", "127.0.0.1:0", "--admin-addr", "off", "--db", dsn, "--job-timeout", "2s", "--retry-scale", "0.001"}, flags...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "BOXWATCH_LOG_LEVEL=debug")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd}
	go p.record(stderr)
	t.Cleanup(func() { p.kill() })
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && p.key == "" {
		if m := regexp.MustCompile(`serving the API at (http://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			p.url = m[1]
		}
		if m := regexp.MustCompile(`^\s+(bw_[0-9a-f_]+)$`).FindStringSubmatch(sc.Text()); m != nil {
			p.key = m[1]
		}
	}
	go io.Copy(io.Discard, stdout)
	if p.url == "" || p.key == "" {
		t.Fatalf("serve %v printed no URL or key", flags)
	}
	return p
}

// record keeps every line the process writes to r until r ends.
func (p *process) record(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		p.mu.Lock()
		p.log = append(p.log, sc.Text())
		p.mu.Unlock()
	}
	io.Copy(io.Discard, r)
}

// waitLog waits until the process has logged a line containing each of the parts.
func (p *process) waitLog(t *testing.T, parts ...string) {
	t.Helper()
	trackingtest.Eventually(t, 30*time.Second, fmt.Sprintf("the process never logged %q", parts), func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
	lines:
		for _, line := range p.log {
			for _, part := range parts {
				if !strings.Contains(line, part) {
					continue lines
				}
			}
			return true
		}
		return false
	})
}

// kill ends the process at once, as a crash or an OOM kill would: no shutdown code runs.
func (p *process) kill() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.cmd.Wait()
	}
}

func (p *process) request(t *testing.T, method, path, body string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(method, p.url+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Token "+p.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/vnd.api+json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc map[string]any
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return doc
}

func attr(doc map[string]any, name string) any {
	return doc["data"].(map[string]any)["attributes"].(map[string]any)[name]
}

// TestCrashBeforeLookup kills the process between accepting a tracking request and looking it
// up: once on an API-only replica (the lookup was never started) and once in the middle of the
// carrier call (the job was running). After a restart the request completes, once.
func TestCrashBeforeLookup(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and kills the binary; skipped with -short")
	}
	bin := buildBinary(t)
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		for _, tc := range []struct {
			name      string
			flags     []string
			midLookup bool // killed while the worker waits on the carrier
		}{
			{"Enqueued", []string{"--workers", "0"}, false},
			{"MidLookup", []string{"--sim-latency", "1h"}, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				dsn := b.DSN(t)
				first := startServe(t, bin, dsn, tc.flags...)
				doc := first.request(t, "POST", "/v2/tracking_requests",
					`{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":"MAEU123456784","scac":"MAEU"}}}`)
				id := doc["data"].(map[string]any)["id"].(string)
				if tc.midLookup {
					first.waitLog(t, "carrier lookup started", id)
				}
				first.kill()

				// The killed process's job is taken up once its lease (here the 2 s job timeout)
				// lapses; docs/api.md ("Lifecycle") promises under a minute with the default lease of 15 s.
				second := startServe(t, bin, dsn)
				trackingtest.Eventually(t, time.Minute, "the request did not complete within the recovery window after the restart", func() bool {
					return attr(second.request(t, "GET", "/v2/tracking_requests/"+id, ""), "status") == "created"
				})
				list := second.request(t, "GET", "/v2/shipments", "")
				if total := list["meta"].(map[string]any)["total"]; total != float64(1) {
					t.Fatalf("%v shipments after the crash, want exactly 1", total)
				}
				checkLogLines(t, second)
			})
		}
	})
}

// TestCrashMidDelivery kills the process while a webhook delivery is in flight (the receiver is
// still reading it). After a restart the notification is delivered, with the same webhook-id.
func TestCrashMidDelivery(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and kills the binary; skipped with -short")
	}
	bin := buildBinary(t)
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		var mu sync.Mutex
		var ids []string
		hung := make(chan struct{})
		release := make(chan struct{})
		receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			ids = append(ids, r.Header.Get("webhook-id"))
			first := len(ids) == 1
			mu.Unlock()
			if first {
				close(hung)
				select { // the first delivery never gets an answer from this receiver
				case <-release:
				case <-r.Context().Done():
				}
				return
			}
			w.WriteHeader(http.StatusOK)
		}))
		defer receiver.Close()
		defer close(release)

		dsn := b.DSN(t)
		// A claim lasts the receiver timeout plus the job timeout (2s): 7 s here.
		flags := []string{"--webhook-allow-private", "--webhook-timeout", "5s"}
		first := startServe(t, bin, dsn, flags...)
		first.request(t, "POST", "/v2/webhooks", `{"data":{"type":"webhook","attributes":{"url":"`+receiver.URL+`/hook","events":["tracking_request.succeeded"]}}}`)
		first.request(t, "POST", "/v2/tracking_requests",
			`{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":"TEST-TR-SUCCEEDED","scac":"TEST"}}}`)
		select {
		case <-hung:
		case <-time.After(30 * time.Second):
			t.Fatal("the delivery never reached the receiver")
		}
		first.kill()

		second := startServe(t, bin, dsn, flags...)
		trackingtest.Eventually(t, 90*time.Second, "the delivery was not resumed after the restart", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(ids) >= 2
		})
		mu.Lock()
		if ids[0] == "" || ids[1] != ids[0] {
			t.Fatalf("webhook-ids %v: the retry must carry the first attempt's id", ids)
		}
		mu.Unlock()
		trackingtest.Eventually(t, 10*time.Second, "the notification is not marked succeeded", func() bool {
			list := second.request(t, "GET", "/v2/webhook_notifications", "")
			data := list["data"].([]any)
			return len(data) == 1 && data[0].(map[string]any)["attributes"].(map[string]any)["delivery_status"] == "succeeded"
		})
	})
}
