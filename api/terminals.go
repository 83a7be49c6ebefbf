package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
)

// Terminals are the facilities carriers name by SMDG code at the ports of a route: a shipment's
// port of discharge terminal, its containers' terminal and pickup facility, a milestone's terminal.

type terminalAttributes struct {
	Name            string  `json:"name"`
	Nickname        *string `json:"nickname" doc:"Null: carriers give no nickname."`
	FirmsCode       *string `json:"firms_code" doc:"Null: carriers report SMDG codes, not FIRMS codes."`
	SMDGCode        *string `json:"smdg_code"`
	BICFacilityCode *string `json:"bic_facility_code" doc:"Null: carriers report terminals by SMDG code."`
	Street          *string `json:"street" doc:"Null: carriers give no address."`
	City            *string `json:"city" doc:"The city of the terminal's port, when known."`
	State           *string `json:"state" doc:"Null: the port list holds state abbreviations only."`
	StateAbbr       *string `json:"state_abbr"`
	Zip             *string `json:"zip" doc:"Null: carriers give no address."`
	Country         *string `json:"country" doc:"The ISO 3166 country code of the terminal's port."`
}

type terminalRelationships struct {
	Port toOne `json:"port"`
}

type terminalResource struct {
	ID            string                `json:"id" format:"uuid"`
	Type          string                `json:"type" enum:"terminal"`
	Attributes    terminalAttributes    `json:"attributes"`
	Relationships terminalRelationships `json:"relationships"`
	Links         resourceLinks         `json:"links"`
}

type terminalDocument = document[terminalResource]

// terminalOut renders a terminal with what the port list knows of its port. A terminal no
// carrier named is called by its code and port.
func (p portRenderer) terminalOut(t boxwatch.Terminal) terminalResource {
	a := terminalAttributes{Name: t.Name, SMDGCode: optString(t.SMDGCode)}
	if pt, ok := p.port(t.LOCODE); ok {
		a.City, a.StateAbbr, a.Country = optString(pt.City), optString(pt.StateAbbr), optString(pt.CountryCode)
		if a.Name == "" {
			a.Name = t.SMDGCode + " terminal, " + pt.Name
		}
	}
	if a.Name == "" {
		a.Name = t.SMDGCode + " terminal, " + t.LOCODE
	}
	return terminalResource{ID: t.ID, Type: "terminal", Attributes: a,
		Relationships: terminalRelationships{Port: linkTo(p.id(t.LOCODE), "port")},
		Links:         resourceLinks{Self: "/v2/terminals/" + t.ID}}
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

// terminalAt is the terminal id of the route's stop at a port, "" when there is none.
func terminalAt(route []boxwatch.RouteStop, locode string) string {
	return stopAt(route, locode).TerminalID()
}

func handleTerminalGet(st boxwatch.Store, p portRenderer, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := st.Terminal(r.Context(), r.PathValue("id"))
		if err != nil {
			return err
		}
		res := p.terminalOut(t)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}
