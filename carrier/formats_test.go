package carrier_test

import (
	"errors"
	"net"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier"
	"github.com/boxwatch/boxwatch/carrier/sim"
	"github.com/boxwatch/boxwatch/data"
)

// TestCheckFormats: a simulated line refuses a bill or booking that fits none of its formats, as
// a real one would, and answers the numbers that fit and container numbers as before.
func TestCheckFormats(t *testing.T) {
	registry := data.Carriers()
	network, err := sim.New(sim.Options{Carriers: registry, SCACs: []string{"MAEU", "CMDU"}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := network.Start(ln); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { network.Close() })
	simulated, err := carrier.Simulated(network, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	checked, err := carrier.CheckFormats(simulated, map[string]boxwatch.Carrier{"CMDU": simulated["CMDU"]}, registry)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ref  boxwatch.CarrierReference
		want string // the failure reason, "" for an answer
	}{
		{"OKBillInFormat", boxwatch.CarrierReference{Type: boxwatch.RequestBillOfLading, Number: "MAEU123456784", SCAC: "MAEU"}, ""},
		{"OKContainer", boxwatch.CarrierReference{Type: boxwatch.RequestContainer, Number: "MSKU1234565", SCAC: "MAEU"}, ""},
		{"ErrContainerNumberAsBill", boxwatch.CarrierReference{Type: boxwatch.RequestBillOfLading, Number: "MSKU1234565", SCAC: "MAEU"}, boxwatch.ReasonInvalidNumber},
		{"ErrContainerNumberAsBooking", boxwatch.CarrierReference{Type: boxwatch.RequestBookingNumber, Number: "MSKU1234565", SCAC: "MAEU"}, boxwatch.ReasonInvalidNumber},
		{"OKConfiguredLineUnchecked", boxwatch.CarrierReference{Type: boxwatch.RequestBillOfLading, Number: "MSKU1234565", SCAC: "CMDU"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := checked[tc.ref.SCAC].Lookup(t.Context(), tc.ref)
			reason := ""
			var ce *boxwatch.CarrierError
			if errors.As(err, &ce) {
				reason = ce.Reason
			} else if err != nil {
				t.Fatal(err)
			}
			if reason != tc.want {
				t.Errorf("lookup failed with %q (%v), want %q", reason, err, tc.want)
			}
		})
	}
}
