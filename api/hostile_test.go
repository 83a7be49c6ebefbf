package api_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// An error document lists at most a bounded number of errors, however many the input holds, and
// says how many it left out.
func TestErrorsBounded(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b)
		names := make([]string, 5000)
		for i := range names {
			names[i] = fmt.Sprintf("%q", fmt.Sprintf("no.such.event.%d", i))
		}
		body := `{"data":{"type":"webhook","attributes":{"url":"https://example.com/hook","events":[` +
			strings.Join(names, ",") + `]}}}`
		r := ts.do(t, "POST", "/v2/webhooks", ts.acme, body)
		r.wantError(t, http.StatusUnprocessableEntity, "", "", "")
		errs := r.body["errors"].([]any)
		if len(errs) != 21 {
			t.Fatalf("%d errors listed, want 20 and one counting the rest", len(errs))
		}
		last := errs[20].(map[string]any)
		if last["code"] != "too_many_errors" || !strings.HasSuffix(last["detail"].(string), " more errors are not listed.") {
			t.Fatalf("last error %v, want too_many_errors counting the rest", last)
		}
		if len(r.raw) > 16<<10 {
			t.Fatalf("error document of %d bytes", len(r.raw))
		}
	})
}

// Strings a database cannot hold or compare (NUL bytes, invalid UTF-8) are refused at the edge:
// in a path, 404 (no resource has such an id); in a query parameter, 400 naming it.
func TestUnstorableStringsInURL(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b)
		ts.mustCreate(t, ts.acme, "bill_of_lading", "MAEU123456789", "MAEU")
		for _, path := range []string{"/v2/vessels/%FF", "/v2/vessels/a%00b", "/v2/vessels/%C4%B1mo9839430",
			"/v2/ports/%FF", "/v2/shipping_lines/%00", "/v2/webhooks/%FF%FE"} {
			ts.do(t, "GET", path, ts.acme, "").wantError(t, http.StatusNotFound, "not_found", "", "")
		}
		for _, c := range []struct{ path, param string }{
			{"/v2/shipments?q=%00", "q"},
			{"/v2/shipments?number=%FF", "number"},
			{"/v2/tracking_requests?q=%00", "q"},
			{"/v2/tracking_requests?filter[request_number]=a%00b", "filter[request_number]"},
			{"/v2/webhook_notifications?filter[event]=%FF", "filter[event]"},
			{"/v2/containers?filter[number]=%00", "filter[number]"},
			{"/v2/search?query=%FF", "query"},
			{"/v2/custom_field_definitions?filter[display_name]=%1B", "filter[display_name]"},
		} {
			ts.do(t, "GET", c.path, ts.acme, "").wantError(t, http.StatusBadRequest, "invalid", "", c.param)
		}
	})
}

// Every string member of a body is refused with 422 at its pointer when it holds a control
// character, a lone surrogate or invalid UTF-8: nothing of the kind is ever stored.
func TestUnstorableStringsInBody(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b)
		for _, c := range []struct{ method, path, body, pointer string }{
			{"POST", "/v2/tracking_requests", createBody("bill_of_lading", "MAEU123456789", "MAEU", `"ref_numbers":["a\u0000b"]`), "/data/attributes/ref_numbers/0"},
			{"POST", "/v2/tracking_requests", createBody("bill_of_lading", "MAEU123456789", "MAEU", `"ref_numbers":["ok","\ud800"]`), "/data/attributes/ref_numbers/1"},
			{"POST", "/v2/tracking_requests", createBody("bill_of_lading", `MAEU12345\u00076789`, "MAEU"), "/data/attributes/request_number"},
			{"POST", "/v2/tracking_requests", createBody("bill_of_lading", "MAEU123456789", "MAEU", "\"ref_numbers\":[\"a\xffb\"]"), "/data/attributes/ref_numbers/0"},
			{"POST", "/v2/parties", `{"data":{"type":"party","attributes":{"company_name":"Acme\u001b[31m"}}}`, "/data/attributes/company_name"},
		} {
			ts.do(t, c.method, c.path, ts.acme, c.body).wantError(t, http.StatusUnprocessableEntity, "invalid", c.pointer, "")
		}
	})
}

// Without a public URL, absolute links name the listener's own address: a Host header is trusted
// only when it is that address, so a forged one cannot poison a shared cache.
func TestLinksIgnoreForeignHost(t *testing.T) {
	ts := newTestServer(t, storetest.SQLite)
	id := ts.mustCreate(t, ts.acme, "bill_of_lading", "MAEU123456789", "MAEU")
	for _, host := range []string{"evil.example", "evil.example:80", strings.TrimPrefix(ts.URL, "http://")} {
		req, err := http.NewRequest("GET", ts.URL+"/v2/tracking_requests/"+id, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Authorization", "Token "+ts.acme)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ Links struct{ Self string } }
		err = json.NewDecoder(res.Body).Decode(&doc)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if want := ts.URL + "/v2/tracking_requests/" + id; doc.Links.Self != want {
			t.Fatalf("Host %s: links.self %q, want %q", host, doc.Links.Self, want)
		}
	}
}

// A client that trickles its body is cut off once the body deadline passes, with a JSON:API 408,
// rather than holding a handler for the server's whole read timeout.
func TestSlowBodyCutOff(t *testing.T) {
	ts := newTestServer(t, storetest.SQLite, func(_ testing.TB, c *api.Config, _ *store.DB) {
		c.BodyTimeout = 200 * time.Millisecond
	})
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second)) // far beyond the body deadline: the answer comes first
	head := "POST /v2/webhooks HTTP/1.1\r\nHost: boxwatch\r\nAuthorization: Token " + ts.acme +
		"\r\nContent-Type: " + api.MediaType + "\r\nContent-Length: 100000\r\n\r\n{"
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if _, err := io.WriteString(conn, " "); err != nil {
					return
				}
			}
		}
	}()
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a trickled body: %v", err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var doc struct {
		Errors []struct{ Status, Code string }
	}
	if res.StatusCode != http.StatusRequestTimeout || res.Header.Get("Content-Type") != api.MediaType ||
		json.Unmarshal(raw, &doc) != nil || len(doc.Errors) != 1 || doc.Errors[0].Code != "request_timeout" {
		t.Fatalf("answer %d %s: %s, want a JSON:API 408 request_timeout", res.StatusCode, res.Header.Get("Content-Type"), raw)
	}
}

// Upper-casing must not come before the check: the dotless ı and the long ſ upper-case to I and
// S, so "teſt" would become the SCAC TEST and "faıled" a valid number. Each place that
// upper-cases what a client sends refuses (or does not match) the look-alike and accepts the
// genuine lower-case spelling.
func TestCaseLookAlikes(t *testing.T) {
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b, tracked)
		id := ts.mustCreate(t, ts.acme, "bill_of_lading", "TEST-TR-SUCCEEDED", "TEST")
		trackingtest.Eventually(t, 30*time.Second, "the request was not looked up", func() bool {
			return get(ts.do(t, "GET", "/v2/tracking_requests/"+id, ts.acme, "").body, "data", "attributes", "status") == "created"
		})
		const (
			longS    = "\u017f" // ſ, upper case S
			dotlessI = "\u0131" // ı, upper case I
		)
		count := func(path string) int {
			t.Helper()
			r := ts.do(t, "GET", path, ts.acme, "").want(t, 200)
			return len(get(r.body, "data").([]any))
		}

		// Bodies: the request number and the SCAC of a new tracking request.
		for _, c := range []struct{ number, scac, pointer string }{
			{"te" + longS + "t-tr-failed", "TEST", "/data/attributes/request_number"},
			{"test-tr-fa" + dotlessI + "led", "TEST", "/data/attributes/request_number"},
			{"MAEU12345678" + "\u0661", "MAEU", "/data/attributes/request_number"}, // an Arabic-Indic digit
			{"test-tr-failed", "te" + longS + "t", "/data/attributes/scac"},
			{"MEDUFR030802", "m" + longS + "cu", "/data/attributes/scac"},
			{"MEDUFR030802", "\u212a", "/data/attributes/scac"}, // the Kelvin sign
		} {
			ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("bill_of_lading", c.number, c.scac)).
				wantError(t, http.StatusUnprocessableEntity, "", c.pointer, "")
		}
		ts.do(t, "POST", "/v2/tracking_requests", ts.acme, createBody("bill_of_lading", "test-tr-failed", "test")).want(t, 201)

		// Filters: a look-alike SCAC is unknown; a look-alike number matches nothing.
		ts.do(t, "GET", "/v2/tracking_requests?filter[scac]=te"+longS+"t", ts.acme, "").
			wantError(t, http.StatusBadRequest, "invalid", "", "filter[scac]")
		if n := count("/v2/tracking_requests?filter[scac]=test"); n != 2 {
			t.Fatalf("filter[scac]=test: %d requests, want 2", n)
		}
		for _, c := range []struct {
			path string
			want int
		}{
			{"/v2/tracking_requests?filter[request_number]=test-tr-succeeded", 1},
			{"/v2/tracking_requests?filter[request_number]=te" + longS + "t-tr-" + longS + "ucceeded", 0},
			{"/v2/shipments?number=test-tr-succeeded", 1},
			{"/v2/shipments?number=te" + longS + "t-tr-" + longS + "ucceeded", 0},
			{"/v2/shipping_lines?search=mscu", 1},
			{"/v2/shipping_lines?search=m" + longS + "cu", 0},
		} {
			if n := count(c.path); n != c.want {
				t.Errorf("GET %s: %d results, want %d", c.path, n, c.want)
			}
		}
	})
}
