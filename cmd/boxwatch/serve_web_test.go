package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestServeDashboard starts serve and checks that its listener answers the dashboard at / and
// /docs, its assets under /assets/, and still the API everywhere else.
func TestServeDashboard(t *testing.T) {
	t.Parallel()
	dsn := storetest.SQLite.DSN(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--admin-addr", "off", "--workers", "0", "--db", dsn},
			func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	var url, dashboard string
	sc := bufio.NewScanner(pr)
	for dashboard == "" && sc.Scan() {
		if m := regexp.MustCompile(`serving the API at (http://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
		}
		if m := regexp.MustCompile(`Dashboard: open (http://\S+/) `).FindStringSubmatch(sc.Text()); m != nil {
			dashboard = m[1]
		}
	}
	go io.Copy(io.Discard, pr)
	if url == "" || dashboard != url+"/" {
		t.Fatalf("serve printed the API at %q and the dashboard at %q", url, dashboard)
	}

	get := func(path string) (int, string, string) {
		t.Helper()
		res, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), string(b)
	}
	page, ctype, body := get("/")
	if page != 200 || !strings.HasPrefix(ctype, "text/html") || !strings.Contains(body, `id="main"`) {
		t.Fatalf("GET /: %d %s", page, ctype)
	}
	asset := regexp.MustCompile(`src="(/assets/[^"]+\.js)"`).FindStringSubmatch(body)
	if asset == nil {
		t.Fatal("the app page names no script")
	}
	for _, tc := range []struct {
		path, ctype string
		status      int
	}{
		{asset[1], "text/javascript", 200},
		{"/docs", "text/html", 200},
		{"/v2/openapi.json", "application/json", 200},
		{"/healthz", "application/vnd.api+json", 200},
		{"/v2/shipments", "application/vnd.api+json", 401},
		{"/v2/nope", "application/vnd.api+json", 404},
		{"/nope", "application/vnd.api+json", 404},
	} {
		status, ctype, _ := get(tc.path)
		if status != tc.status || !strings.HasPrefix(ctype, tc.ctype) {
			t.Errorf("GET %s: %d %s, want %d %s", tc.path, status, ctype, tc.status, tc.ctype)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop")
	}
}
