package tracking_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/infer"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// TestDemoKeepsRefreshing runs the simulated world as the demo does (the lines refuse what fits
// none of their formats) for four simulated days, with a bill of lading, a booking and a
// container number at every line that tracks them, and checks that every shipment's refreshes
// succeed: its last success advances each day until its journey ends, and no refresh fails.
func TestDemoKeepsRefreshing(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		clock := trackingtest.NewClock(time.Now())
		reg := prometheus.NewRegistry()
		// At full scale, so that no journey's end window closes on a shipment that still moves.
		f := newFixture(t, b, trackingtest.Options{Clock: clock, RetryScale: 1, RefreshInterval: time.Hour, CheckFormats: true, Metrics: reg})
		var requests []boxwatch.TrackingRequest
		for _, n := range demoNumbers(t) {
			requests = append(requests, f.track(t, n.typ, n.number, n.scac))
		}
		byType := map[boxwatch.RequestType]int{}
		for i, tr := range requests {
			tr = f.settled(t, tr.ID)
			if tr.ShipmentID == "" {
				t.Fatalf("%s %s at %s: %s (%s), want a shipment", tr.RequestType, tr.RequestNumber, tr.SCAC, tr.Status, tr.FailedReason)
			}
			requests[i] = tr
			byType[tr.RequestType]++
		}
		t.Logf("%d shipments: %v", len(requests), byType)

		// A day at a time: every shipment is due once a round (the interval is an hour), and has
		// been refreshed once none is due any more.
		for day := 1; day <= 4; day++ {
			clock.Advance(24 * time.Hour)
			now := clock.Now()
			trackingtest.Eventually(t, 5*time.Minute, fmt.Sprintf("day %d: shipments still due", day), func() bool {
				due, err := f.db.DueShipments(ctx, now, 1)
				if err != nil {
					t.Fatal(err)
				}
				return len(due) == 0
			})
			for _, tr := range requests {
				s := f.shipmentOf(t, tr)
				switch {
				case s.StoppedAt.IsZero() && s.LastSucceededAt.Before(now):
					t.Errorf("day %d: %s %s at %s was last refreshed at %v", day, tr.RequestType, tr.RequestNumber, tr.SCAC, s.LastSucceededAt)
				case !s.StoppedAt.IsZero() && s.StoppedReason != boxwatch.StopAllContainersTerminated:
					t.Errorf("day %d: %s %s at %s stopped with %s", day, tr.RequestType, tr.RequestNumber, tr.SCAC, s.StoppedReason)
				}
			}
		}
		if n := counter(t, reg, "boxwatch_refresh_failures_total", nil); n != 0 {
			t.Errorf("%v refreshes failed", n)
		}
	})
}

type demoNumber struct {
	typ          boxwatch.RequestType
	number, scac string
}

// demoNumbers are a bill, a booking and a container number for every line that tracks each,
// fitting the line's formats, with journeys at every stage from the port of lading to the last
// leg (last digits 1 to 7), none ending in a marker of the simulator.
func demoNumbers(t *testing.T) []demoNumber {
	t.Helper()
	registry := data.Carriers()
	formats, err := infer.New(registry, data.Lessors())
	if err != nil {
		t.Fatal(err)
	}
	var out []demoNumber
	serial := 0
	for _, line := range registry.All() {
		for _, kind := range []struct {
			typ     boxwatch.RequestType
			infer   infer.NumberType
			formats string
		}{
			{boxwatch.RequestBillOfLading, infer.BillOfLading, "bill_of_lading_formats"},
			{boxwatch.RequestBookingNumber, infer.Booking, "booking_formats"},
		} {
			if !line.Support.Supports(kind.typ) {
				continue
			}
			serial++
			number := sampleNumber(t, line, kind.formats, serial)
			if !formats.Fits(line.SCAC, kind.infer, number) {
				t.Fatalf("%s: %s fits none of its %s formats", line.SCAC, number, kind.infer)
			}
			out = append(out, demoNumber{kind.typ, number, line.SCAC})
		}
		if line.Support.Supports(boxwatch.RequestContainer) {
			prefix := line.SCAC[:3] + "U"
			if len(line.ContainerPrefixes) > 0 {
				prefix = line.ContainerPrefixes[0]
			}
			for {
				serial++
				number := boxNumber(prefix, fmt.Sprintf("%06d", 104729*serial%1000000))
				if last := number[len(number)-1]; last >= '1' && last <= '7' {
					out = append(out, demoNumber{boxwatch.RequestContainer, number, line.SCAC})
					break
				}
			}
		}
	}
	return out
}

// sampleNumber writes a number in the line's first format of the registry field (its first bill
// format when the field is absent, any number when it has none), its digits from serial, its
// last digit from 1 to 7.
func sampleNumber(t *testing.T, line boxwatch.ShippingLine, field string, serial int) string {
	t.Helper()
	var specs []string
	for _, f := range []string{field, "bill_of_lading_formats"} {
		if raw, ok := line.Extra[f]; ok {
			if err := json.Unmarshal(raw, &specs); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	digits := fmt.Sprintf("%020d", 7919*serial)
	next := func() byte {
		d := digits[len(digits)-1]
		digits = digits[:len(digits)-1]
		return d
	}
	var b strings.Builder
	if len(specs) == 0 {
		b.WriteString(line.SCAC)
		for range 8 {
			b.WriteByte(next())
		}
	} else {
		for _, tok := range strings.Fields(specs[0]) {
			switch {
			case tok[0] == '\'':
				b.WriteString(strings.Trim(tok, "'"))
			case tok[0] == '[':
				b.WriteByte(tok[1])
			default:
				n, err := strconv.Atoi(strings.SplitN(tok[1:], "-", 2)[0])
				if err != nil {
					t.Fatalf("format %q: %v", specs[0], err)
				}
				for range n {
					if tok[0] == 'L' {
						b.WriteByte('A' + next()%26)
					} else {
						b.WriteByte(next())
					}
				}
			}
		}
	}
	number := []byte(b.String())
	number[len(number)-1] = byte('1' + serial%7)
	return string(number)
}
