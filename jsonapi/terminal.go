package jsonapi

import "github.com/boxwatch/boxwatch"

// Terminals are the facilities carriers name by SMDG code at the ports of a route: a shipment's
// port of discharge terminal, its containers' terminal and pickup facility, a milestone's terminal.

// TerminalAttributes is the wire form of a terminal.
type TerminalAttributes struct {
	Name            string  `json:"name"`
	Nickname        *string `json:"nickname" doc:"From boxwatch's terminal list; null for a terminal only carriers named."`
	FirmsCode       *string `json:"firms_code" doc:"CBP's FIRMS code, from boxwatch's terminal list; null for a terminal only carriers named."`
	SMDGCode        *string `json:"smdg_code"`
	BICFacilityCode *string `json:"bic_facility_code" doc:"Null: carriers report terminals by SMDG code."`
	Street          *string `json:"street" doc:"From boxwatch's terminal list (SMDG's address); null for a terminal only carriers named."`
	City            *string `json:"city" doc:"The city of the terminal's port, when known."`
	State           *string `json:"state" doc:"From boxwatch's terminal list; null otherwise (the port list holds state abbreviations only)."`
	StateAbbr       *string `json:"state_abbr"`
	Zip             *string `json:"zip" doc:"From boxwatch's terminal list; null for a terminal only carriers named."`
	Country         *string `json:"country" doc:"The ISO 3166 country code of the terminal's port."`
}

// TerminalRelationships link a terminal to its port.
type TerminalRelationships struct {
	Port ToOne `json:"port"`
}

// TerminalResource is a terminal as a JSON:API resource.
type TerminalResource struct {
	ID            string                `json:"id" format:"uuid"`
	Type          string                `json:"type" enum:"terminal"`
	Attributes    TerminalAttributes    `json:"attributes"`
	Relationships TerminalRelationships `json:"relationships"`
	Links         ResourceLinks         `json:"links"`
}

// TerminalDocument answers one terminal.
type TerminalDocument = Document[TerminalResource]

// Terminal renders a terminal with what the port list knows of its port. A terminal no carrier
// named is called by its code and port.
func (rd Renderer) Terminal(t boxwatch.Terminal) TerminalResource {
	a := TerminalAttributes{Name: t.Name, SMDGCode: optString(t.SMDGCode), FirmsCode: optString(t.FIRMSCode), Nickname: optString(t.Nickname),
		Street: optString(t.Street), City: optString(t.City), State: optString(t.State), StateAbbr: optString(t.StateAbbr),
		Zip: optString(t.Zip), Country: optString(t.Country)}
	if pt, ok := rd.port(t.LOCODE); ok && !t.Listed {
		a.City, a.StateAbbr, a.Country = optString(pt.City), optString(pt.StateAbbr), optString(pt.CountryCode)
		if a.Name == "" {
			a.Name = t.SMDGCode + " terminal, " + pt.Name
		}
	}
	if a.Name == "" {
		a.Name = t.SMDGCode + " terminal, " + t.LOCODE
	}
	return TerminalResource{ID: t.ID, Type: "terminal", Attributes: a,
		Relationships: TerminalRelationships{Port: linkTo(portID(t.LOCODE), "port")},
		Links:         ResourceLinks{Self: "/v2/terminals/" + t.ID}}
}

// stopTerminal is the terminal of a route stop, ok false when the carrier named none.
func stopTerminal(s boxwatch.RouteStop) (boxwatch.Terminal, bool) {
	if s.TerminalCode == "" {
		return boxwatch.Terminal{}, false
	}
	return boxwatch.Terminal{ID: s.TerminalID(), LOCODE: s.LOCODE, SMDGCode: s.TerminalCode, Name: s.TerminalName}, true
}

// stopAt is the route's stop at a port, the zero stop when the route does not call there.
func stopAt(route []boxwatch.RouteStop, locode string) boxwatch.RouteStop {
	for _, s := range route {
		if s.LOCODE == locode {
			return s
		}
	}
	return boxwatch.RouteStop{}
}
