package jsonapi_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// TestInlandRendering renders a shipment that goes on to Chicago by rail, one that goes on to a
// place outside the port list by barge, and one that ends at the quay: the destination attributes,
// relationships and includes, and the container's rail and inland attributes.
func TestInlandRendering(t *testing.T) {
	t.Parallel()
	rd := jsonapi.Renderer{Carriers: data.Carriers(), Ports: data.Ports()}
	at := func(h int) time.Time {
		return time.Date(2025, 3, 20, 0, 0, 0, 0, time.UTC).Add(time.Duration(h) * time.Hour)
	}
	route := []boxwatch.RouteStop{{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL}, {Sequence: 2, LOCODE: "USLAX", Role: boxwatch.RolePOD}}
	s := boxwatch.Shipment{ID: boxwatch.NewID(at(0)), SCAC: "MAEU", Route: route, CreatedAt: at(0), UpdatedAt: at(0),
		Destination: &boxwatch.Destination{LOCODE: "USCHI", Name: "BNSF Logistics Park Chicago", Mode: "RAIL", FacilityType: "RAMP",
			FacilityCode: "LPC", FacilityCodeList: "SMDG", ETA: at(200), OriginalETA: at(190), ATA: at(205)}}
	c := boxwatch.Container{ID: boxwatch.NewID(at(0)), ShipmentID: s.ID, Number: "MSKU1234565", CurrentStatus: boxwatch.ContainerOnRail,
		Inland: boxwatch.ContainerInland{DestinationLOCODE: "USCHI", PODRailLoadedAt: at(100), PODRailDepartedAt: at(102),
			IndETAAt: at(200), IndATAAt: at(205), IndRailUnloadedAt: at(210), FinalDestinationFullOutAt: at(230)}}

	attrs := func(v any) map[string]any {
		t.Helper()
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	ts := func(h int) string { return at(h).Format(boxwatch.TimeFormat) }

	res := rd.Shipment(s, []boxwatch.Container{c})
	a := attrs(res.Attributes)
	for name, want := range map[string]any{
		"destination_locode": "USCHI", "destination_name": "Chicago", "destination_timezone": "America/Chicago",
		"destination_eta_at": ts(200), "destination_original_eta_at": ts(190), "destination_ata_at": ts(205),
	} {
		if a[name] != want {
			t.Errorf("shipment %s = %v, want %v", name, a[name], want)
		}
	}
	if d := res.Relationships.Destination.Data; d == nil || d.Type != "metro_area" || d.ID != boxwatch.PortID("USCHI") {
		t.Errorf("destination relationship %+v", d)
	}
	if d := res.Relationships.DestinationTerminal.Data; d == nil || d.Type != "terminal" || d.ID != boxwatch.TerminalID("USCHI", "LPC") {
		t.Errorf("destination_terminal relationship %+v", d)
	}
	inc := rd.ShipmentIncludes(map[string]bool{"destination": true}, s, nil, nil, map[string]bool{}, nil)
	if len(inc) != 1 {
		t.Fatalf("include=destination gave %d resources", len(inc))
	}
	if m, ok := inc[0].(jsonapi.MetroAreaResource); !ok || m.Attributes.Code != "USCHI" || m.ID != boxwatch.PortID("USCHI") {
		t.Errorf("included %+v", inc[0])
	}

	pod, _ := s.POD()
	ca := attrs(rd.Container(c, pod, nil).Attributes)
	for name, want := range map[string]any{
		"current_status": "on_rail", "pod_rail_loaded_at": ts(100), "pod_rail_departed_at": ts(102), "ind_eta_at": ts(200),
		"ind_ata_at": ts(205), "ind_rail_unloaded_at": ts(210), "final_destination_full_out_at": ts(230),
		"final_destination_timezone": "America/Chicago", "pod_rail_carrier_scac": nil, "ind_rail_carrier_scac": nil,
	} {
		if ca[name] != want {
			t.Errorf("container %s = %v, want %v", name, ca[name], want)
		}
	}

	// A place outside the port list: the carrier's name, no time zone, no metro area; a
	// facility named by no SMDG code links no terminal.
	barge := s
	barge.Destination = &boxwatch.Destination{LOCODE: "DEDUI", Name: "DeCeTe Duisburg", Mode: "BARGE", FacilityType: "INTE", ATA: at(300)}
	res = rd.Shipment(barge, nil)
	a = attrs(res.Attributes)
	if a["destination_locode"] != "DEDUI" || a["destination_name"] != "DeCeTe Duisburg" || a["destination_timezone"] != nil || a["destination_ata_at"] != ts(300) {
		t.Errorf("barge destination %v %v %v %v", a["destination_locode"], a["destination_name"], a["destination_timezone"], a["destination_ata_at"])
	}
	if res.Relationships.Destination.Data != nil || res.Relationships.DestinationTerminal.Data != nil {
		t.Errorf("barge relationships %+v %+v", res.Relationships.Destination.Data, res.Relationships.DestinationTerminal.Data)
	}

	// The journey ends at the quay: every destination and inland field is null.
	quay := s
	quay.Destination = nil
	a = attrs(rd.Shipment(quay, nil).Attributes)
	for _, name := range []string{"destination_locode", "destination_name", "destination_timezone", "destination_eta_at", "destination_ata_at", "destination_original_eta_at"} {
		if a[name] != nil {
			t.Errorf("port-only shipment %s = %v", name, a[name])
		}
	}
	ca = attrs(rd.Container(boxwatch.Container{ID: c.ID, Number: c.Number}, pod, nil).Attributes)
	for _, name := range []string{"pod_rail_loaded_at", "pod_rail_departed_at", "ind_eta_at", "ind_ata_at", "ind_rail_unloaded_at", "final_destination_full_out_at", "final_destination_timezone"} {
		if ca[name] != nil {
			t.Errorf("port-only container %s = %v", name, ca[name])
		}
	}
}
