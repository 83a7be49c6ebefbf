package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store/storetest"
)

// demoServer runs "serve --demo" in process on port 0 with a fast simulated world and returns
// its URL, key and database; it stops when the test ends.
func demoServer(t testing.TB, dsn string, args ...string) (url, key string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--demo", "--addr", "127.0.0.1:0", "--admin-addr", "off", "--db", dsn,
			"--sim-speed", "5000", "--retry-scale", "0.0001", "--webhook-allow-private", "--log-level", "warn"}, args...),
			func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	url, key = readDemo(t, pr)
	go io.Copy(io.Discard, pr)
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("serve did not stop")
		}
	})
	return url, key
}

// tty stands in for a terminal on stdin or stdout.
type tty struct{ io.Reader }

func (tty) IsTerminal() bool { return true }

type ttyOut struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *ttyOut) Write(p []byte) (int, error) { w.mu.Lock(); defer w.mu.Unlock(); return w.b.Write(p) }
func (w *ttyOut) IsTerminal() bool            { return true }

// cli runs a client command against url with key, with stdin and stdout as given.
func cli(t *testing.T, url, key string, stdin io.Reader, stdout io.Writer, args ...string) (string, error) {
	t.Helper()
	env := map[string]string{"BOXWATCH_URL": url, "BOXWATCH_KEY": key}
	var errb bytes.Buffer
	err := run(context.Background(), args, func(k string) string { return env[k] }, stdin, stdout, &errb)
	return errb.String(), err
}

// cliOut runs a client command with no terminal and returns its stdout.
func cliOut(t *testing.T, url, key string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	stderr, err := cli(t, url, key, strings.NewReader(""), &out, args...)
	if err != nil {
		t.Logf("boxwatch %s: stderr %s", strings.Join(args, " "), stderr)
	}
	return out.String(), err
}

func wantExit(t *testing.T, what string, err error, code int) {
	t.Helper()
	var ee exitError
	if !errors.As(err, &ee) || ee.code != code {
		t.Fatalf("%s: err = %v (%T), want exit code %d", what, err, err, code)
	}
}

func TestTrackAndRead(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		url, key := demoServer(t, b.DSN(t))

		// Carrier and type inferred; JSON for scripts; progress on stderr.
		var out bytes.Buffer
		stderr, err := cli(t, url, key, strings.NewReader(""), &out, "track", "MAEU123456784", "--json", "--ref", "PO-9", "--poll", "50ms")
		if err != nil {
			t.Fatalf("track: %v\n%s", err, stderr)
		}
		var got struct {
			TrackingRequest struct {
				Status, SCAC string
				RequestType  string `json:"request_type"`
			} `json:"tracking_request"`
			Shipment *struct {
				Containers []struct{ Number string } `json:"containers"`
			} `json:"shipment"`
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("track --json printed no JSON: %v\n%s", err, out.String())
		}
		if got.TrackingRequest.Status != "created" || got.TrackingRequest.SCAC != "MAEU" || got.TrackingRequest.RequestType != "bill_of_lading" ||
			got.Shipment == nil || len(got.Shipment.Containers) == 0 {
			t.Fatalf("track --json = %s", out.String())
		}
		if !strings.Contains(stderr, "carrier: MAEU") || !strings.Contains(stderr, "pending") {
			t.Fatalf("track progress on stderr = %q", stderr)
		}
		box := got.Shipment.Containers[0].Number

		// Tracking it again follows the live request instead of failing as a duplicate.
		text, err := cliOut(t, url, key, "track", "maeu123456784", "--scac", "MAEU", "--type", "bill_of_lading")
		if err != nil || !strings.Contains(text, "already tracked") || !strings.Contains(text, "Shipment MAEU123456784") || !strings.Contains(text, box) {
			t.Fatalf("track again: %v\n%s", err, text)
		}

		text, err = cliOut(t, url, key, "shipments", "--q", "po-9")
		if err != nil || !strings.Contains(text, "MAEU123456784") || !strings.Contains(text, "page 1 of 1, 1 shipments") {
			t.Fatalf("shipments --q: %v\n%s", err, text)
		}
		text, err = cliOut(t, url, key, "shipments", "--q", "nothing-like-it")
		if err != nil || text != "no shipments\n" {
			t.Fatalf("shipments with no match: %v %q", err, text)
		}

		text, err = cliOut(t, url, key, "container", strings.ToLower(box))
		if err != nil || !strings.HasPrefix(text, "Container "+box) || !strings.Contains(text, "Events") || !strings.Contains(text, "container.transport.") {
			t.Fatalf("container: %v\n%s", err, text)
		}
		if _, err := cliOut(t, url, key, "container", "ZZZU0000000"); err == nil || !strings.Contains(err.Error(), "no container ZZZU0000000") {
			t.Fatalf("unknown container: %v", err)
		}

		t.Run("Map", func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "map.geojson")
			if _, err := cliOut(t, url, key, "map", box, "-o", file); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(file)
			var fc struct{ Type string }
			if err != nil || json.Unmarshal(raw, &fc) != nil || fc.Type != "FeatureCollection" {
				t.Fatalf("map file: %v %s", err, raw)
			}
		})
	})
}

func TestTrackChoosesTheCarrier(t *testing.T) {
	t.Parallel()
	// Retries wait long enough (half a second, then one) for the follower to see them.
	url, key := demoServer(t, storetest.SQLite.DSN(t), "--retry-scale", "0.1")

	// A bare number needs a choice: without a terminal it fails and says what to give.
	_, err := cliOut(t, url, key, "track", "123456789012")
	wantExit(t, "no terminal", err, exitNeedsCarrier)
	if !strings.Contains(err.Error(), "EGLV") || !strings.Contains(err.Error(), "--scac") {
		t.Fatalf("no terminal: %v", err)
	}

	// On a terminal it asks; a wrong answer is asked again. The spinner draws on the terminal.
	out := &ttyOut{}
	stderr, err := cli(t, url, key, tty{strings.NewReader("7\nEGLV\n")}, out, "track", "123456789012", "--poll", "50ms")
	if err != nil {
		t.Fatalf("track on a terminal: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "1) EGLV") || !strings.Contains(stderr, `"7" is not one of the choices`) {
		t.Fatalf("the question: %q", stderr)
	}
	if s := out.b.String(); !strings.Contains(s, "\r\x1b[K") || !strings.Contains(s, "Shipment 123456789012") {
		t.Fatalf("terminal output: %q", s)
	}

	// Another SCAC may be typed; a number with no candidate asks for the SCAC, and refuses what is none.
	var typed bytes.Buffer
	stderr, err = cli(t, url, key, tty{strings.NewReader("oney\n")}, &typed, "track", "CMDU123456789", "--type", "bill_of_lading", "--no-wait")
	if err != nil || !strings.Contains(stderr, "1) CMDU") || !strings.Contains(typed.String(), "created for ONEY CMDU123456789") {
		t.Fatalf("typed SCAC: %v\n%s%s", err, stderr, typed.String())
	}
	if _, err := cli(t, url, key, tty{strings.NewReader("not a scac\n")}, io.Discard, "track", "ZZZZZZ", "--type", "booking_number", "--no-wait"); err == nil || !strings.Contains(err.Error(), "is not a SCAC") {
		t.Fatalf("no candidate, bad answer: %v", err)
	}

	// Without a terminal, progress is one plain line per state: the retry example shows its retries.
	text, err := cliOut(t, url, key, "track", "HLCUHAM260549999", "--poll", "50ms")
	if err != nil {
		t.Fatalf("retry example: %v\n%s", err, text)
	}
	if strings.Contains(text, "\r") || !strings.Contains(text, "retrying: the carrier could not be reached") || !strings.Contains(text, "Shipment HLCUHAM260549999") {
		t.Fatalf("retry example output:\n%s", text)
	}
	if strings.Contains(text, "tracking  stopped") {
		t.Fatalf("the retry example must stay a live journey:\n%s", text)
	}

	// The simulated carriers refuse what fits none of their formats: a container number as a bill.
	text, err = cliOut(t, url, key, "track", "MSCU1234566", "--scac", "MSCU", "--type", "bill_of_lading")
	wantExit(t, "container number as a bill", err, exitTrackingFailed)
	if !strings.Contains(err.Error(), "invalid_number") {
		t.Fatalf("container number as a bill: %v\n%s", err, text)
	}
	// An unknown container fails at once with not_found.
	_, err = cliOut(t, url, key, "track", "MSCU0040000", "--scac", "MSCU", "--type", "container")
	if err == nil || !strings.Contains(err.Error(), "not_found") {
		t.Fatalf("unknown container: %v", err)
	}
	// --no-wait returns the pending request.
	text, err = cliOut(t, url, key, "track", "MEDUAB123458", "--scac", "MSCU", "--no-wait")
	if err != nil || !strings.Contains(text, "is pending") {
		t.Fatalf("--no-wait: %v\n%s", err, text)
	}
}

func TestInferAndWebhooks(t *testing.T) {
	t.Parallel()
	url, key := demoServer(t, storetest.SQLite.DSN(t))
	text, err := cliOut(t, url, key, "infer", "MSCU 123456-6")
	if err != nil || !regexp.MustCompile(`decision  auto_select\nSCAC +SHIPPING LINE +CONFIDENCE\nMSCU +Mediterranean Shipping Company +0\.970\n$`).MatchString(text) {
		t.Fatalf("infer: %v\n%s", err, text)
	}
	text, err = cliOut(t, url, key, "infer", "TGHU1234560", "--json")
	if err != nil || !strings.Contains(text, `"decision": "no_prediction"`) {
		t.Fatalf("infer --json: %v\n%s", err, text)
	}
	if _, err := cliOut(t, url, key, "infer", strings.Repeat("9", 41)); err == nil || !strings.Contains(err.Error(), "at most 40") {
		t.Fatalf("infer of a long number: %v", err)
	}

	// A port nothing listens on: deliveries are refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hook := "http://" + ln.Addr().String() + "/hook"
	ln.Close()
	text, err = cliOut(t, url, key, "webhooks", "add", hook, "--event", "tracking_request.succeeded,tracking_request.failed", "--header", "X-Team=ops")
	m := regexp.MustCompile(`^webhook ([0-9a-f-]{36}) created for ` + regexp.QuoteMeta(hook) + `\n`).FindStringSubmatch(text)
	if err != nil || m == nil {
		t.Fatalf("webhooks add: %v\n%s", err, text)
	}
	id := m[1]
	text, err = cliOut(t, url, key, "webhooks", "list")
	if err != nil || !strings.Contains(text, id) || !strings.Contains(text, "tracking_request.succeeded,tracking_request.failed") {
		t.Fatalf("webhooks list: %v\n%s", err, text)
	}
	if _, err := cliOut(t, url, key, "track", "TEST-TR-SUCCEEDED", "--scac", "TEST", "--type", "bill_of_lading"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		text, err = cliOut(t, url, key, "webhooks", "deliveries", id)
		if err != nil {
			t.Fatal(err)
		}
		// The delivery is refused and the log says so.
		if strings.Contains(text, "tracking_request.succeeded") && strings.Contains(text, "refused") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhooks deliveries:\n%s", text)
		}
		time.Sleep(100 * time.Millisecond)
	}
	notification := strings.Fields(strings.Split(text, "\n")[1])[0]
	if text, err := cliOut(t, url, key, "webhooks", "redeliver", notification); err != nil || !strings.Contains(text, "queued for delivery again") {
		t.Fatalf("webhooks redeliver: %v\n%s", err, text)
	}
	if text, err := cliOut(t, url, key, "webhooks", "rm", id); err != nil || text != "webhook "+id+" deleted\n" {
		t.Fatalf("webhooks rm: %v %q", err, text)
	}
	if _, err := cliOut(t, url, key, "webhooks", "rm", id); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("webhooks rm twice: %v", err)
	}
	if _, err := cliOut(t, url, "bw_0000000000000000_00000000000000000000000000000000", "shipments"); err == nil || !strings.Contains(err.Error(), "refused the API key") {
		t.Fatalf("wrong key: %v", err)
	}
}

func TestClientUsageErrors(t *testing.T) {
	t.Parallel()
	const url, key = "http://127.0.0.1:1", "bw_0000000000000000_00000000000000000000000000000000"
	for name, args := range map[string][]string{
		"TrackNoNumber":        {"track"},
		"TrackTwoNumbers":      {"track", "A1", "B2"},
		"TrackBlank":           {"track", "  "},
		"TrackBadType":         {"track", "MAEU123456784", "--type", "parcel"},
		"TrackBadTimeout":      {"track", "MAEU123456784", "--timeout", "-1s"},
		"TrackBadPoll":         {"track", "MAEU123456784", "--poll", "1ns"},
		"ShipmentsBadStopped":  {"shipments", "--stopped", "maybe"},
		"ShipmentsBadSize":     {"shipments", "--size", "1000"},
		"ShipmentsArgument":    {"shipments", "MAEU"},
		"WebhooksNoVerb":       {"webhooks"},
		"WebhooksUnknownVerb":  {"webhooks", "frobnicate"},
		"WebhooksAddNoEvent":   {"webhooks", "add", "https://example.com/hook"},
		"WebhooksAddBadHeader": {"webhooks", "add", "https://example.com/hook", "--event", "x", "--header", "novalue"},
		"MapNoContainer":       {"map"},
		"InferUnknownFlag":     {"infer", "X", "--colour"},
		"VersionArgument":      {"version", "now"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := cli(t, url, key, strings.NewReader(""), io.Discard, args...)
			if _, ok := err.(usageError); !ok {
				t.Fatalf("err = %v (%T), want a usage error", err, err)
			}
		})
	}
	// No key, a bad URL, and a service that is not there.
	for name, env := range map[string]map[string]string{
		"NoKey":  {"BOXWATCH_URL": url},
		"BadURL": {"BOXWATCH_URL": "127.0.0.1:8080", "BOXWATCH_KEY": key},
	} {
		t.Run(name, func(t *testing.T) {
			err := run(context.Background(), []string{"shipments"}, func(k string) string { return env[k] }, strings.NewReader(""), io.Discard, io.Discard)
			if _, ok := err.(usageError); !ok {
				t.Fatalf("err = %v (%T), want a usage error", err, err)
			}
		})
	}
	_, err := cli(t, url, key, strings.NewReader(""), io.Discard, "shipments")
	if err == nil || !strings.Contains(err.Error(), "is boxwatch running there?") {
		t.Fatalf("no service: %v", err)
	}
}

func TestPrintableEscapesControls(t *testing.T) {
	for in, want := range map[string]string{
		"Maersk":             "Maersk",
		"\x1b[2J\x1b[31mred": `\x1b[2J\x1b[31mred`,
		"a\tb\nc":            `a\x09b\x0ac`,
		"São Paulo":          "São Paulo",
		"\u009b31m":          `\x9b31m`,
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestVersion(t *testing.T) {
	out, _, err := runCmd(t, nil, "version")
	if err != nil || !regexp.MustCompile(`^boxwatch \S+.*, go1\.\d+`).MatchString(out) {
		t.Fatalf("version: %q, %v", out, err)
	}
}

// The README's quick start shows the very commands serve --demo prints, for the default address.
func TestREADMEShowsTheDemoCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := "KEY=bw_...   # the key printed by make run\n" + demoCommands("http://127.0.0.1:8080")
	if !strings.Contains(string(readme), block) {
		t.Fatalf("README.md does not show the demo commands as serve --demo prints them:\n%s", block)
	}
}

// A hostile or broken service: its text cannot drive the terminal, and what cannot be read is
// an error that says so.
func TestHostileService(t *testing.T) {
	t.Parallel()
	answers := map[string]string{
		"/v2/tracking_requests/infer_number": `{"data":{"id":"x","type":"infer_number_results","attributes":{"number_type":"container","validation":{"parsed_number":"AB\u001b[2J"},"shipping_line":{"decision":"needs_confirmation","candidates":[{"scac":"EVIL","name":"\u001b]0;pwned\u0007Evil\nLine","confidence":0.5}]}}}}`,
		"/v2/shipments":                      `<html>not json</html>`,
		"/v2/webhooks":                       `{"data":[{"id":"w","type":"tracking_request","attributes":{}}],"meta":{"pagination":{"last":1}}}`,
		"/v2/containers/01a20c26-45c9-7f28-955f-28e61fadf61c": `{"errors":[{"status":"500","title":"Internal Server Error","code":"internal"}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := answers[r.URL.Path]
		if !ok {
			w.WriteHeader(404)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/v2/containers/") {
			w.Header().Set("X-Request-Id", "req-42")
			w.WriteHeader(500)
		}
		w.Write([]byte(body))
	}))
	defer srv.Close()
	const key = "bw_0000000000000000_00000000000000000000000000000000"

	out, err := cliOut(t, srv.URL, key, "infer", "AB")
	if err != nil || strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `\x1b]0;pwned\x07Evil\x0aLine`) || !strings.Contains(out, `AB\x1b[2J`) {
		t.Fatalf("infer from a hostile service: %v\n%q", err, out)
	}
	// Not a terminal: the choice is refused, and the hostile name does not reach the message raw.
	_, err = cliOut(t, srv.URL, key, "track", "AB")
	wantExit(t, "track with a hostile candidate", err, exitNeedsCarrier)
	if _, err := cliOut(t, srv.URL, key, "shipments"); err == nil || !strings.Contains(err.Error(), "not a JSON:API document") {
		t.Fatalf("shipments from a broken service: %v", err)
	}
	if _, err := cliOut(t, srv.URL, key, "webhooks", "list"); err == nil || !strings.Contains(err.Error(), `got a "tracking_request" resource, want "webhook"`) {
		t.Fatalf("webhooks list of the wrong type: %v", err)
	}
	if _, err := cliOut(t, srv.URL, key, "container", "01a20c26-45c9-7f28-955f-28e61fadf61c"); err == nil || !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), "request id req-42") {
		t.Fatalf("a 500: %v", err)
	}
}
