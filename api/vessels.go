package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// vesselRoutes are the vessel endpoints, the estimated paths included.
func (s *server) vesselRoutes() []route {
	st, now, ports := s.cfg.Store, s.cfg.Clock, portRenderer{ports: s.cfg.Ports}
	return []route{
		{
			method: "GET", path: "/v2/vessels/{id}", tag: "Vessels",
			summary: "Get a vessel",
			doc: "Returns a vessel by its id or IMO number. With show_positions[from_timestamp] or show_positions[to_timestamp] " +
				"(accounts with the map feature) it adds positions[], its stored AIS positions in that window, oldest first, at most 20,000.",
			auth: true, bucket: bucketDefault, params: vesselGetParams,
			status: http.StatusOK, resp: jsonapi.VesselDocument{},
			errors:  []int{400, 401, 403, 404, 429},
			handler: handleVesselGet(st, s.cfg.Positions, now, s.baseURL),
		},
		{
			method: "GET", path: "/v2/vessels/{id}/future_positions", tag: "Vessels",
			summary: "Get the vessel's estimated path between two ports",
			doc: "Returns the vessel with positions[]: the sea route from previous_port_id to port_id as positions one minute " +
				"apart (estimated: true), timed from now at the speed the vessel made good over its last 12 hours of track " +
				"(16 knots when that is unknown or under 2 knots), at most 60 days of them.",
			auth: true, feature: boxwatch.FeatureMap, bucket: bucketDefault, params: futureParams,
			status: http.StatusOK, resp: jsonapi.VesselDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleFuturePositions(st, ports, s.cfg.Journey, false, s.baseURL),
		},
		{
			method: "GET", path: "/v2/vessels/{id}/future_positions_with_coordinates", tag: "Vessels",
			summary: "Get the vessel's estimated path from a point to a port",
			doc:     "As future_positions, from latitude and longitude (where the vessel is) instead of the previous port.",
			auth:    true, feature: boxwatch.FeatureMap, bucket: bucketDefault, params: futureWithCoordinatesParams,
			status: http.StatusOK, resp: jsonapi.VesselDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleFuturePositions(st, ports, s.cfg.Journey, true, s.baseURL),
		},
	}
}

func handleVesselGet(st boxwatch.VesselStore, positions boxwatch.PositionStore, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		from, to, show, err := showPositions(r, now())
		if err != nil {
			return err
		}
		v, err := st.Vessel(r.Context(), r.PathValue("id"))
		if err != nil {
			return err
		}
		res := jsonapi.Vessel(v)
		if show {
			list, err := pastPositions(r.Context(), positions, v, from, to)
			if err != nil {
				return err
			}
			res.Attributes.Positions = &list
		}
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}
