// Package jsonapi renders boxwatch's resources as JSON:API documents: the shape of every resource
// the HTTP API answers with and webhooks deliver, one file per resource, each with the function
// that builds it from domain values. Struct tags say what Go types cannot (enum, format, doc), so
// the api package generates its OpenAPI document from these types.
//
// It holds no HTTP code and must not import net/http or the api package: api serves these
// documents, and webhook/dispatch delivers the notification ones.
package jsonapi

import (
	"time"

	"github.com/boxwatch/boxwatch"
)

// Document is a JSON:API top-level document with primary data of type T.
type Document[T any] struct {
	Data     T      `json:"data"`
	Included []any  `json:"included,omitempty"`
	Links    *Links `json:"links,omitempty"`
	Meta     *Meta  `json:"meta,omitempty"`
}

// Links are absolute URLs; members that do not apply are omitted.
type Links struct {
	Self    string `json:"self" format:"uri"`
	Current string `json:"current,omitempty" format:"uri"`
	First   string `json:"first,omitempty" format:"uri"`
	Prev    string `json:"prev,omitempty" format:"uri"`
	Next    string `json:"next,omitempty" format:"uri"`
	Last    string `json:"last,omitempty" format:"uri"`
}

// Meta describes one page of a listing.
type Meta struct {
	Size  int `json:"size" doc:"Records on this page."`
	Total int `json:"total" doc:"Records matching the request, on every page."`
	// TotalIsLowerBound marks a filtered list that stopped counting its matches well past the
	// page (boxwatch.CountAhead): Total, Records and the last page are what it counted.
	TotalIsLowerBound bool       `json:"total_is_lower_bound,omitempty" doc:"Present, and true, when a filtered list found more than 10,000 matches past this page and stopped counting: total and the last page are then lower bounds, and next is still exact."`
	Pagination        Pagination `json:"pagination"`
}

// Pagination is Meta's page arithmetic, in the reference API's names.
type Pagination struct {
	Current int  `json:"current"`
	Next    *int `json:"next,omitempty"`
	Last    int  `json:"last"`
	Records int  `json:"records"`
}

// ResourceLinks holds a resource's own link, relative to the API's base URL.
type ResourceLinks struct {
	Self string `json:"self"`
}

// ResourceIdentifier names a resource by type and id.
type ResourceIdentifier struct {
	ID   string `json:"id" format:"uuid"`
	Type string `json:"type"`
}

// ToOne is a to-one relationship; Data is null when nothing is linked.
type ToOne struct {
	Data *ResourceIdentifier `json:"data"`
}

// ToMany is a to-many relationship; Data is empty, never null, when nothing is linked.
type ToMany struct {
	Data []ResourceIdentifier `json:"data"`
}

func linkTo(id, typ string) ToOne {
	if id == "" {
		return ToOne{}
	}
	return ToOne{Data: &ResourceIdentifier{ID: id, Type: typ}}
}

// timestamp renders a time as ISO 8601 UTC.
func timestamp(t time.Time) string { return t.UTC().Format(boxwatch.TimeFormat) }

// optTime renders a time as ISO 8601 UTC, or null when unknown.
func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := timestamp(t)
	return &s
}

// optString renders "" as null.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// nonNil renders a nil list as empty, never null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// Renderer renders the resources that name ports and shipping lines. Carriers is required; Ports
// may be nil, which leaves port names and time zones null.
type Renderer struct {
	Carriers *boxwatch.Carriers
	Ports    boxwatch.PortLookup
}

func (rd Renderer) port(locode string) (boxwatch.Port, bool) {
	if locode == "" || rd.Ports == nil {
		return boxwatch.Port{}, false
	}
	return rd.Ports.ByLOCODE(locode)
}

func (rd Renderer) portName(locode string) *string {
	if pt, ok := rd.port(locode); ok {
		return &pt.Name
	}
	return nil
}

func (rd Renderer) timeZone(locode string) *string {
	if pt, ok := rd.port(locode); ok && pt.TimeZone != "" {
		return &pt.TimeZone
	}
	return nil
}

func portID(locode string) string {
	if locode == "" {
		return ""
	}
	return boxwatch.PortID(locode)
}
