package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/boxwatch/boxwatch/assistant"
	"github.com/boxwatch/boxwatch/client"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// withKey sends every request with an API key, as an MCP client configured with a header does.
type withKey struct {
	scheme, key string
}

func (k withKey) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", k.scheme+" "+k.key)
	return http.DefaultTransport.RoundTrip(req)
}

// mcpHTTP connects the Go SDK's client to the MCP server at url/mcp with key, sent as Bearer.
func mcpHTTP(t testing.TB, url, key string) *mcp.ClientSession {
	t.Helper()
	return mcpHTTPScheme(t, url, "Bearer", key)
}

func mcpHTTPScheme(t testing.TB, url, scheme, key string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: &http.Client{Transport: withKey{scheme, key}}, MaxRetries: -1}
	s, err := mcp.NewClient(&mcp.Implementation{Name: "boxwatch-test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connecting over HTTP: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// mcpStdio runs "boxwatch mcp" in process on pipes for its stdin and stdout, pointed at url with
// key as a desktop assistant would start it, and connects the Go SDK's client to it.
func mcpStdio(t testing.TB, url, key string) *mcp.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	env := map[string]string{"BOXWATCH_URL": url, "BOXWATCH_KEY": key}
	done := make(chan error, 1)
	var stderr lockedBuffer
	go func() {
		done <- run(context.Background(), []string{"mcp"}, func(k string) string { return env[k] }, inR, outW, &stderr)
		outW.Close()
	}()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "boxwatch-test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connecting over stdio: %v (stderr %s)", err, stderr.String())
	}
	t.Cleanup(func() {
		s.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("boxwatch mcp: %v (stderr %s)", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			t.Error("boxwatch mcp did not end with its stdin")
		}
	})
	return s
}

// callTool calls a tool that must succeed and decodes its structured content into out; it
// returns the summary, the first text of the answer.
func callTool(t *testing.T, s *mcp.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", name, args, textOf(res.Content))
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, raw, err)
	}
	if len(res.Content) != 2 {
		t.Fatalf("%s answered %d contents, want the summary and the JSON", name, len(res.Content))
	}
	if j := res.Content[1].(*mcp.TextContent).Text; !json.Valid([]byte(j)) || !jsonEqual(t, []byte(j), raw) {
		t.Fatalf("%s: the JSON text differs from the structured content:\n%s\n%s", name, j, raw)
	}
	return textOf(res.Content[:1])
}

// toolError calls a tool that must fail, and returns what it says.
func toolError(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v, want a tool error", name, args, err)
	}
	if !res.IsError {
		t.Fatalf("%s(%v) succeeded, want a tool error: %s", name, args, textOf(res.Content))
	}
	return textOf(res.Content)
}

func textOf(cs []mcp.Content) string {
	var parts []string
	for _, c := range cs {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// wantTime checks a time at a place against the API's time and the place's zone.
func wantTime(t *testing.T, what string, got *assistant.Time, want *time.Time, zone *string) {
	t.Helper()
	switch {
	case want == nil && got == nil:
		return
	case want == nil || got == nil:
		t.Errorf("%s: got %+v, the API says %v", what, got, want)
		return
	}
	name := "UTC"
	if zone != nil {
		name = *zone
	}
	local, err := time.Parse(time.RFC3339, got.Local)
	if err != nil || !local.Equal(*want) || got.UTC != want.UTC().Format(time.RFC3339) || got.TimeZone != name {
		t.Errorf("%s: got %+v, the API says %s in %s", what, got, want.UTC().Format(time.RFC3339), name)
		return
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, off := local.Zone(); off != func() int { _, o := want.In(loc).Zone(); return o }() {
		t.Errorf("%s: %s is not local time in %s", what, got.Local, name)
	}
}

func TestMCPListsTerminal49sToolsPromptsAndResources(t *testing.T) {
	t.Parallel()
	url, key := demoServer(t, t.TempDir()+"/boxwatch.db", "--sim-speed", "1")
	for name, s := range map[string]*mcp.ClientSession{"HTTP": mcpHTTP(t, url, key), "stdio": mcpStdio(t, url, key)} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			tools, err := s.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			params := map[string][]string{}
			for _, tl := range tools.Tools {
				var schema struct {
					Properties map[string]json.RawMessage `json:"properties"`
				}
				raw, _ := json.Marshal(tl.InputSchema)
				if err := json.Unmarshal(raw, &schema); err != nil {
					t.Fatal(err)
				}
				for p := range schema.Properties {
					params[tl.Name] = append(params[tl.Name], p)
				}
				slices.Sort(params[tl.Name])
				if tl.OutputSchema == nil || tl.Description == "" || tl.Annotations == nil {
					t.Errorf("%s has no output schema, description or annotations", tl.Name)
				}
				writes := tl.Name == "track_container" || tl.Name == "redeliver_failed_deliveries"
				if tl.Annotations.ReadOnlyHint == writes {
					t.Errorf("%s: readOnlyHint %v", tl.Name, tl.Annotations.ReadOnlyHint)
				}
			}
			want := map[string][]string{
				// Terminal49's ten, with its parameter names.
				"search_container":               {"query"},
				"track_container":                {"bookingNumber", "containerNumber", "number", "numberType", "refNumbers", "scac"},
				"get_container":                  {"id", "include"},
				"get_shipment_details":           {"id", "include_containers"},
				"get_container_transport_events": {"id"},
				"get_supported_shipping_lines":   {"search"},
				"get_container_route":            {"id"},
				"list_shipments":                 {"include_containers", "number", "page", "page_size", "tracking_stopped"},
				"list_containers":                {"include", "page", "page_size"},
				"list_tracking_requests":         {"filters", "page", "page_size", "request_type", "status"},
				// boxwatch's own.
				"get_container_journey":       {"id"},
				"infer_number":                {"number"},
				"list_failed_deliveries":      {"page", "page_size", "webhook_id"},
				"redeliver_failed_deliveries": {"notification_id", "since", "webhook_id"},
			}
			if !mapsEqual(params, want) {
				t.Errorf("tools and their parameters:\n got %v\nwant %v", params, want)
			}
			// The documentation describes every tool; the README names each.
			doc, err := os.ReadFile("../../docs/mcp.md")
			if err != nil {
				t.Fatal(err)
			}
			readme, err := os.ReadFile("../../README.md")
			if err != nil {
				t.Fatal(err)
			}
			for name := range want {
				if !regexp.MustCompile(`(?m)^### `+name+`( \(boxwatch\))?$`).Match(doc) || !bytes.Contains(readme, []byte("`"+name+"`")) {
					t.Errorf("docs/mcp.md has no section for %s, or the README does not name it", name)
				}
			}

			prompts, err := s.ListPrompts(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range prompts.Prompts {
				names = append(names, p.Name)
			}
			slices.Sort(names)
			if !slices.Equal(names, []string{"analyze-delays", "check-demurrage", "track-shipment"}) {
				t.Errorf("prompts %v", names)
			}
			resources, err := s.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			templates, err := s.ListResourceTemplates(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			names = nil
			for _, r := range resources.Resources {
				names = append(names, r.Name+" "+r.URI)
			}
			for _, r := range templates.ResourceTemplates {
				names = append(names, r.Name+" "+r.URITemplate)
			}
			slices.Sort(names)
			if !slices.Equal(names, []string{"container boxwatch://container/{id}", "list-display-columns boxwatch://docs/list-display-columns",
				"milestone-glossary boxwatch://docs/milestone-glossary", "query-guidance boxwatch://docs/mcp-query-guidance"}) {
				t.Errorf("resources %v", names)
			}
		})
	}
}

func mapsEqual(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// demoWorld is what the MCP tests read: a served demo whose simulated world runs in real time,
// shipments tracked through the API (one at sea on its first leg of two, one discharged at its
// port), and a webhook whose receiver fails, so that its deliveries fail for good.
type demoWorld struct {
	url, key   string
	rest       *client.Client
	atSea      client.Shipment
	atTerminal client.Shipment
	webhook    client.Webhook
	// received collects the webhook-id of every delivery the receiver got.
	received chan string
}

func startDemoWorld(t *testing.T, dsn string) demoWorld {
	t.Helper()
	ctx := context.Background()
	w := demoWorld{received: make(chan string, 1000)}
	w.url, w.key = demoServer(t, dsn, "--sim-speed", "1")
	var err error
	if w.rest, err = client.New(w.url, w.key); err != nil {
		t.Fatal(err)
	}
	recv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		select {
		case w.received <- r.Header.Get("webhook-id"):
		default:
		}
		http.Error(rw, "the receiver is down", http.StatusInternalServerError)
	}))
	t.Cleanup(recv.Close)
	active := true
	if w.webhook, err = w.rest.CreateWebhook(ctx, client.WebhookChange{URL: recv.URL, Active: &active,
		Events: []string{"tracking_request.succeeded"}}); err != nil {
		t.Fatal(err)
	}
	for number, dst := range map[string]*client.Shipment{"MAEU123456712": &w.atSea, "MAEU123456788": &w.atTerminal} {
		tr, err := w.rest.CreateTrackingRequest(ctx, client.NewTrackingRequest{RequestType: client.BillOfLading, RequestNumber: number, SCAC: "MAEU"})
		if err != nil {
			t.Fatal(err)
		}
		if tr = settle(t, w.rest, tr.ID); tr.ShipmentID == "" {
			t.Fatalf("tracking %s: %s, no shipment", number, tr.Status)
		}
		if *dst, err = w.rest.Shipment(ctx, tr.ShipmentID); err != nil {
			t.Fatal(err)
		}
	}
	trackingtest.Eventually(t, 90*time.Second, "the deliveries to a failing receiver did not fail for good", func() bool {
		l, err := w.rest.Notifications(ctx, client.NotificationQuery{WebhookID: w.webhook.ID, DeliveryStatus: client.DeliveryFailed})
		return err == nil && l.Total == 2
	})
	return w
}

// settle polls a tracking request until its lookup is over.
func settle(t testing.TB, c *client.Client, id string) client.TrackingRequest {
	t.Helper()
	var tr client.TrackingRequest
	trackingtest.Eventually(t, 60*time.Second, "the lookup did not end", func() bool {
		var err error
		if tr, err = c.TrackingRequest(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		return tr.Settled()
	})
	return tr
}

// same calls a read-only tool on both sessions and checks that they answer alike, allowing the
// simulated world to move between the two calls: the answers must agree within a few tries. It
// decodes the answer into out.
func same(t *testing.T, sessions []*mcp.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	var summary string
	for try := 0; ; try++ {
		var answers [][]byte
		for _, s := range sessions {
			summary = callTool(t, s, name, args, out)
			raw, _ := json.Marshal(out)
			answers = append(answers, raw)
		}
		if jsonEqual(t, answers[0], answers[1]) {
			return summary
		}
		if try == 4 {
			t.Fatalf("%s answers differently over HTTP and over stdio:\n%s\n%s", name, answers[0], answers[1])
		}
	}
}

// TestMCPCostsWhatTheRESTCallsCost runs the service with one request a minute in each bucket: a
// tool takes a token of the bucket of each REST call behind it, listing what the server offers
// takes none, and MCP and REST spend the same buckets.
func TestMCPCostsWhatTheRESTCallsCost(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ctx := context.Background()
		url, key := demoServer(t, b.DSN(t), "--sim-speed", "1", "--limit-default", "1", "--limit-create", "1", "--limit-infer", "1")
		s := mcpHTTP(t, url, key)
		for range 3 {
			if _, err := s.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "track-shipment", Arguments: map[string]string{"container_number": "MSCU1234566"}}); err != nil {
				t.Fatal(err)
			}
			readResource(t, s, "boxwatch://docs/mcp-query-guidance")
		}

		var inferred assistant.Inference
		callTool(t, s, "infer_number", map[string]any{"number": "MSCU1234566"}, &inferred)
		if msg := toolError(t, s, "infer_number", map[string]any{"number": "MSCU1234566"}); !strings.Contains(msg, "rate limited") || !strings.Contains(msg, "infer number limit") {
			t.Errorf("a second inference in the minute: %q", msg)
		}

		var tracked assistant.Tracked
		callTool(t, s, "track_container", map[string]any{"number": "MAEU123456784", "numberType": "bill_of_lading", "scac": "MAEU"}, &tracked)
		if msg := toolError(t, s, "track_container", map[string]any{"number": "MAEU123456785", "numberType": "bill_of_lading", "scac": "MAEU"}); !strings.Contains(msg, "create tracking requests limit") {
			t.Errorf("a second create in the minute: %q", msg)
		}

		var list assistant.TrackingRequests
		callTool(t, s, "list_tracking_requests", map[string]any{}, &list)
		if list.Total != 1 {
			t.Errorf("tracking requests %+v", list)
		}
		if msg := toolError(t, s, "search_container", map[string]any{"query": "MAEU"}); !strings.Contains(msg, "rate limited") || !strings.Contains(msg, "try again in") {
			t.Errorf("a second read in the minute: %q", msg)
		}
		rest, err := client.New(url, key)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rest.TrackingRequests(ctx, client.TrackingRequestQuery{}); client.StatusOf(err) != http.StatusTooManyRequests {
			t.Errorf("the REST API after MCP spent the minute's read: %v", err)
		}
	})
}

// BenchmarkGetContainer compares get_container over MCP, at /mcp and through boxwatch mcp, with
// the REST call behind it (GET /v2/containers/{id}?include=shipment), on one demo server.
func BenchmarkGetContainer(b *testing.B) {
	ctx := context.Background()
	url, key := demoServer(b, b.TempDir()+"/boxwatch.db", "--sim-speed", "1", "--limit-default", "0", "--log-level", "error")
	rest, err := client.New(url, key)
	if err != nil {
		b.Fatal(err)
	}
	tr, err := rest.CreateTrackingRequest(ctx, client.NewTrackingRequest{RequestType: client.BillOfLading, RequestNumber: "MAEU123456712", SCAC: "MAEU"})
	if err != nil {
		b.Fatal(err)
	}
	s, err := rest.Shipment(ctx, settle(b, rest, tr.ID).ShipmentID)
	if err != nil {
		b.Fatal(err)
	}
	id := s.Containers[0].ID
	b.Run("REST", func(b *testing.B) {
		for b.Loop() {
			if _, err := rest.Container(ctx, id, "shipment"); err != nil {
				b.Fatal(err)
			}
		}
	})
	for name, session := range map[string]*mcp.ClientSession{"MCP-HTTP": mcpHTTP(b, url, key), "MCP-stdio": mcpStdio(b, url, key)} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_container", Arguments: map[string]any{"id": id}})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
