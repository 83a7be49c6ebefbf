package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
)

// A metro area is the city region around a port. boxwatch knows the cities of its ports (the
// shipped port list) and no inland ones, so each port's city is a metro area with the port's
// UN/LOCODE, and the port's id (ids are unique per type).

type metroAreaAttributes struct {
	Name        string   `json:"name"`
	Code        string   `json:"code" doc:"UN/LOCODE"`
	StateAbbr   *string  `json:"state_abbr"`
	CountryCode string   `json:"country_code"`
	TimeZone    *string  `json:"time_zone"`
	Latitude    *float64 `json:"latitude"`
	Longitude   *float64 `json:"longitude"`
}

type metroAreaResource struct {
	ID         string              `json:"id" format:"uuid"`
	Type       string              `json:"type" enum:"metro_area"`
	Attributes metroAreaAttributes `json:"attributes"`
	Links      resourceLinks       `json:"links"`
}

type metroAreaDocument = document[metroAreaResource]

func metroAreaOut(pt boxwatch.Port) metroAreaResource {
	name := pt.City
	if name == "" {
		name = pt.Name
	}
	a := metroAreaAttributes{Name: name, Code: pt.LOCODE, StateAbbr: optString(pt.StateAbbr), CountryCode: pt.CountryCode, TimeZone: optString(pt.TimeZone)}
	if pt.HasCoordinates {
		lat, lon := pt.Latitude, pt.Longitude
		a.Latitude, a.Longitude = &lat, &lon
	}
	id := pt.ID
	return metroAreaResource{ID: id, Type: "metro_area", Attributes: a, Links: resourceLinks{Self: "/v2/metro_areas/" + id}}
}

// handleMetroAreaGet finds a metro area by its id or its UN/LOCODE.
func handleMetroAreaGet(p portRenderer, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id := r.PathValue("id")
		pt, ok := p.lookup(id)
		if !ok {
			return boxwatch.ErrNotFound
		}
		res := metroAreaOut(pt)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

// lookup finds a port by its id or UN/LOCODE.
func (p portRenderer) lookup(id string) (boxwatch.Port, bool) {
	if p.ports == nil {
		return boxwatch.Port{}, false
	}
	if pt, ok := p.ports.ByID(id); ok {
		return pt, true
	}
	return p.ports.ByLOCODE(id)
}
