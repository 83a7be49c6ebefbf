package api_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

func TestFeatureGatedRoute(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		const path = "/v2/test/needs_map"
		ts := newTestServer(t, b, func(_ testing.TB, c *api.Config, _ *store.DB) {
			api.AddFeatureRoute(c, path, boxwatch.FeatureMap)
		})
		unknownKey, _, err := boxwatch.NewAPIKey(boxwatch.NewID(boxwatch.SystemClock()), boxwatch.SystemClock())
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name   string
			key    string
			status int
			body   string
		}{
			{"OK", ts.acme, 200, `{"meta":{"ok":true}}`},
			{"ErrForbidden", ts.globex, 403, `{"errors":[{"status":"403","title":"Forbidden",` +
				`"detail":"Routing data feature is not enabled for this account","code":"forbidden"}]}`},
			{"ErrUnauthorized", unknownKey, 401, ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := ts.do(t, "GET", path, tt.key, "").want(t, tt.status)
				if tt.body == "" {
					r.wantError(t, tt.status, "unauthorized", "", "")
					return
				}
				var want map[string]any
				if err := json.Unmarshal([]byte(tt.body), &want); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(r.body, want) {
					t.Fatalf("body %s, want %s", r.raw, tt.body)
				}
			})
		}

		t.Run("OpenAPI", func(t *testing.T) {
			doc := ts.do(t, "GET", "/v2/openapi.json", "", "").want(t, 200).body
			if get(doc, "paths", path, "get", "responses", "403") == nil {
				t.Errorf("the gated route documents no 403: %v", get(doc, "paths", path, "get", "responses"))
			}
			if get(doc, "paths", "/v2/shipments", "get", "responses", "403") != nil {
				t.Errorf("an ungated route documents a 403")
			}
		})
	})
}
