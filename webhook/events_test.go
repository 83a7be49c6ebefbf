package webhook_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/webhook"
)

// emitted are the events the tracking engine writes today (tracking/derive.go, workers.go and terminal.go).
var emitted = []string{
	"tracking_request.succeeded", "tracking_request.failed", "tracking_request.awaiting_manifest",
	"tracking_request.tracking_stopped", "shipment.estimated.arrival", "container.created", "container.updated",
	"container.transport.empty_out", "container.transport.full_in", "container.transport.vessel_loaded",
	"container.transport.vessel_departed", "container.transport.transshipment_arrived",
	"container.transport.transshipment_discharged", "container.transport.transshipment_loaded",
	"container.transport.transshipment_departed", "container.transport.vessel_arrived",
	"container.transport.vessel_discharged", "container.transport.full_out", "container.transport.empty_in",
	"container.pickup_lfd.changed", "container.transport.available", "container.transport.not_available",
	"container.pickup_lfd_terminal.changed", "container.pickup_lfd_line.changed", "container.pickup_appointment.changed",
	"container.pod_terminal_changed",
	"container.transport.rail_loaded", "container.transport.rail_departed", "container.transport.rail_arrived",
	"container.transport.rail_unloaded", "container.transport.arrived_at_inland_destination",
	"container.transport.estimated.arrived_at_inland_destination",
	"container.transport.estimated.vessel_departed", "container.transport.estimated.vessel_arrived",
	"container.transport.feeder_loaded", "container.transport.feeder_departed", "container.transport.feeder_arrived",
	"container.transport.feeder_discharged",
	"container.transport.vessel_berthed", "container.transport.delivered", "container.pickup_lfd_rail.changed",
}

func TestCatalogueShape(t *testing.T) {
	t.Parallel()
	idPattern := regexp.MustCompile(`^[a-z]+(-[a-z]+)*-events$`)
	namePattern := regexp.MustCompile(`^[a-z_]+(\.[a-z_]+)+$`)
	seen := map[string]bool{}
	for _, c := range webhook.Categories() {
		if !idPattern.MatchString(c.ID) || !strings.HasSuffix(c.Name, " Events") || len(c.Events) == 0 {
			t.Errorf("category %q %q with %d events is malformed", c.ID, c.Name, len(c.Events))
		}
		for _, e := range c.Events {
			if seen[e.Name] {
				t.Errorf("%s is listed twice", e.Name)
			}
			seen[e.Name] = true
			if !namePattern.MatchString(e.Name) || !webhook.Known(e.Name) {
				t.Errorf("%s: malformed or not Known", e.Name)
			}
			if d := e.Description; d == "" || d[0] < 'A' || d[0] > 'Z' || !strings.HasSuffix(d, ".") {
				t.Errorf("%s: description %q is not a sentence", e.Name, d)
			}
			if got, ok := webhook.Lookup(e.Name); !ok || got != e {
				t.Errorf("Lookup(%s) = %+v, %v", e.Name, got, ok)
			}
		}
	}
	if len(seen) != 43 {
		t.Errorf("catalogue has %d events, want the reference's 43", len(seen))
	}
}

func TestCatalogueMarksWhatBoxwatchEmits(t *testing.T) {
	t.Parallel()
	want := map[string]bool{}
	for _, name := range emitted {
		want[name] = true
	}
	for _, c := range webhook.Categories() {
		for _, e := range c.Events {
			if e.Emitted != want[e.Name] {
				t.Errorf("%s: Emitted = %v, want %v", e.Name, e.Emitted, want[e.Name])
			}
			delete(want, e.Name)
		}
	}
	for name := range want {
		t.Errorf("%s is emitted but missing from the catalogue", name)
	}
}

func TestKnownIsExact(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "*", "tracking_request.*", "TRACKING_REQUEST.SUCCEEDED", " tracking_request.succeeded",
		"shipment.eta_changed", "container.transport"} {
		if webhook.Known(name) {
			t.Errorf("Known(%q) = true", name)
		}
	}
}

func TestCategoriesReturnsACopy(t *testing.T) {
	t.Parallel()
	c := webhook.Categories()
	c[0].Events[0].Name = "changed"
	c[0].Name = "changed"
	if again := webhook.Categories(); again[0].Events[0].Name == "changed" || again[0].Name == "changed" {
		t.Error("changing the result of Categories changed the catalogue")
	}
}
