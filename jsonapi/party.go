package jsonapi

import "github.com/boxwatch/boxwatch"

// PartyAttributes is the wire form of a party.
type PartyAttributes struct {
	CompanyName string `json:"company_name"`
	CreatedAt   string `json:"created_at" format:"date-time"`
	UpdatedAt   string `json:"updated_at" format:"date-time"`
}

// PartyResource is a party (a customer of the account) as a JSON:API resource.
type PartyResource struct {
	ID         string          `json:"id" format:"uuid"`
	Type       string          `json:"type" enum:"party"`
	Attributes PartyAttributes `json:"attributes"`
	Links      ResourceLinks   `json:"links"`
}

// PartyDocument and PartyListDocument answer one party and a page of them.
type PartyDocument = Document[PartyResource]
type PartyListDocument = Document[[]PartyResource]

// Party renders a party.
func Party(p boxwatch.Party) PartyResource {
	return PartyResource{ID: p.ID, Type: "party", Attributes: PartyAttributes{CompanyName: p.CompanyName,
		CreatedAt: timestamp(p.CreatedAt), UpdatedAt: timestamp(p.UpdatedAt)},
		Links: ResourceLinks{Self: "/v2/parties/" + p.ID}}
}
