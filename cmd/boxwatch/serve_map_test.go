package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// TestServeDemoMap runs serve --demo --sim-speed 5000 and follows the map of a container at sea
// on the first leg of a journey with a transshipment: the vessel moves between two reads, the
// path sailed grows, the partial leg starts at the vessel, and the last leg is drawn ahead.
func TestServeDemoMap(t *testing.T) {
	t.Parallel()
	dsn := storetest.SQLite.DSN(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--sim-speed", "5000", "--refresh-interval", "1s", "--addr", "127.0.0.1:0",
			"--admin-addr", "off", "--db", dsn}, func(string) string { return "" }, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	url, key := readDemo(t, pr)
	go io.Copy(io.Discard, pr)

	call := func(method, path, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Token "+key)
		if body != "" {
			req.Header.Set("Content-Type", "application/vnd.api+json")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var doc map[string]any
		if err := json.NewDecoder(res.Body).Decode(&doc); err != nil || res.StatusCode >= 300 {
			t.Fatalf("%s %s: %d, %v", method, path, res.StatusCode, err)
		}
		return doc
	}
	call("POST", "/v2/tracking_requests", `{"data":{"type":"tracking_request","attributes":{"request_type":"bill_of_lading","request_number":"MAEU123456712","scac":"MAEU"}}}`)
	var container string
	trackingtest.Eventually(t, 30*time.Second, "no container", func() bool {
		ships := call("GET", "/v2/shipments", "")["data"].([]any)
		if len(ships) == 0 {
			return false
		}
		cs := ships[0].(map[string]any)["relationships"].(map[string]any)["containers"].(map[string]any)["data"].([]any)
		if len(cs) == 0 {
			return false
		}
		container = cs[0].(map[string]any)["id"].(string)
		return true
	})

	type view struct {
		vessel      []any
		pastEnd     string
		partialHead []any
		kinds       string
	}
	look := func() (v view) {
		for _, f := range call("GET", "/v2/containers/"+container+"/map_geojson", "")["features"].([]any) {
			f := f.(map[string]any)
			p, g := f["properties"].(map[string]any), f["geometry"].(map[string]any)
			kind := p["feature_type"].(string)
			v.kinds += kind + " "
			switch kind {
			case "current_vessel":
				v.vessel = g["coordinates"].([]any)
			case "past_vessel_locations":
				v.pastEnd, _ = p["end_time"].(string)
			case "estimated_partial_leg":
				v.partialHead = g["coordinates"].([]any)[0].([]any)
			}
		}
		return v
	}
	const want = "port current_vessel past_vessel_locations estimated_partial_leg port port estimated_full_legs "
	var first view
	trackingtest.Eventually(t, 30*time.Second, "no vessel at sea on the map", func() bool {
		first = look()
		return first.kinds == want
	})
	if first.partialHead[0] != first.vessel[0] || first.partialHead[1] != first.vessel[1] {
		t.Errorf("the partial leg starts at %v, the vessel is at %v", first.partialHead, first.vessel)
	}
	var second view
	trackingtest.Eventually(t, 40*time.Second, "the vessel did not move", func() bool { // the server reuses a map for 10 s
		second = look()
		return second.kinds == want && (second.vessel[0] != first.vessel[0] || second.vessel[1] != first.vessel[1])
	})
	if second.pastEnd <= first.pastEnd {
		t.Errorf("the path sailed ended at %s, then at %s", first.pastEnd, second.pastEnd)
	}
	if second.partialHead[0] != second.vessel[0] || second.partialHead[1] != second.vessel[1] {
		t.Errorf("the partial leg starts at %v, the vessel is at %v", second.partialHead, second.vessel)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve returned %v", err)
	}
}
