package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
)

// AddFeatureRoute adds to the route table of the handler cfg builds a GET route at path, behind
// an API key, that needs feature and answers 200 with {"meta":{"ok":true}}: a route to test
// feature gating with, which production never serves.
func AddFeatureRoute(cfg *Config, path string, feature boxwatch.Feature) {
	cfg.testRoutes = append(cfg.testRoutes, route{
		method: "GET", path: path, tag: "Test", summary: "A route that needs a feature", doc: "Tests only.",
		auth: true, feature: feature, bucket: bucketDefault,
		status: http.StatusOK, resp: map[string]any{}, errors: []int{400, 401, 429},
		handler: func(w http.ResponseWriter, r *http.Request) error {
			writeJSON(w, http.StatusOK, map[string]any{"meta": map[string]any{"ok": true}})
			return nil
		},
	})
}

// RouteInfo is what the hostile-input corpus needs of a route: where it is, the query parameters it
// declares and whether it takes a body.
type RouteInfo struct {
	Method, Path string
	Params       []string
	Body         bool
	// Status is the success status the route documents and answers.
	Status int
}

// RouteTable lists every route of the handler cfg builds.
func RouteTable(cfg Config) []RouteInfo {
	if cfg.Clock == nil {
		cfg.Clock = boxwatch.SystemClock
	}
	s := &server{cfg: cfg}
	var out []RouteInfo
	for _, rt := range s.routes() {
		ri := RouteInfo{Method: rt.method, Path: rt.path, Body: rt.body != nil, Status: rt.status}
		for _, p := range rt.params {
			ri.Params = append(ri.Params, p.name)
		}
		out = append(out, ri)
	}
	return out
}
