package jsonapi_test

import (
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/jsonapi"
)

// A container its terminal placed at a sister terminal links and includes that terminal, with the
// list's codes and address; another links and includes its port of discharge's.
func TestContainerTerminal(t *testing.T) {
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	s := boxwatch.Shipment{ID: boxwatch.NewID(now), Route: []boxwatch.RouteStop{
		{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL},
		{Sequence: 2, LOCODE: "USLAX", Role: boxwatch.RolePOD, TerminalCode: "APMT", TerminalName: "APM PIER 400"}}}
	trap := boxwatch.Terminal{ID: boxwatch.TerminalID("USLAX", "TRAP"), LOCODE: "USLAX", SMDGCode: "TRAP", FIRMSCode: "Y258",
		Name: "TraPac Los Angeles", Nickname: "TraPac LA", Street: "630 West Harry Bridges Blvd", City: "Wilmington", StateAbbr: "CA",
		Zip: "90744", Country: "US", Listed: true}
	inc := map[string]bool{"pod_terminal": true}
	for _, tt := range []struct {
		name string
		c    boxwatch.Container
		at   boxwatch.Terminal
		want string
	}{
		{"PortOfDischarge", boxwatch.Container{ID: boxwatch.NewID(now), ShipmentID: s.ID}, boxwatch.Terminal{}, boxwatch.TerminalID("USLAX", "APMT")},
		{"SisterTerminal", boxwatch.Container{ID: boxwatch.NewID(now), ShipmentID: s.ID, PODTerminalID: trap.ID}, trap, trap.ID},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var rd jsonapi.Renderer
			pod, _ := s.POD()
			res := rd.Container(tt.c, pod, nil)
			if got := res.Relationships.PODTerminal.Data; got == nil || got.ID != tt.want {
				t.Fatalf("pod_terminal %+v, want %s", got, tt.want)
			}
			included := rd.ContainerIncludes(inc, s, nil, nil, tt.at, map[string]bool{}, nil)
			if len(included) != 1 {
				t.Fatalf("included %+v", included)
			}
			term := included[0].(jsonapi.TerminalResource)
			if term.ID != tt.want {
				t.Fatalf("included terminal %s, want %s", term.ID, tt.want)
			}
			if tt.at.Listed && (*term.Attributes.FirmsCode != "Y258" || *term.Attributes.Zip != "90744" || *term.Attributes.Nickname != "TraPac LA") {
				t.Errorf("listed terminal attributes %+v", term.Attributes)
			}
		})
	}
}
