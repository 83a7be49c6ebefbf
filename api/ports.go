package api

import (
	"context"
	"net/http"

	"github.com/boxwatch/boxwatch"
)

type portAttributes struct {
	ID          string   `json:"id" format:"uuid" doc:"The resource id again, as production answers carry it."`
	Name        string   `json:"name"`
	Code        string   `json:"code" doc:"UN/LOCODE"`
	StateAbbr   *string  `json:"state_abbr"`
	City        *string  `json:"city"`
	CountryCode string   `json:"country_code"`
	TimeZone    *string  `json:"time_zone"`
	Latitude    *float64 `json:"latitude"`
	Longitude   *float64 `json:"longitude"`
}

type portRelationships struct {
	Terminals toMany `json:"terminals" doc:"The terminals carriers have named at the port."`
}

type portResource struct {
	ID            string            `json:"id" format:"uuid"`
	Type          string            `json:"type" enum:"port"`
	Attributes    portAttributes    `json:"attributes"`
	Relationships portRelationships `json:"relationships"`
	Links         resourceLinks     `json:"links"`
}

type portDocument = document[portResource]

func portOut(pt boxwatch.Port) portResource {
	a := portAttributes{ID: pt.ID, Name: pt.Name, Code: pt.LOCODE, StateAbbr: optString(pt.StateAbbr), City: optString(pt.City),
		CountryCode: pt.CountryCode, TimeZone: optString(pt.TimeZone)}
	if pt.HasCoordinates {
		lat, lon := pt.Latitude, pt.Longitude
		a.Latitude, a.Longitude = &lat, &lon
	}
	rel := portRelationships{Terminals: toMany{Data: []resourceIdentifier{}}}
	return portResource{ID: pt.ID, Type: "port", Attributes: a, Relationships: rel, Links: resourceLinks{Self: "/v2/ports/" + pt.ID}}
}

// withTerminals fills the terminals relationship of every port among resources, with one read.
func withTerminals(ctx context.Context, st boxwatch.Store, resources []any) ([]any, error) {
	var locodes []string
	for _, v := range resources {
		if pr, ok := v.(portResource); ok {
			locodes = append(locodes, pr.Attributes.Code)
		}
	}
	if len(locodes) == 0 {
		return resources, nil
	}
	byPort, err := st.TerminalsAtPorts(ctx, locodes)
	if err != nil {
		return nil, err
	}
	for i, v := range resources {
		if pr, ok := v.(portResource); ok {
			for _, t := range byPort[pr.Attributes.Code] {
				pr.Relationships.Terminals.Data = append(pr.Relationships.Terminals.Data, resourceIdentifier{ID: t.ID, Type: "terminal"})
			}
			resources[i] = pr
		}
	}
	return resources, nil
}

func handlePortGet(st boxwatch.Store, p portRenderer, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		pt, ok := p.lookup(r.PathValue("id"))
		if !ok {
			return boxwatch.ErrNotFound
		}
		withPort, err := withTerminals(r.Context(), st, []any{portOut(pt)})
		if err != nil {
			return err
		}
		res := withPort[0].(portResource)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}
