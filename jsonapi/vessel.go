package jsonapi

import "github.com/boxwatch/boxwatch"

// VesselAttributes is the wire form of a vessel.
type VesselAttributes struct {
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
	Positions *[]VesselPosition `json:"positions"`
}

// VesselPosition is one position of a vessel's past or estimated path.
type VesselPosition struct {
	Latitude  float64  `json:"latitude"`
	Longitude float64  `json:"longitude"`
	Heading   *float64 `json:"heading"`
	Timestamp string   `json:"timestamp" format:"date-time"`
	Estimated bool     `json:"estimated"`
}

// VesselResource is a vessel as a JSON:API resource.
type VesselResource struct {
	ID         string           `json:"id" format:"uuid"`
	Type       string           `json:"type" enum:"vessel"`
	Attributes VesselAttributes `json:"attributes"`
	Links      ResourceLinks    `json:"links"`
}

// VesselDocument answers one vessel.
type VesselDocument = Document[VesselResource]

// Vessel renders a vessel with its last known position, without its path.
func Vessel(v boxwatch.Vessel) VesselResource {
	a := VesselAttributes{Name: v.Name, IMO: v.IMO, MMSI: optString(v.MMSI)}
	if p := v.Position; p != nil {
		lat, lon := p.Latitude, p.Longitude
		a.Latitude, a.Longitude, a.NauticalSpeedKnots, a.NavigationalHeadingDegrees = &lat, &lon, p.SpeedKnots, p.HeadingDegrees
		a.PositionTimestamp = optTime(p.Timestamp)
	}
	return VesselResource{ID: v.ID, Type: "vessel", Attributes: a, Links: ResourceLinks{Self: "/v2/vessels/" + v.ID}}
}
