package trackingtest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/infer"
)

// DemoNumber is a number tracked at a line, as a request of its type.
type DemoNumber struct {
	Type         boxwatch.RequestType
	Number, SCAC string
}

// DemoNumbers are a bill, a booking and a container number for every line that tracks each,
// fitting the line's formats, with journeys at every stage from the port of lading to the last
// leg (last digits 1 to 7), none ending in a marker of the simulator.
func DemoNumbers(t testing.TB) []DemoNumber {
	t.Helper()
	registry := data.Carriers()
	formats, err := infer.New(registry, data.Lessors())
	if err != nil {
		t.Fatal(err)
	}
	var out []DemoNumber
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
			out = append(out, DemoNumber{kind.typ, number, line.SCAC})
		}
		if line.Support.Supports(boxwatch.RequestContainer) {
			prefix := line.SCAC[:3] + "U"
			if len(line.ContainerPrefixes) > 0 {
				prefix = line.ContainerPrefixes[0]
			}
			for {
				serial++
				number := BoxNumber(prefix, fmt.Sprintf("%06d", 104729*serial%1000000))
				if last := number[len(number)-1]; last >= '1' && last <= '7' {
					out = append(out, DemoNumber{boxwatch.RequestContainer, number, line.SCAC})
					break
				}
			}
		}
	}
	return out
}

// BoxNumber completes an owner prefix and a six-digit serial with its check digit.
func BoxNumber(prefix, serial string) string {
	d, _ := boxwatch.ContainerCheckDigit(prefix + serial)
	return prefix + serial + string(rune('0'+d))
}

// sampleNumber writes a number in the line's first format of the registry field (its first bill
// format when the field is absent, any number when it has none), its digits from serial, its
// last digit from 1 to 7.
func sampleNumber(t testing.TB, line boxwatch.ShippingLine, field string, serial int) string {
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
