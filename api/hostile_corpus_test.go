package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// hostileRequest is one request of the corpus.
type hostileRequest struct {
	method, path string
	body         []byte
	contentType  string
	header       http.Header
}

// Hostile values for path wildcards and query parameters, as they appear in a URL.
var (
	hostileSegments = []string{"%FF", "%00", "a%00b", "%C4%B1mo9839430", "%ED%A0%80", "-1", "0",
		"99999999999999999999999999", "1e309", "00000000-0000-0000-0000-000000000000",
		"..%2F..%2Fetc", "%27%20OR%201%3D1--", strings.Repeat("a", 4000), "%20", "%7B%7D"}
	hostileValues = append(hostileSegments[:len(hostileSegments):len(hostileSegments)],
		"", "%0D%0AX-Injected:%201", "2026-13-45T99:99:99Z", "9999-12-31T23:59:59Z", "-9223372036854775809",
		"true,false", "%5B%5D", strings.Repeat("%E2%82%AC", 3000),
		// Look-alikes that Unicode case mapping turns into ASCII letters: ſ (→ S), ı (→ I), the
		// Kelvin sign (→ k), İ (→ i), and ß, which has no single upper case.
		"m%C5%BFcu", "%C4%B1mo", "%E2%84%AA", "%C4%B0", "stra%C3%9Fe")
)

// hostileBodies are bodies of every shape a JSON:API endpoint must refuse cleanly.
func hostileBodies() [][]byte {
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	deepObject := strings.Repeat(`{"a":`, 20_000) + "1" + strings.Repeat("}", 20_000)
	mistyped := func(v string) string {
		return `{"data":{"type":"x","id":` + v + `,"attributes":{"a":` + v + `,"request_number":` + v +
			`,"scac":` + v + `,"url":` + v + `,"events":` + v + `,"name":` + v + `,"ref_numbers":` + v +
			`,"value":` + v + `,"company_name":` + v + `}}}`
	}
	var out [][]byte
	for _, s := range []string{
		"", "{", "}", "null", "[]", "1e999999", "-0", `"`, `{"data":`, `{"data":null}`, `{"data":[]}`,
		`{"data":{}}`, `{"data":{"type":null}}`, `{"data":{"attributes":[]}}`, `{"data":1}{"data":2}`,
		deep, deepObject, `{"data":{"type":"` + strings.Repeat("t", 500_000) + `"}}`,
		mistyped("1e400"), mistyped("-99999999999999999999999"), mistyped("[]"), mistyped("{}"), mistyped("true"),
		mistyped(`"\u0000"`), mistyped(`"\ud800"`), mistyped(`"te\u017ft-tr-\u017fucceeded"`), mistyped(`"\u212a\u0131"`), mistyped(`"` + strings.Repeat("x", 100_000) + `"`),
		mistyped(`[` + strings.Repeat(`"x",`, 50_000) + `"x"]`),
	} {
		out = append(out, []byte(s))
	}
	return append(out,
		[]byte("{\"data\":{\"type\":\"\xff\xfe\",\"attributes\":{\"\xc0\xaf\":\"\xed\xa0\x80\"}}}"),
		bytes.Repeat([]byte(" "), api.MaxBodyBytes+1))
}

// hostileCorpus generates requests for every route of the table: hostile path ids, garbage in every
// declared query parameter and hostile bodies, plus requests with hostile headers.
func hostileCorpus(routes []api.RouteInfo) []hostileRequest {
	var out []hostileRequest
	for _, rt := range routes {
		// A path with value in wildcard number wild, the others a plausible id that exists nowhere.
		fill := func(wild int, value string) string {
			n := -1
			var b strings.Builder
			for rest := rt.Path; ; {
				i := strings.IndexByte(rest, '{')
				if i < 0 {
					b.WriteString(rest)
					return b.String()
				}
				j := strings.IndexByte(rest, '}')
				n++
				b.WriteString(rest[:i])
				if n == wild {
					b.WriteString(value)
				} else {
					b.WriteString("01a20c66-74ee-7e3d-920c-8e9fe1343913")
				}
				rest = rest[j+1:]
			}
		}
		wilds := strings.Count(rt.Path, "{")
		for w := 0; w < wilds; w++ {
			for _, seg := range hostileSegments {
				out = append(out, hostileRequest{method: rt.Method, path: fill(w, seg)})
			}
		}
		path := fill(-1, "")
		for _, p := range rt.Params {
			for _, v := range hostileValues {
				out = append(out, hostileRequest{method: rt.Method, path: path + "?" + url.QueryEscape(p) + "=" + v})
			}
		}
		out = append(out,
			hostileRequest{method: rt.Method, path: path + "?%zz=1"},
			hostileRequest{method: rt.Method, path: path + "?include=" + strings.Repeat("a,", 5000)},
			hostileRequest{method: rt.Method, path: path, header: http.Header{"Accept": {strings.Repeat("x", 64<<10)}}},
			hostileRequest{method: rt.Method, path: path, header: http.Header{"Authorization": {"Token " + strings.Repeat("k", 64<<10)}}},
		)
		bodies := hostileBodies()
		if rt.Method == "GET" || rt.Method == "DELETE" {
			bodies = bodies[len(bodies)-3:]
		}
		for _, b := range bodies {
			out = append(out, hostileRequest{method: rt.Method, path: path, body: b, contentType: api.MediaType})
		}
		if rt.Body {
			out = append(out,
				hostileRequest{method: rt.Method, path: path, body: []byte(`{"data":{}}`), contentType: "text/plain"},
				hostileRequest{method: rt.Method, path: path, body: []byte(`{"data":{}}`), contentType: api.MediaType + "; ext=\"\xff\""},
			)
		}
	}
	return out
}

// Every route, fed hostile input, answers a JSON:API error or a success, never a 5xx, and the
// server is healthy afterwards.
func TestHostileCorpus(t *testing.T) {
	routes := api.RouteTable(api.Config{Carriers: data.Carriers()})
	if len(routes) < 50 {
		t.Fatalf("route table has %d routes", len(routes))
	}
	corpus := hostileCorpus(routes)
	t.Logf("%d requests per database over %d routes", len(corpus), len(routes))
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b)
		ts.mustCreate(t, ts.acme, "bill_of_lading", "MAEU123456789", "MAEU")
		client := ts.Client()
		failures := 0
		for _, hr := range corpus {
			req, err := http.NewRequest(hr.method, ts.URL+hr.path, bytes.NewReader(hr.body))
			if err != nil {
				t.Fatalf("%s %s: %v", hr.method, hr.path, err)
			}
			if hr.body == nil {
				req.Body, req.ContentLength = http.NoBody, 0
			}
			req.Header.Set("Authorization", "Token "+ts.acme)
			for k, v := range hr.header {
				req.Header[k] = v
			}
			if hr.contentType != "" {
				req.Header.Set("Content-Type", hr.contentType)
			}
			if msg := checkHostileAnswer(client, req); msg != "" {
				failures++
				if failures <= 10 {
					t.Errorf("%s %.200s (body %.80q): %s", hr.method, hr.path, hr.body, msg)
				}
			}
		}
		if failures > 0 {
			t.Fatalf("%d of %d hostile requests answered badly", failures, len(corpus))
		}
		ts.do(t, "GET", "/readyz", "", "").want(t, http.StatusOK)
		ts.mustCreate(t, ts.acme, "bill_of_lading", "MAEU123456780", "MAEU")
	})
}

// checkHostileAnswer sends req and describes what is wrong with the answer, or returns "".
func checkHostileAnswer(client *http.Client, req *http.Request) string {
	res, err := client.Do(req)
	if err != nil {
		return "no answer: " + err.Error()
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return "answer cut short: " + err.Error()
	}
	if res.StatusCode >= 500 {
		return fmt.Sprintf("status %d: %.300s", res.StatusCode, raw)
	}
	if res.StatusCode < 400 || req.Method == "HEAD" {
		return ""
	}
	var doc struct {
		Errors []struct{ Status, Title string }
	}
	if ct := res.Header.Get("Content-Type"); ct != api.MediaType {
		return fmt.Sprintf("status %d with Content-Type %q: %.300s", res.StatusCode, ct, raw)
	}
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc.Errors) == 0 || doc.Errors[0].Status != fmt.Sprint(res.StatusCode) {
		return fmt.Sprintf("status %d without a JSON:API error document: %.300s", res.StatusCode, raw)
	}
	return ""
}

// Go's HTTP server answers some malformed requests itself, in plain text, before any handler runs:
// docs/api.md ("Hostile input") lists them as the exceptions to JSON:API errors. This pins that list, and checks the
// server still serves afterwards.
func TestServerWrittenErrors(t *testing.T) {
	ts := newTestServer(t, storetest.SQLite)
	addr := strings.TrimPrefix(ts.URL, "http://")
	for _, c := range []struct {
		name, request string
		status        int
	}{
		{"MalformedRequestLine", "GARBAGE\r\n\r\n", http.StatusBadRequest},
		{"MissingHost", "GET /healthz HTTP/1.1\r\n\r\n", http.StatusBadRequest},
		{"BadHeaderLine", "GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", http.StatusBadRequest},
		{"UnsupportedTransferEncoding", "POST /v2/webhooks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", http.StatusNotImplemented},
		{"UnsupportedVersion", "GET /healthz HTTP/3.0\r\nHost: x\r\n\r\n", http.StatusHTTPVersionNotSupported},
		{"UnknownExpectation", "GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: miracles\r\n\r\n", http.StatusExpectationFailed},
		{"HeadersTooLarge", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("b", 1<<20+4096) + "\r\n\r\n", http.StatusRequestHeaderFieldsTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			go io.WriteString(conn, c.request) // the server may answer and close before reading it all
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d", res.StatusCode, c.status)
			}
		})
	}
	ts.do(t, "GET", "/readyz", "", "").want(t, http.StatusOK)
}
