package carrier

import (
	"context"
	"fmt"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/infer"
)

// formatChecked is a simulated carrier that, as a real one would, refuses bills of lading and
// bookings that fit none of its formats, as far as infer_number knows them: a container number
// sent as a bill, or a house bill, fails with invalid_number instead of becoming a journey.
type formatChecked struct {
	boxwatch.Carrier
	formats *infer.Engine
}

func (c formatChecked) Lookup(ctx context.Context, ref boxwatch.CarrierReference) (boxwatch.CarrierShipment, error) {
	kind := infer.BillOfLading
	switch ref.Type {
	case boxwatch.RequestContainer:
		return c.Carrier.Lookup(ctx, ref)
	case boxwatch.RequestBookingNumber:
		kind = infer.Booking
	}
	if !c.formats.Fits(ref.SCAC, kind, ref.Number) {
		return boxwatch.CarrierShipment{}, &boxwatch.CarrierError{Reason: boxwatch.ReasonInvalidNumber,
			Err: fmt.Errorf("simulated %s: %s fits none of its %s formats", ref.SCAC, ref.Number, kind)}
	}
	return c.Carrier.Lookup(ctx, ref)
}

// CheckFormats wraps the carriers that are not in configured (the simulated ones) so that, like
// a real line, they refuse a bill of lading or booking that fits none of the line's formats as
// infer_number knows them (registry's), with invalid_number. Numbers of the other types, and the
// configured carriers, go through as they are.
func CheckFormats(carriers, configured map[string]boxwatch.Carrier, registry *boxwatch.Carriers) (map[string]boxwatch.Carrier, error) {
	formats, err := infer.New(registry, data.Lessors())
	if err != nil {
		return nil, err
	}
	out := make(map[string]boxwatch.Carrier, len(carriers))
	for scac, c := range carriers {
		if _, real := configured[scac]; real {
			out[scac] = c
		} else {
			out[scac] = formatChecked{c, formats}
		}
	}
	return out, nil
}
