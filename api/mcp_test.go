package api_test

import (
	"net/http"
	"testing"

	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// TestMCPBehindTheKeyCheck mounts a handler at /mcp that answers with what the API it is given
// answers: callers without a valid key never reach it, callers with one reach the API through it
// as themselves, and it takes no token of its own.
func TestMCPBehindTheKeyCheck(t *testing.T) {
	withMCP := func(_ testing.TB, c *api.Config, _ *store.DB) {
		c.MCP = func(apiHandler http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				in, _ := http.NewRequestWithContext(r.Context(), "GET", "/v2/shipments", nil)
				in.Header.Set("Authorization", r.Header.Get("Authorization"))
				apiHandler.ServeHTTP(w, in)
			})
		}
	}
	ts := newTestServer(t, storetest.Backends[0], withMCP, withLimits(api.Limits{Default: 1}))
	ts.do(t, "POST", "/mcp", "", "").wantError(t, http.StatusUnauthorized, "unauthorized", "", "")
	ts.do(t, "POST", "/mcp", "bw_0000000000000000_00000000000000000000000000000000", "").wantError(t, http.StatusUnauthorized, "unauthorized", "", "")
	// The one read of the minute is the API's, reached through /mcp; the next is refused.
	if r := ts.do(t, "POST", "/mcp", ts.acme, "").want(t, http.StatusOK); r.body["data"] == nil {
		t.Fatalf("the API through /mcp: %s", r.raw)
	}
	ts.do(t, "GET", "/v2/shipments", ts.acme, "").wantError(t, http.StatusTooManyRequests, "rate_limited", "", "")
}
