package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// portRoutes are the endpoints of ports, of the terminals carriers name at them and of the metro
// areas around them.
func (s *server) portRoutes(rd jsonapi.Renderer) []route {
	st, ports := s.cfg.Store, portRenderer{ports: s.cfg.Ports}
	return []route{
		{
			method: "GET", path: "/v2/ports/{id}", tag: "Ports",
			summary: "Get a port",
			doc:     "Returns a port by its id or UN/LOCODE.",
			auth:    true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.PortDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handlePortGet(st, ports, s.baseURL),
		},
		{
			method: "GET", path: "/v2/terminals/{id}", tag: "Ports",
			summary: "Get a terminal",
			doc: "Returns a terminal carriers named at a port of a route, by SMDG code (the simulator's terminals have SX codes and " +
				"names that end in (simulated)). Shipments, containers and transport events link to it.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.TerminalDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleTerminalGet(st, rd, s.baseURL),
		},
		{
			method: "GET", path: "/v2/metro_areas/{id}", tag: "Ports",
			summary: "Get a metro area",
			doc:     "Returns the city area of a port by the port's id or UN/LOCODE: boxwatch knows the cities of its ports, not inland ones.",
			auth:    true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.MetroAreaDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleMetroAreaGet(ports, s.baseURL),
		},
	}
}

func handlePortGet(st boxwatch.TerminalStore, p portRenderer, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		pt, ok := p.lookup(r.PathValue("id"))
		if !ok {
			return boxwatch.ErrNotFound
		}
		withPort, err := jsonapi.WithTerminals(r.Context(), st, []any{jsonapi.Port(pt)})
		if err != nil {
			return err
		}
		res := withPort[0].(jsonapi.PortResource)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

func handleTerminalGet(st boxwatch.TerminalStore, rd jsonapi.Renderer, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := st.Terminal(r.Context(), r.PathValue("id"))
		if err != nil {
			return err
		}
		res := rd.Terminal(t)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

// handleMetroAreaGet finds a metro area by its id or its UN/LOCODE.
func handleMetroAreaGet(p portRenderer, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		pt, ok := p.lookup(id)
		if !ok {
			return boxwatch.ErrNotFound
		}
		res := jsonapi.MetroArea(pt)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}
