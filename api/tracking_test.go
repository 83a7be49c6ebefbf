package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// waitShipment creates a tracking request and waits for its shipment, returning both ids.
func (ts *testServer) waitShipment(t testing.TB, key, number, scac string) (trID, shipmentID string) {
	t.Helper()
	trID = ts.mustCreate(t, key, "bill_of_lading", number, scac)
	trackingtest.Eventually(t, 20*time.Second, "no shipment for "+number, func() bool {
		r := ts.do(t, "GET", "/v2/tracking_requests/"+trID, key, "").want(t, 200)
		id, _ := get(r.body, "data", "relationships", "tracked_object", "data", "id").(string)
		shipmentID = id
		return id != ""
	})
	return trID, shipmentID
}

func TestShipmentsAndContainers(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		ts := newTestServer(t, b, tracked)
		trID, sid := ts.waitShipment(t, ts.acme, "MAEU123456784", "MAEU")

		r := ts.do(t, "GET", "/v2/tracking_requests/"+trID+"?include=tracked_object", ts.acme, "").want(t, 200)
		if get(r.body, "data", "attributes", "status") != "created" || get(r.body, "included", 0, "id") != sid {
			t.Fatalf("tracking request after lookup: %s", r.raw)
		}
		r = ts.do(t, "GET", "/v2/shipments/"+sid+"?include=containers,port_of_lading,port_of_discharge", ts.acme, "").want(t, 200)
		attrs := get(r.body, "data", "attributes")
		for _, k := range []string{"bill_of_lading_number", "port_of_lading_locode", "port_of_discharge_locode", "pod_eta_at", "pol_atd_at", "pod_vessel_imo", "pod_timezone"} {
			if get(attrs, k) == nil {
				t.Errorf("shipment attribute %s is null: %s", k, r.raw)
			}
		}
		if get(attrs, "shipping_line_scac") != "MAEU" || get(attrs, "normalized_number") != "123456784" {
			t.Errorf("shipment: %s", r.raw)
		}
		containers := get(r.body, "data", "relationships", "containers", "data").([]any)
		types := map[string]int{}
		for _, inc := range r.body["included"].([]any) {
			types[get(inc, "type").(string)]++
		}
		if len(containers) == 0 || types["container"] != len(containers) || types["port"] != 2 {
			t.Fatalf("containers %v, included types %v", containers, types)
		}

		cid := get(containers[0], "id").(string)
		r = ts.do(t, "GET", "/v2/containers/"+cid+"?include=shipment,transport_events", ts.acme, "").want(t, 200)
		if get(r.body, "data", "attributes", "current_status") != "on_ship" || get(r.body, "data", "relationships", "shipment", "data", "id") != sid {
			t.Fatalf("container: %s", r.raw)
		}
		// The shipment was looked up when it was created; at sea, nothing was asked at the port of
		// discharge yet.
		if get(r.body, "data", "attributes", "shipment_last_tracking_request_at") != get(attrs, "line_tracking_last_attempted_at") ||
			get(r.body, "data", "attributes", "pod_last_tracking_request_at") != nil {
			t.Errorf("container lookups: shipment %v (attempted %v), pod %v", get(r.body, "data", "attributes", "shipment_last_tracking_request_at"),
				get(attrs, "line_tracking_last_attempted_at"), get(r.body, "data", "attributes", "pod_last_tracking_request_at"))
		}
		r = ts.do(t, "GET", "/v2/containers/"+cid+"/transport_events?include=location,vessel", ts.acme, "").want(t, 200)
		events := r.body["data"].([]any)
		var names []string
		for _, e := range events {
			names = append(names, strings.TrimPrefix(get(e, "attributes", "event").(string), "container.transport."))
			if get(e, "attributes", "timezone") == nil || get(e, "attributes", "location_locode") == nil {
				t.Errorf("transport event without place: %v", e)
			}
		}
		if got := strings.Join(names, ","); !strings.HasPrefix(got, "empty_out,full_in,vessel_loaded,vessel_departed") {
			t.Fatalf("milestones at sea: %s", got)
		}

		pol := get(attrs, "port_of_lading_locode").(string)
		r = ts.do(t, "GET", "/v2/ports/"+strings.ToLower(pol), ts.acme, "").want(t, 200)
		if get(r.body, "data", "attributes", "code") != pol || get(r.body, "data", "attributes", "time_zone") == nil {
			t.Fatalf("port: %s", r.raw)
		}
		imo := get(attrs, "pod_vessel_imo").(string)
		r = ts.do(t, "GET", "/v2/vessels/"+imo, ts.acme, "").want(t, 200)
		if get(r.body, "data", "attributes", "imo") != imo || get(r.body, "data", "attributes", "name") == "" {
			t.Fatalf("vessel: %s", r.raw)
		}
		ts.do(t, "GET", "/v2/vessels/"+get(r.body, "data", "id").(string), ts.acme, "").want(t, 200)
		ts.do(t, "GET", "/v2/ports/ZZZZZ", ts.acme, "").wantError(t, 404, "not_found", "", "")
		ts.do(t, "GET", "/v2/vessels/1234567", ts.acme, "").wantError(t, 404, "not_found", "", "")

		r = ts.do(t, "GET", "/v2/shipments?filter[tracking_stopped]=false&number=MAEU123456784", ts.acme, "").want(t, 200)
		if get(r.body, "meta", "total") != float64(1) {
			t.Fatalf("shipment list: %s", r.raw)
		}
		ts.do(t, "GET", "/v2/shipments?filter[tracking_stopped]=maybe", ts.acme, "").wantError(t, 400, "invalid", "", "filter[tracking_stopped]")
		ts.do(t, "GET", "/v2/containers?page[size]=1", ts.acme, "").want(t, 200)

		r = ts.do(t, "PATCH", "/v2/shipments/"+sid+"/stop_tracking", ts.acme, "").want(t, 200)
		if get(r.body, "data", "attributes", "line_tracking_stopped_reason") != "cancelled_by_user" {
			t.Fatalf("stop: %s", r.raw)
		}
		r = ts.do(t, "PATCH", "/v2/shipments/"+sid+"/resume_tracking", ts.acme, "").want(t, 200)
		if get(r.body, "data", "attributes", "line_tracking_stopped_at") != nil {
			t.Fatalf("resume: %s", r.raw)
		}

		// Another account sees none of it.
		for _, path := range []string{"/v2/shipments/" + sid, "/v2/containers/" + cid, "/v2/containers/" + cid + "/transport_events"} {
			ts.do(t, "GET", path, ts.globex, "").wantError(t, 404, "not_found", "", "")
		}
		ts.do(t, "PATCH", "/v2/shipments/"+sid+"/stop_tracking", ts.globex, "").wantError(t, 404, "not_found", "", "")
		for _, path := range []string{"/v2/shipments", "/v2/containers"} {
			if r := ts.do(t, "GET", path, ts.globex, "").want(t, 200); get(r.body, "meta", "total") != float64(0) {
				t.Fatalf("%s for another account: %s", path, r.raw)
			}
		}
	})
}
