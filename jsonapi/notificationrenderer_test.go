package jsonapi_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/jsonapi/payloadtest"
	"github.com/boxwatch/boxwatch/webhook"
)

// TestNotificationPayloads renders the example of every event of the catalogue but the document
// events, with its own reference object, and checks it against the event's fixture: the
// reference object's type, attribute and relationship names, and the types included holds.
func TestNotificationPayloads(t *testing.T) {
	rd := jsonapi.Renderer{Carriers: data.Carriers(), Ports: data.Ports()}
	shapes := payloadtest.Shapes()
	now := time.Date(2026, 5, 1, 9, 30, 0, 0, time.UTC)
	var names []string
	for _, c := range webhook.Categories() {
		for _, e := range c.Events {
			if !strings.HasPrefix(e.Name, "document.") {
				names = append(names, e.Name)
			}
		}
	}
	if len(names) != 41 || len(shapes) != 41 {
		t.Fatalf("%d events in the catalogue and %d fixtures; the reference has 41 besides documents", len(names), len(shapes))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			shape, ok := shapes[name]
			if !ok {
				t.Fatalf("no fixture")
			}
			e, _ := webhook.Lookup(name)
			if e.ReferenceType != shape.ReferenceObject {
				t.Errorf("the catalogue gives the reference object %q, the reference %q", e.ReferenceType, shape.ReferenceObject)
			}
			body, err := json.Marshal(rd.ExampleNotification(name, e.ReferenceType, now))
			if err != nil {
				t.Fatal(err)
			}
			if _, problems := payloadtest.Check(body); len(problems) > 0 {
				t.Errorf("%s\n%s", payloadtest.Summary(name, problems), body)
			}
			if got := payloadtest.IncludedTypes(body); !slices.Equal(got, shape.ExampleIncluded) {
				t.Errorf("included %v, want %v", got, shape.ExampleIncluded)
			}
		})
	}
}

// TestDocumentEventExample: documents are out of scope, so their events' examples have no
// reference object and include nothing.
func TestDocumentEventExample(t *testing.T) {
	rd := jsonapi.Renderer{Carriers: data.Carriers(), Ports: data.Ports()}
	for _, name := range []string{"document.extracted", "document.extraction_failed"} {
		e, _ := webhook.Lookup(name)
		doc := rd.ExampleNotification(name, e.ReferenceType, time.Now())
		if doc.Data.Relationships.ReferenceObject.Data != nil || len(doc.Included) != 0 || doc.Data.Attributes.Event != name {
			body, _ := json.Marshal(doc)
			t.Errorf("%s: %s", name, body)
		}
	}
}
