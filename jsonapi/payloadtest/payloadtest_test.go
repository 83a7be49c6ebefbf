package payloadtest_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/jsonapi"
	"github.com/boxwatch/boxwatch/jsonapi/payloadtest"
)

// TestCheckFindsEachDeparture breaks a body that passes in each way Check must notice.
func TestCheckFindsEachDeparture(t *testing.T) {
	rd := jsonapi.Renderer{Carriers: data.Carriers(), Ports: data.Ports()}
	render := func(event, objectType string) map[string]any {
		b, _ := json.Marshal(rd.ExampleNotification(event, objectType, time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)))
		var doc map[string]any
		json.Unmarshal(b, &doc)
		return doc
	}
	included := func(doc map[string]any) []any { return doc["included"].([]any) }
	ofType := func(doc map[string]any, typ string) map[string]any {
		for _, r := range included(doc) {
			if r.(map[string]any)["type"] == typ {
				return r.(map[string]any)
			}
		}
		t.Fatalf("no %s", typ)
		return nil
	}
	without := func(doc map[string]any, typ string) {
		var keep []any
		for _, r := range included(doc) {
			if r.(map[string]any)["type"] != typ {
				keep = append(keep, r)
			}
		}
		doc["included"] = keep
	}
	tests := []struct {
		name, event, objectType, want string
		breakIt                       func(doc map[string]any)
	}{
		{"OK", "container.transport.vessel_arrived", "transport_event", "", func(map[string]any) {}},
		{"OKMinimal", "container.transport.available", "transport_event", "", func(map[string]any) {}},
		{"WrongReferenceType", "container.updated", "container_created_event", "the reference sends a container_updated_event", func(map[string]any) {}},
		{"MissingVessel", "container.transport.vessel_arrived", "transport_event", "included lacks vessel", func(doc map[string]any) { without(doc, "vessel") }},
		{"MissingReferenceObject", "container.transport.vessel_arrived", "transport_event", "included lacks the reference object",
			func(doc map[string]any) { without(doc, "transport_event") }},
		{"ExtraResource", "container.transport.available", "transport_event", "which the reference does not send",
			func(doc map[string]any) {
				doc["included"] = append(included(doc), map[string]any{"id": "x", "type": "port"})
			}},
		{"Duplicate", "container.transport.vessel_arrived", "transport_event", "twice",
			func(doc map[string]any) { doc["included"] = append(included(doc), included(doc)[1]) }},
		{"MissingAttribute", "shipment.estimated.arrival", "estimated_event", "estimated_event attributes",
			func(doc map[string]any) {
				delete(ofType(doc, "estimated_event")["attributes"].(map[string]any), "voyage_number")
			}},
		{"ExtraRelationship", "container.created", "container_created_event", "container_created_event relationships",
			func(doc map[string]any) {
				ofType(doc, "container_created_event")["relationships"].(map[string]any)["terminal"] = map[string]any{"data": nil}
			}},
		{"WrongDataSource", "container.updated", "container_updated_event", "data_source",
			func(doc map[string]any) {
				ofType(doc, "container_updated_event")["attributes"].(map[string]any)["data_source"] = "shipping_line"
			}},
		{"WrongEventName", "container.transport.full_out", "transport_event", "attributes.event",
			func(doc map[string]any) {
				ofType(doc, "transport_event")["attributes"].(map[string]any)["event"] = "container.transport.full_in"
			}},
		{"WrongRelationshipType", "container.transport.full_out", "transport_event", "names a shipment",
			func(doc map[string]any) {
				ofType(doc, "transport_event")["relationships"].(map[string]any)["location"] = ofType(doc, "container")["relationships"].(map[string]any)["shipment"]
			}},
		{"MissingContainers", "tracking_request.succeeded", "tracking_request", "included lacks container", func(doc map[string]any) { without(doc, "container") }},
		{"NotANotification", "container.created", "container_created_event", "data.type",
			func(doc map[string]any) { doc["data"].(map[string]any)["type"] = "shipment" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := render(tt.event, tt.objectType)
			tt.breakIt(doc)
			body, _ := json.Marshal(doc)
			_, problems := payloadtest.Check(body)
			got := strings.Join(problems, "\n")
			switch {
			case tt.want == "" && got != "":
				t.Errorf("problems in a good body:\n%s", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("problems %q, want one saying %q", got, tt.want)
			}
		})
	}
}
