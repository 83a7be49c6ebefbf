package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

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

func handleVesselGet(st boxwatch.Store, positions boxwatch.PositionStore, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
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
