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
			status: http.StatusOK, resp: vesselDocument{},
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
			status: http.StatusOK, resp: vesselDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleFuturePositions(st, ports, s.cfg.Journey, false, s.baseURL),
		},
		{
			method: "GET", path: "/v2/vessels/{id}/future_positions_with_coordinates", tag: "Vessels",
			summary: "Get the vessel's estimated path from a point to a port",
			doc:     "As future_positions, from latitude and longitude (where the vessel is) instead of the previous port.",
			auth:    true, feature: boxwatch.FeatureMap, bucket: bucketDefault, params: futureWithCoordinatesParams,
			status: http.StatusOK, resp: vesselDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handleFuturePositions(st, ports, s.cfg.Journey, true, s.baseURL),
		},
	}
}

type vesselAttributes struct {
	Name                       string   `json:"name"`
	IMO                        string   `json:"imo"`
	MMSI                       *string  `json:"mmsi"`
	Latitude                   *float64 `json:"latitude"`
	Longitude                  *float64 `json:"longitude"`
	NauticalSpeedKnots         *float64 `json:"nautical_speed_knots"`
	NavigationalHeadingDegrees *float64 `json:"navigational_heading_degrees"`
	PositionTimestamp          *string  `json:"position_timestamp" format:"date-time"`
	// Positions are listed only when asked for (show_positions, future positions); null otherwise,
	// as every attribute of the reference is present.
	Positions *[]vesselPosition `json:"positions"`
}

type vesselResource struct {
	ID         string                `json:"id" format:"uuid"`
	Type       string                `json:"type" enum:"vessel"`
	Attributes vesselAttributes      `json:"attributes"`
	Links      jsonapi.ResourceLinks `json:"links"`
}

type vesselDocument = jsonapi.Document[vesselResource]

func vesselOut(v boxwatch.Vessel) vesselResource {
	a := vesselAttributes{Name: v.Name, IMO: v.IMO, MMSI: optString(v.MMSI)}
	if p := v.Position; p != nil {
		lat, lon := p.Latitude, p.Longitude
		a.Latitude, a.Longitude, a.NauticalSpeedKnots, a.NavigationalHeadingDegrees = &lat, &lon, p.SpeedKnots, p.HeadingDegrees
		a.PositionTimestamp = optTime(p.Timestamp)
	}
	return vesselResource{ID: v.ID, Type: "vessel", Attributes: a, Links: jsonapi.ResourceLinks{Self: "/v2/vessels/" + v.ID}}
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
		res := vesselOut(v)
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
