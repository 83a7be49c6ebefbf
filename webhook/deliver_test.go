package webhook_test

import (
	"context"
	"crypto/hmac"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/webhook"
)

// received is one request as a receiver saw it.
type received struct {
	header http.Header
	host   string
	body   []byte
}

// receiver is an endpoint on loopback that records what it is sent and answers with handle.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	requests []received
}

func newReceiver(t *testing.T, handle http.HandlerFunc) *receiver {
	t.Helper()
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.requests = append(r.requests, received{req.Header.Clone(), req.Host, body})
		r.mu.Unlock()
		handle(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) received() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.requests...)
}

// verify checks both signatures of a request the way a receiver would, from the raw body.
func verify(t *testing.T, secret string, got received) {
	t.Helper()
	wantT49 := hex.EncodeToString(hmacSHA256([]byte(secret), string(got.body)))
	if sig := got.header.Get("X-T49-Webhook-Signature"); !hmac.Equal([]byte(sig), []byte(wantT49)) {
		t.Errorf("X-T49-Webhook-Signature = %q, want %q", sig, wantT49)
	}
	key := mustDecode(t, strings.TrimPrefix(secret, "whsec_"))
	signed := got.header.Get("webhook-id") + "." + got.header.Get("webhook-timestamp") + "." + string(got.body)
	wantStd := "v1," + base64.StdEncoding.EncodeToString(hmacSHA256(key, signed))
	if sig := got.header.Get("webhook-signature"); !hmac.Equal([]byte(sig), []byte(wantStd)) {
		t.Errorf("webhook-signature = %q, want %q", sig, wantStd)
	}
}

func mustSecret(t *testing.T) string {
	t.Helper()
	s, err := webhook.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var loopbackClient = webhook.NewClient(webhook.Policy{AllowPrivate: true, Timeout: 5 * time.Second})

func TestDeliverSignsAndSendsHeaders(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "thanks") })
	secret := mustSecret(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	body := []byte(`{"data":{"id":"n-1","type":"webhook_notification","attributes":{"event":"tracking_request.succeeded"}}}`)
	req := webhook.Request{
		URL:            rcv.URL + "/hooks?x=1",
		Secret:         secret,
		NotificationID: "n-1",
		Body:           body,
		Now:            now,
		Headers: []boxwatch.WebhookHeader{
			{Name: "x-secret-sauce", Value: "sriracha"},
			{Name: "Authorization", Value: "Bearer abc"},
			{Name: "X-Multi", Value: "one"}, {Name: "X-Multi", Value: "two"},
			// None of these may replace what boxwatch sets.
			{Name: "X-T49-Webhook-Signature", Value: "forged"},
			{Name: "webhook-id", Value: "other"},
			{Name: "Webhook-Timestamp", Value: "1"},
			{Name: "webhook-signature", Value: "v1,forged"},
			{Name: "content-type", Value: "text/plain"},
			{Name: "User-Agent", Value: "evil"},
			{Name: "Host", Value: "evil.example"},
			{Name: "Content-Length", Value: "3"},
			{Name: "Transfer-Encoding", Value: "chunked"},
			{Name: "X-Bad\r\nInjected", Value: "x"},
			{Name: "X-Bad-Value", Value: "a\r\nInjected: x"},
		},
	}
	a := webhook.Deliver(context.Background(), loopbackClient, req)
	if a.Outcome != webhook.Succeeded || a.StatusCode != 200 || a.Err != "" || a.ResponseSnippet != "thanks" {
		t.Fatalf("attempt = %+v, want a success answered with thanks", a)
	}
	if !a.At.Equal(now) || a.Latency <= 0 {
		t.Errorf("At = %v, Latency = %v; want %v and a positive latency", a.At, a.Latency, now)
	}
	got := rcv.received()
	if len(got) != 1 {
		t.Fatalf("receiver saw %d requests, want 1", len(got))
	}
	r := got[0]
	verify(t, secret, r)
	if string(r.body) != string(body) {
		t.Errorf("body = %s, want %s", r.body, body)
	}
	for name, want := range map[string]string{
		"Content-Type":      "application/json",
		"User-Agent":        "boxwatch-webhooks",
		"Webhook-Id":        "n-1",
		"Webhook-Timestamp": strconv.FormatInt(now.Unix(), 10),
		"X-Secret-Sauce":    "sriracha",
		"Authorization":     "Bearer abc",
	} {
		if v := r.header.Values(name); len(v) != 1 || v[0] != want {
			t.Errorf("%s = %q, want exactly %q", name, v, want)
		}
	}
	if v := r.header.Values("X-Multi"); len(v) != 2 {
		t.Errorf("X-Multi = %q, want both values", v)
	}
	if v := r.header.Values("X-T49-Webhook-Signature"); len(v) != 1 {
		t.Errorf("X-T49-Webhook-Signature = %q, want one value", v)
	}
	if r.host != strings.TrimPrefix(rcv.URL, "http://") {
		t.Errorf("Host = %q, want the URL's host", r.host)
	}
	if r.header.Get("Injected") != "" || r.header.Get("X-Bad-Value") != "" {
		t.Errorf("malformed headers were sent: %v", r.header)
	}
	if a.RequestHeaders.Get("X-T49-Webhook-Signature") != r.header.Get("X-T49-Webhook-Signature") {
		t.Errorf("RequestHeaders = %v, want what was sent", a.RequestHeaders)
	}
}

func TestDeliverRedeliverySignsAgainWithTheSameID(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(http.ResponseWriter, *http.Request) {})
	secret := mustSecret(t)
	req := webhook.Request{URL: rcv.URL, Secret: secret, NotificationID: "n-2", Body: []byte(`{}`)}
	for _, at := range []time.Time{time.Unix(1767225600, 0), time.Unix(1767229200, 0)} {
		req.Now = at
		if a := webhook.Deliver(context.Background(), loopbackClient, req); a.Outcome != webhook.Succeeded {
			t.Fatalf("attempt = %+v", a)
		}
	}
	got := rcv.received()
	for _, r := range got {
		verify(t, secret, r)
	}
	first, second := got[0].header, got[1].header
	if first.Get("webhook-id") != "n-2" || second.Get("webhook-id") != "n-2" {
		t.Errorf("webhook-id = %q then %q, want n-2 both times", first.Get("webhook-id"), second.Get("webhook-id"))
	}
	if first.Get("webhook-signature") == second.Get("webhook-signature") {
		t.Error("webhook-signature did not change with the timestamp")
	}
	if first.Get("X-T49-Webhook-Signature") != second.Get("X-T49-Webhook-Signature") {
		t.Error("X-T49-Webhook-Signature changed although the body did not")
	}
}

func TestDeliverOutcomes(t *testing.T) {
	t.Parallel()
	answer := func(status int, header ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			for i := 0; i+1 < len(header); i += 2 {
				w.Header().Set(header[i], header[i+1])
			}
			w.WriteHeader(status)
			if status != http.StatusNoContent && (status < 300 || status >= 400) {
				fmt.Fprintf(w, "status %d", status)
			}
		}
	}
	date := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name       string
		handle     http.HandlerFunc
		outcome    webhook.Outcome
		status     int
		retryAfter time.Duration
	}{
		{"Succeeded200", answer(200), webhook.Succeeded, 200, 0},
		{"Succeeded201", answer(201), webhook.Succeeded, 201, 0},
		{"Succeeded202", answer(202), webhook.Succeeded, 202, 0},
		{"Succeeded204", answer(204), webhook.Succeeded, 204, 0},
		{"RetryOn203", answer(203), webhook.Retry, 203, 0},
		{"RetryOn206", answer(206), webhook.Retry, 206, 0},
		{"RetryOn301", answer(301, "Location", "/final"), webhook.Retry, 301, 0},
		{"RetryOn302", answer(302, "Location", "/final"), webhook.Retry, 302, 0},
		{"RetryOn307", answer(307, "Location", "/final"), webhook.Retry, 307, 0},
		{"RetryOn308", answer(308, "Location", "/final"), webhook.Retry, 308, 0},
		{"RetryOn400", answer(400), webhook.Retry, 400, 0},
		{"RetryOn401", answer(401), webhook.Retry, 401, 0},
		{"RetryOn404", answer(404), webhook.Retry, 404, 0},
		{"GoneOn410", answer(410), webhook.Gone, 410, 0},
		{"RetryOn429WithSeconds", answer(429, "Retry-After", "120"), webhook.Retry, 429, 2 * time.Minute},
		{"RetryOn429WithDate", answer(429, "Date", date.Format(http.TimeFormat), "Retry-After", date.Add(90*time.Second).Format(http.TimeFormat)), webhook.Retry, 429, 90 * time.Second},
		{"RetryOn429WithPastDate", answer(429, "Date", date.Format(http.TimeFormat), "Retry-After", date.Add(-time.Hour).Format(http.TimeFormat)), webhook.Retry, 429, 0},
		{"RetryOn429WithoutRetryAfter", answer(429), webhook.Retry, 429, 0},
		{"RetryOn429WithBadRetryAfter", answer(429, "Retry-After", "soon"), webhook.Retry, 429, 0},
		{"RetryOn503WithSeconds", answer(503, "Retry-After", "30"), webhook.Retry, 503, 30 * time.Second},
		{"RetryOn503RetryAfterCapped", answer(503, "Retry-After", "99999999999999999999"), webhook.Retry, 503, webhook.MaxRetryAfter},
		{"RetryOn500", answer(500), webhook.Retry, 500, 0},
		{"RetryOn500IgnoresRetryAfter", answer(500, "Retry-After", "60"), webhook.Retry, 500, 0},
		{"RetryOn502", answer(502), webhook.Retry, 502, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var final int
			var mu sync.Mutex
			mux := http.NewServeMux()
			mux.HandleFunc("/final", func(http.ResponseWriter, *http.Request) { mu.Lock(); final++; mu.Unlock() })
			mux.Handle("/", tt.handle)
			rcv := newReceiver(t, mux.ServeHTTP)
			a := webhook.Deliver(context.Background(), loopbackClient, webhook.Request{
				URL: rcv.URL + "/in", Secret: "s3cret", NotificationID: "n-3", Body: []byte(`{}`), Now: date,
			})
			if a.Outcome != tt.outcome || a.StatusCode != tt.status || a.RetryAfter != tt.retryAfter {
				t.Errorf("attempt = %s %d retry after %v, want %s %d retry after %v",
					a.Outcome, a.StatusCode, a.RetryAfter, tt.outcome, tt.status, tt.retryAfter)
			}
			if (a.Err == "") != (tt.outcome == webhook.Succeeded) {
				t.Errorf("Err = %q for outcome %s", a.Err, a.Outcome)
			}
			if tt.status != 204 && tt.status/100 != 3 && a.ResponseSnippet != fmt.Sprintf("status %d", tt.status) {
				t.Errorf("ResponseSnippet = %q", a.ResponseSnippet)
			}
			if len(rcv.received()) != 1 || final != 0 {
				t.Errorf("receiver saw %d requests, redirect target %d; want 1 and 0", len(rcv.received()), final)
			}
		})
	}
}

func TestDeliverRetriesATimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	rcv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	client := webhook.NewClient(webhook.Policy{AllowPrivate: true, Timeout: 200 * time.Millisecond})
	a := webhook.Deliver(context.Background(), client, webhook.Request{URL: rcv.URL, Secret: "s", NotificationID: "n-4", Body: []byte(`{}`)})
	if a.Outcome != webhook.Retry || a.StatusCode != 0 || a.Err != "No complete response within 200ms." {
		t.Fatalf("attempt = %+v, want a retry after a timeout", a)
	}
	if a.Latency < 200*time.Millisecond || a.Latency > 5*time.Second {
		t.Errorf("Latency = %v, want about the timeout", a.Latency)
	}
}

func TestDeliverRetriesARefusedConnection(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	a := webhook.Deliver(context.Background(), loopbackClient, webhook.Request{URL: "http://" + addr + "/", Secret: "s", NotificationID: "n-5", Body: []byte(`{}`)})
	if a.Outcome != webhook.Retry || a.StatusCode != 0 || a.Err != "The endpoint refused the connection." {
		t.Fatalf("attempt = %+v, want a retry after a refused connection", a)
	}
}

func TestDeliverRetriesAnUntrustedCertificate(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake failure is the point
	srv.StartTLS()
	defer srv.Close()
	a := webhook.Deliver(context.Background(), loopbackClient, webhook.Request{URL: srv.URL, Secret: "s", NotificationID: "n-6", Body: []byte(`{}`)})
	if a.Outcome != webhook.Retry || !strings.Contains(a.Err, "certificate") {
		t.Fatalf("attempt = %+v, want a retry for the self-signed certificate", a)
	}
}

func TestDeliverKeepsABoundedSnippet(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte{0xff, 0xfe})
		w.Write([]byte(strings.Repeat("x", 1<<20)))
	})
	a := webhook.Deliver(context.Background(), loopbackClient, webhook.Request{URL: rcv.URL, Secret: "s", NotificationID: "n-7", Body: []byte(`{}`)})
	if a.Outcome != webhook.Succeeded {
		t.Fatalf("attempt = %+v", a)
	}
	if want := "\uFFFD" + strings.Repeat("x", webhook.SnippetSize-2); a.ResponseSnippet != want {
		t.Errorf("ResponseSnippet has %d bytes starting %q, want the first %d bytes made valid UTF-8",
			len(a.ResponseSnippet), a.ResponseSnippet[:min(8, len(a.ResponseSnippet))], webhook.SnippetSize)
	}
}

func TestDeliverSendsNothingWithout(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(http.ResponseWriter, *http.Request) {})
	for _, tt := range []struct {
		name string
		req  webhook.Request
	}{
		{"Secret", webhook.Request{URL: rcv.URL, NotificationID: "n-8", Body: []byte(`{}`)}},
		{"NotificationID", webhook.Request{URL: rcv.URL, Secret: "s", Body: []byte(`{}`)}},
		{"ValidURL", webhook.Request{URL: "http://[::1", Secret: "s", NotificationID: "n-8", Body: []byte(`{}`)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := webhook.Deliver(context.Background(), loopbackClient, tt.req)
			if a.Outcome != webhook.Retry || a.Err == "" {
				t.Errorf("attempt = %+v, want a retry with a reason", a)
			}
		})
	}
	if n := len(rcv.received()); n != 0 {
		t.Errorf("receiver saw %d requests, want none", n)
	}
}

// TestClientRefusesEveryBlockedRange delivers under the production policy to a host name that
// resolves to an address of each blocked range, and to that address written in the URL. The check
// comes before any connection, so nothing leaves the machine.
func TestClientRefusesEveryBlockedRange(t *testing.T) {
	t.Parallel()
	dns := newResolver(map[string][]string{})
	client := webhook.NewClient(webhook.Policy{Resolver: dns, Timeout: time.Second})
	for _, b := range allBlockedAddresses() {
		t.Run(b.name, func(t *testing.T) {
			dns.Set("hook.example.com", b.addr)
			for _, url := range []string{"https://hook.example.com/in", "https://" + hostPort(b.addr) + "/in"} {
				a := webhook.Deliver(context.Background(), client, webhook.Request{URL: url, Secret: "s", NotificationID: "n-9", Body: []byte(`{}`)})
				if a.Outcome != webhook.Retry || a.StatusCode != 0 || !strings.Contains(a.Err, "which webhooks may not reach") {
					t.Errorf("%s: attempt = %+v, want a refused dial", url, a)
				}
			}
		})
	}
}

// TestClientChecksAddressesAtDialTime registers a name while it resolves to a public address, then
// points it at a live receiver on loopback: the delivery must not reach it.
func TestClientChecksAddressesAtDialTime(t *testing.T) {
	t.Parallel()
	var hits int
	var mu sync.Mutex
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { mu.Lock(); hits++; mu.Unlock() }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	url := "https://rebind.example.com:" + port + "/in"

	dns := newResolver(map[string][]string{"rebind.example.com": {"8.8.8.8"}})
	p := webhook.Policy{Resolver: dns}
	if err := webhook.CheckURL(context.Background(), url, p); err != nil {
		t.Fatalf("registration: %v", err)
	}
	dns.Set("rebind.example.com", "127.0.0.1")
	a := webhook.Deliver(context.Background(), webhook.NewClient(p), webhook.Request{URL: url, Secret: "s", NotificationID: "n-10", Body: []byte(`{}`)})
	if a.Outcome != webhook.Retry || a.Err != "The host rebind.example.com resolves to a loopback address, which webhooks may not reach." {
		t.Errorf("attempt = %+v, want a refused dial", a)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits != 0 {
		t.Errorf("the loopback receiver saw %d requests", hits)
	}
}

func TestClientRefusesPlainHTTP(t *testing.T) {
	t.Parallel()
	dns := newResolver(map[string][]string{"hook.example.com": {"8.8.8.8"}})
	client := webhook.NewClient(webhook.Policy{Resolver: dns, Timeout: time.Second})
	a := webhook.Deliver(context.Background(), client, webhook.Request{URL: "http://hook.example.com/in", Secret: "s", NotificationID: "n-11", Body: []byte(`{}`)})
	if a.Outcome != webhook.Retry || !strings.Contains(a.Err, "https only") {
		t.Errorf("attempt = %+v, want a refusal of plain http", a)
	}
}

func TestClientTriesTheNextAddress(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, func(http.ResponseWriter, *http.Request) {})
	_, port, _ := net.SplitHostPort(rcv.Listener.Addr().String())
	// Nothing listens on 127.0.0.2, so the first address refuses the connection.
	dns := newResolver(map[string][]string{"two.example.com": {"127.0.0.2", "127.0.0.1"}})
	client := webhook.NewClient(webhook.Policy{AllowPrivate: true, Resolver: dns, Timeout: time.Second})
	a := webhook.Deliver(context.Background(), client, webhook.Request{URL: "http://two.example.com:" + port + "/", Secret: "s", NotificationID: "n-12", Body: []byte(`{}`)})
	if a.Outcome != webhook.Succeeded || len(rcv.received()) != 1 {
		t.Fatalf("attempt = %+v, want a success through the second address", a)
	}
}
