package jsonapi

import (
	"context"

	"github.com/boxwatch/boxwatch"
)

// PortAttributes is the wire form of a port.
type PortAttributes struct {
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

// PortRelationships link a port to its terminals.
type PortRelationships struct {
	Terminals ToMany `json:"terminals" doc:"The terminals carriers have named at the port."`
}

// PortResource is a port as a JSON:API resource.
type PortResource struct {
	ID            string            `json:"id" format:"uuid"`
	Type          string            `json:"type" enum:"port"`
	Attributes    PortAttributes    `json:"attributes"`
	Relationships PortRelationships `json:"relationships"`
	Links         ResourceLinks     `json:"links"`
}

// PortDocument answers one port.
type PortDocument = Document[PortResource]

// Port renders a port; its terminals relationship stays empty until WithTerminals fills it.
func Port(pt boxwatch.Port) PortResource {
	a := PortAttributes{ID: pt.ID, Name: pt.Name, Code: pt.LOCODE, StateAbbr: optString(pt.StateAbbr), City: optString(pt.City),
		CountryCode: pt.CountryCode, TimeZone: optString(pt.TimeZone)}
	if pt.HasCoordinates {
		lat, lon := pt.Latitude, pt.Longitude
		a.Latitude, a.Longitude = &lat, &lon
	}
	rel := PortRelationships{Terminals: ToMany{Data: []ResourceIdentifier{}}}
	return PortResource{ID: pt.ID, Type: "port", Attributes: a, Relationships: rel, Links: ResourceLinks{Self: "/v2/ports/" + pt.ID}}
}

// WithTerminals fills the terminals relationship of every port among resources, with one read.
func WithTerminals(ctx context.Context, st boxwatch.TerminalStore, resources []any) ([]any, error) {
	var locodes []string
	for _, v := range resources {
		if pr, ok := v.(PortResource); ok {
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
		if pr, ok := v.(PortResource); ok {
			for _, t := range byPort[pr.Attributes.Code] {
				pr.Relationships.Terminals.Data = append(pr.Relationships.Terminals.Data, ResourceIdentifier{ID: t.ID, Type: "terminal"})
			}
			resources[i] = pr
		}
	}
	return resources, nil
}
