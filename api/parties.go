package api

import (
	"net/http"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// partyRoutes are the party endpoints.
func (s *server) partyRoutes() []route {
	st, now := s.cfg.Store, s.cfg.Clock
	return []route{
		{
			method: "POST", path: "/v2/parties", tag: "Parties",
			summary: "Create a party",
			doc:     "Stores a customer of the account. A tracking request names it in relationships.customer; its shipment then shows customer_name.",
			auth:    true, bucket: bucketDefault, body: partyCreateBody{},
			status: http.StatusCreated, resp: jsonapi.PartyDocument{},
			errors:  []int{400, 401, 409, 413, 415, 422, 429},
			handler: handlePartyCreate(st, now, s.baseURL),
		},
		{
			method: "GET", path: "/v2/parties", tag: "Parties",
			summary: "List parties", doc: "Returns the account's parties, newest first.",
			auth: true, bucket: bucketDefault, params: []param{paramPageNumber, paramPageSize},
			status: http.StatusOK, resp: jsonapi.PartyListDocument{},
			errors:  []int{400, 401, 429},
			handler: handlePartyList(st, s.listLinks),
		},
		{
			method: "GET", path: "/v2/parties/{id}", tag: "Parties",
			summary: "Get a party", doc: "Returns one party.",
			auth: true, bucket: bucketDefault,
			status: http.StatusOK, resp: jsonapi.PartyDocument{},
			errors:  []int{400, 401, 404, 429},
			handler: handlePartyGet(st, s.baseURL),
		},
		{
			method: "PATCH", path: "/v2/parties/{id}", tag: "Parties",
			summary: "Rename a party", doc: "Changes the company name; the shipments of the party show the new name.",
			auth: true, bucket: bucketDefault, body: partyUpdateBody{},
			status: http.StatusOK, resp: jsonapi.PartyDocument{},
			errors:  []int{400, 401, 404, 409, 413, 415, 422, 429},
			handler: handlePartyUpdate(st, now, s.baseURL),
		},
	}
}

// partyCreateBody is the body of POST /v2/parties.
type partyCreateBody struct {
	Data struct {
		Type       string       `json:"type" enum:"party"`
		Attributes partyChanges `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// partyUpdateBody is the body of PATCH /v2/parties/{id}.
type partyUpdateBody struct {
	Data struct {
		Type       string       `json:"type" enum:"party"`
		ID         string       `json:"id,omitempty" format:"uuid"`
		Attributes partyChanges `json:"attributes"`
		resourceMeta
	} `json:"data"`
	documentMeta
}

// partyChanges are what a body sets of a party: its name.
type partyChanges struct {
	CompanyName string `json:"company_name" doc:"Trimmed; 1 to 200 characters."`
}

// decodeParty reads the company name of a create body (id "") or of an update of party id.
func decodeParty(body []byte, id string) (string, error) {
	var a partyChanges
	if id == "" {
		b, err := decodeBody[partyCreateBody](body, "")
		if err != nil {
			return "", err
		}
		a = b.Data.Attributes
	} else {
		b, err := decodeBody[partyUpdateBody](body, id)
		if err != nil {
			return "", err
		}
		a = b.Data.Attributes
	}
	return boxwatch.NormalizeCompanyName(a.CompanyName)
}

func handlePartyCreate(st boxwatch.PartyStore, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		name, err := decodeParty(body, "")
		if err != nil {
			return err
		}
		t := now()
		p := boxwatch.Party{ID: boxwatch.NewID(t), AccountID: account(r).ID, CompanyName: name, CreatedAt: t, UpdatedAt: t}
		if err := st.CreateParty(r.Context(), p); err != nil {
			return err
		}
		res := jsonapi.Party(p)
		w.Header().Set("Location", base(r)+res.Links.Self)
		writeResource(w, http.StatusCreated, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

func handlePartyList(st boxwatch.PartyStore, pageLinks pageLinker) handlerFunc {
	return handleList(pageLinks, func(r *http.Request, page boxwatch.Page) (listPage[jsonapi.PartyResource], error) {
		var lp listPage[jsonapi.PartyResource]
		list, total, err := st.Parties(r.Context(), account(r).ID, page)
		if err != nil {
			return lp, err
		}
		lp.data, lp.included, lp.total = make([]jsonapi.PartyResource, len(list)), []any{}, boxwatch.Total{N: total}
		for i, p := range list {
			lp.data[i] = jsonapi.Party(p)
		}
		return lp, nil
	})
}

func handlePartyGet(st boxwatch.PartyStore, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := st.Party(r.Context(), account(r).ID, r.PathValue("id"))
		if err != nil {
			return err
		}
		res := jsonapi.Party(p)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}

func handlePartyUpdate(st boxwatch.PartyStore, now boxwatch.Clock, base func(*http.Request) string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		id, acct := r.PathValue("id"), account(r).ID
		if _, err := st.Party(r.Context(), acct, id); err != nil {
			return err
		}
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		name, err := decodeParty(body, id)
		if err != nil {
			return err
		}
		p, err := st.RenameParty(r.Context(), acct, id, name, now())
		if err != nil {
			return err
		}
		res := jsonapi.Party(p)
		writeResource(w, http.StatusOK, base(r)+res.Links.Self, res, nil)
		return nil
	}
}
