package jsonapi

import "github.com/boxwatch/boxwatch"

// A metro area is the city region around a port. boxwatch knows the cities of its ports (the
// shipped port list) and no inland ones, so each port's city is a metro area with the port's
// UN/LOCODE, and the port's id (ids are unique per type).

// MetroAreaAttributes is the wire form of a metro area.
type MetroAreaAttributes struct {
	Name        string   `json:"name"`
	Code        string   `json:"code" doc:"UN/LOCODE"`
	StateAbbr   *string  `json:"state_abbr"`
	CountryCode string   `json:"country_code"`
	TimeZone    *string  `json:"time_zone"`
	Latitude    *float64 `json:"latitude"`
	Longitude   *float64 `json:"longitude"`
}

// MetroAreaResource is a metro area as a JSON:API resource.
type MetroAreaResource struct {
	ID         string              `json:"id" format:"uuid"`
	Type       string              `json:"type" enum:"metro_area"`
	Attributes MetroAreaAttributes `json:"attributes"`
	Links      ResourceLinks       `json:"links"`
}

// MetroAreaDocument answers one metro area.
type MetroAreaDocument = Document[MetroAreaResource]

// MetroArea renders the metro area of a port.
func MetroArea(pt boxwatch.Port) MetroAreaResource {
	name := pt.City
	if name == "" {
		name = pt.Name
	}
	a := MetroAreaAttributes{Name: name, Code: pt.LOCODE, StateAbbr: optString(pt.StateAbbr), CountryCode: pt.CountryCode, TimeZone: optString(pt.TimeZone)}
	if pt.HasCoordinates {
		lat, lon := pt.Latitude, pt.Longitude
		a.Latitude, a.Longitude = &lat, &lon
	}
	id := pt.ID
	return MetroAreaResource{ID: id, Type: "metro_area", Attributes: a, Links: ResourceLinks{Self: "/v2/metro_areas/" + id}}
}
