package terminal_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/terminal"
)

// serve starts a terminal on loopback that answers every check with handler.
func serve(t *testing.T, handler http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return srv.URL
}

func mustClient(t *testing.T, cfg terminal.Config) *terminal.Client {
	t.Helper()
	c, err := terminal.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var query = boxwatch.TerminalQuery{Terminal: boxwatch.TerminalRef{LOCODE: "USLAX", SMDGCode: "APMT"}, Container: "mscu1234566",
	SCAC: "MSCU", BillOfLading: "MEDUAB123458"}

func TestCheckOK(t *testing.T) {
	body := mustRead(t, "in_yard.json")
	var got *http.Request
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(context.Background())
		w.Write(body)
	})
	c := mustClient(t, terminal.Config{BaseURL: base + "/tos/", Headers: map[string]string{"X-API-Key": "secret"}})
	r, err := c.Check(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Holds) != 4 || r.Location != "B12-03-2" {
		t.Errorf("report %+v", r)
	}
	if got.URL.Path != "/tos/v1/containers/MSCU1234566" || got.URL.Query().Get("scac") != "MSCU" ||
		got.URL.Query().Get("bill_of_lading") != "MEDUAB123458" || got.URL.Query().Has("booking") ||
		got.Header.Get("X-API-Key") != "secret" || got.Header.Get("Accept") != "application/json" {
		t.Errorf("request %s %v", got.URL, got.Header)
	}
}

// Every way a terminal fails ends in a TerminalError with the reason the check is recorded under.
func TestCheckFailures(t *testing.T) {
	for _, tt := range []struct {
		name       string
		handler    http.HandlerFunc
		reason     string
		temporary  bool
		retryAfter time.Duration
	}{
		{"NotFound", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":{"code":"not_found","message":"unknown box"}}`, http.StatusNotFound)
		}, boxwatch.TerminalNotFound, false, 0},
		{"RateLimited", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
		}, boxwatch.TerminalRateLimited, true, 7 * time.Second},
		{"Unavailable", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "999999")
			w.WriteHeader(http.StatusServiceUnavailable)
		}, boxwatch.TerminalUnreachable, true, time.Hour},
		{"Forbidden", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) }, boxwatch.TerminalUnrecognized, false, 0},
		{"Garbage", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>maintenance</html>")) }, boxwatch.TerminalUnrecognized, false, 0},
		{"Oversized", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"container_number":"MSCU1234566","yard_location":"`))
			w.Write([]byte(strings.Repeat("A", terminal.MaxResponseBytes)))
		}, boxwatch.TerminalUnrecognized, false, 0},
		{"AnotherBox", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"container_number":"MSKU1234565","status":"in_yard","checked_at":"2026-11-20T15:04:00Z"}`))
		}, boxwatch.TerminalUnrecognized, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := mustClient(t, terminal.Config{BaseURL: serve(t, tt.handler)})
			_, err := c.Check(context.Background(), query)
			var te *boxwatch.TerminalError
			if !errors.As(err, &te) || te.Reason != tt.reason || te.Temporary != tt.temporary || te.RetryAfter != tt.retryAfter {
				t.Fatalf("got %#v (%v); want %s, temporary %v, retry after %v", te, err, tt.reason, tt.temporary, tt.retryAfter)
			}
		})
	}
	t.Run("Unreachable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		base := srv.URL
		srv.Close()
		_, err := mustClient(t, terminal.Config{BaseURL: base}).Check(context.Background(), query)
		var te *boxwatch.TerminalError
		if !errors.As(err, &te) || te.Reason != boxwatch.TerminalUnreachable || !te.Temporary {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("Timeout", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		c := mustClient(t, terminal.Config{BaseURL: serve(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}), Timeout: 50 * time.Millisecond})
		_, err := c.Check(context.Background(), query)
		var te *boxwatch.TerminalError
		if !errors.As(err, &te) || te.Reason != boxwatch.TerminalUnreachable || !te.Temporary {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("NotAContainerNumber", func(t *testing.T) {
		var asked atomic.Int32
		c := mustClient(t, terminal.Config{BaseURL: serve(t, func(w http.ResponseWriter, r *http.Request) { asked.Add(1) })})
		q := query
		q.Container = "../../admin"
		_, err := c.Check(context.Background(), q)
		var te *boxwatch.TerminalError
		if !errors.As(err, &te) || te.Reason != boxwatch.TerminalNotFound || asked.Load() != 0 {
			t.Fatalf("got %v after %d requests", err, asked.Load())
		}
	})
}

// A redirect to another host is refused: the terminal's credentials go nowhere else.
func TestCheckRefusesRedirectElsewhere(t *testing.T) {
	var leaked atomic.Int32
	other := serve(t, func(w http.ResponseWriter, r *http.Request) { leaked.Add(1) })
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(other, "127.0.0.1", "localhost", 1)+r.URL.Path, http.StatusFound)
	})
	_, err := mustClient(t, terminal.Config{BaseURL: base, Headers: map[string]string{"X-API-Key": "secret"}}).Check(context.Background(), query)
	var te *boxwatch.TerminalError
	if !errors.As(err, &te) || te.Reason != boxwatch.TerminalUnreachable || leaked.Load() != 0 {
		t.Fatalf("got %v; the other host was asked %d times", err, leaked.Load())
	}
}

// The client's own rate limit holds checks back. A check whose turn is further away than MaxWait
// asks nothing and says so (*boxwatch.TerminalBusy, with the wait); one whose turn is nearer waits
// for it; one whose deadline comes before its turn is rate_limited. None of them reaches the
// terminal before its turn.
func TestCheckRateLimit(t *testing.T) {
	var asked atomic.Int32
	body := mustRead(t, "in_yard.json")
	url := serve(t, func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Write(body)
	})
	ref := boxwatch.TerminalRef{LOCODE: "USLAX", SMDGCode: "YTI"}
	q := query
	q.Terminal = ref

	t.Run("Busy", func(t *testing.T) {
		asked.Store(0)
		c := mustClient(t, terminal.Config{BaseURL: url, Rate: 0.001, Burst: 2})
		for range 2 {
			if _, err := c.Check(context.Background(), q); err != nil {
				t.Fatal(err)
			}
		}
		_, err := c.Check(context.Background(), q)
		var busy *boxwatch.TerminalBusy
		if !errors.As(err, &busy) || busy.Terminal != ref || busy.Wait <= 900*time.Second || busy.Wait > 1000*time.Second || asked.Load() != 2 {
			t.Fatalf("third check: %v; the terminal was asked %d times, want 2", err, asked.Load())
		}
		// Saying so took no turn: the next is no further away.
		_, err = c.Check(context.Background(), q)
		if again := (*boxwatch.TerminalBusy)(nil); !errors.As(err, &again) || again.Wait > busy.Wait {
			t.Fatalf("fourth check: %v, after %v", err, busy.Wait)
		}
	})
	t.Run("Deadline", func(t *testing.T) {
		asked.Store(0)
		c := mustClient(t, terminal.Config{BaseURL: url, Rate: 0.001, Burst: 2, MaxWait: 2 * time.Hour})
		for range 2 {
			if _, err := c.Check(context.Background(), q); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := c.Check(ctx, q)
		var te *boxwatch.TerminalError
		if !errors.As(err, &te) || te.Reason != boxwatch.TerminalRateLimited || !te.Temporary || asked.Load() != 2 {
			t.Fatalf("third check: %v; the terminal was asked %d times, want 2", err, asked.Load())
		}
	})
	t.Run("Waits", func(t *testing.T) {
		asked.Store(0)
		c := mustClient(t, terminal.Config{BaseURL: url, Rate: 50, Burst: 1})
		for i := range 5 {
			if _, err := c.Check(context.Background(), q); err != nil {
				t.Fatalf("check %d: %v", i, err)
			}
		}
		if asked.Load() != 5 {
			t.Fatalf("the terminal was asked %d times, want 5", asked.Load())
		}
	})
}

func TestNewRefuses(t *testing.T) {
	for _, cfg := range []terminal.Config{
		{BaseURL: ""}, {BaseURL: "ftp://example.com"}, {BaseURL: "http://user:pw@example.com"}, {BaseURL: "/relative"},
		{BaseURL: "https://example.com?x=1"}, {BaseURL: "https://example.com", Rate: -1}, {BaseURL: "https://example.com", Timeout: -time.Second},
		{BaseURL: "https://example.com", MaxWait: -time.Second},
	} {
		if _, err := terminal.New(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}
