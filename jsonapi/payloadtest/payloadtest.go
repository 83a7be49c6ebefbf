// Package payloadtest checks webhook notification bodies against the shapes Terminal49's reference
// gives each event: the reference object's type, attribute and relationship names, the types its
// relationships may name, and what included holds. The shapes are fixtures written for boxwatch
// from the reference (payloads.json); the jsonapi tests check every event's example with them,
// and the end-to-end tests every body a real receiver gets.
//
// It is for tests only: it reads no store and renders nothing.
package payloadtest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
)

//go:embed payloads.json
var payloadsJSON []byte

// Shape is what the reference sends for one event.
type Shape struct {
	// ReferenceObject is the type of data.relationships.reference_object.
	ReferenceObject string `json:"reference_object"`
	// Attributes are the reference object's attribute names, exactly.
	Attributes []string `json:"attributes"`
	// Relationships are the reference object's relationship names, exactly, each with the types
	// it may name.
	Relationships map[string][]string `json:"relationships"`
	// IncludedRelationships are the relationships whose resources included holds when they are
	// not null; the others (a tracking request's customer) are named but not included.
	IncludedRelationships []string `json:"included_relationships"`
	// IncludesContainers: included also holds every container of the shipment.
	IncludesContainers bool `json:"includes_containers"`
	// Minimal: included holds the reference object alone, as the reference sends the event.
	Minimal bool `json:"minimal"`
	// Enums are the values some attributes may take.
	Enums map[string][]string `json:"enums"`
	// ExampleIncluded are the types included holds, sorted, when every relationship the event
	// sets is not null (as in GET /v2/webhook_notifications/examples).
	ExampleIncluded []string `json:"example_included"`
}

// Shapes returns the shape of each of the 41 events boxwatch renders (every event of the
// reference but the two document events), by name. The map is the caller's.
func Shapes() map[string]Shape {
	return maps.Clone(shapes())
}

var shapes = sync.OnceValue(func() map[string]Shape {
	var f struct {
		Events map[string]Shape `json:"events"`
	}
	if err := json.Unmarshal(payloadsJSON, &f); err != nil {
		panic("payloadtest: payloads.json: " + err.Error())
	}
	return f.Events
})

type resource struct {
	ID            string                     `json:"id"`
	Type          string                     `json:"type"`
	Attributes    map[string]json.RawMessage `json:"attributes"`
	Relationships map[string]struct {
		Data json.RawMessage `json:"data"`
	} `json:"relationships"`
}

type identifier struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// Check checks a delivered notification body against its event's shape, and returns what
// differs (nothing when the body is as the reference sends it), with the event's name.
func Check(body []byte) (event string, problems []string) {
	var doc struct {
		Data struct {
			Type       string `json:"type"`
			Attributes struct {
				Event string `json:"event"`
			} `json:"attributes"`
			Relationships struct {
				ReferenceObject struct {
					Data *identifier `json:"data"`
				} `json:"reference_object"`
			} `json:"relationships"`
		} `json:"data"`
		Included []resource `json:"included"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", []string{"not a JSON:API document: " + err.Error()}
	}
	event = doc.Data.Attributes.Event
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	shape, ok := shapes()[event]
	switch {
	case doc.Data.Type != "webhook_notification":
		bad("data.type is %q, not webhook_notification", doc.Data.Type)
		return
	case !ok:
		bad("no shape for event %q", event)
		return
	}
	ref := doc.Data.Relationships.ReferenceObject.Data
	if ref == nil {
		bad("reference_object is null")
		return
	}
	if ref.Type != shape.ReferenceObject {
		bad("reference_object is a %s, the reference sends a %s", ref.Type, shape.ReferenceObject)
		return
	}
	byKey := map[identifier]resource{}
	for _, r := range doc.Included {
		k := identifier{r.ID, r.Type}
		if _, dup := byKey[k]; dup {
			bad("included holds %s %s twice", r.Type, r.ID)
		}
		byKey[k] = r
	}
	obj, ok := byKey[*ref]
	if !ok {
		bad("included lacks the reference object %s %s", ref.Type, ref.ID)
		return
	}
	if got := sortedKeys(obj.Attributes); !slices.Equal(got, sorted(shape.Attributes)) {
		bad("%s attributes %v, the reference's %v", obj.Type, got, sorted(shape.Attributes))
	}
	if a, ok := obj.Attributes["event"]; ok && string(a) != `"`+event+`"` {
		bad("%s.attributes.event is %s, the notification's event %q", obj.Type, a, event)
	}
	for name, values := range shape.Enums {
		var v string
		if err := json.Unmarshal(obj.Attributes[name], &v); err != nil || !slices.Contains(values, v) {
			bad("%s.attributes.%s is %s, not one of %v", obj.Type, name, obj.Attributes[name], values)
		}
	}
	var relNames []string
	for name := range shape.Relationships {
		relNames = append(relNames, name)
	}
	if got := sortedKeys(obj.Relationships); !slices.Equal(got, sorted(relNames)) {
		bad("%s relationships %v, the reference's %v", obj.Type, got, sorted(relNames))
	}
	want := map[identifier]bool{*ref: true}
	for _, name := range shape.IncludedRelationships {
		rel, ok := obj.Relationships[name]
		if !ok || string(rel.Data) == "null" || len(rel.Data) == 0 {
			continue
		}
		var id identifier
		if err := json.Unmarshal(rel.Data, &id); err != nil || id.ID == "" {
			bad("%s.relationships.%s is %s, not a resource identifier", obj.Type, name, rel.Data)
			continue
		}
		if !slices.Contains(shape.Relationships[name], id.Type) {
			bad("%s.relationships.%s names a %s, the reference's %v", obj.Type, name, id.Type, shape.Relationships[name])
		}
		want[id] = true
	}
	if shape.IncludesContainers {
		for _, r := range doc.Included {
			if r.Type != "shipment" {
				continue
			}
			// A booking may have no container assigned yet: then there is none to include.
			var containers []identifier
			json.Unmarshal(r.Relationships["containers"].Data, &containers)
			for _, c := range containers {
				want[c] = true
			}
		}
	}
	for k := range want {
		if _, ok := byKey[k]; !ok {
			bad("included lacks %s %s, which the %s names", k.Type, k.ID, obj.Type)
		}
	}
	for k := range byKey {
		if !want[k] {
			bad("included holds %s %s, which the reference does not send with %s", k.Type, k.ID, event)
		}
	}
	return event, problems
}

// IncludedTypes returns the types of a body's included resources, sorted.
func IncludedTypes(body []byte) []string {
	var doc struct {
		Included []resource `json:"included"`
	}
	json.Unmarshal(body, &doc)
	var out []string
	for _, r := range doc.Included {
		out = append(out, r.Type)
	}
	sort.Strings(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

// Summary formats problems for a test failure.
func Summary(event string, problems []string) string {
	return event + ":\n  " + strings.Join(problems, "\n  ")
}
