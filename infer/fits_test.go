package infer_test

import (
	"testing"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/infer"
)

func TestFits(t *testing.T) {
	e, err := infer.New(data.Carriers(), data.Lessors())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, scac string
		kind       infer.NumberType
		number     string
		want       bool
	}{
		{"PrefixedBillInFormat", "MAEU", infer.BillOfLading, "MAEU123456784", true},
		{"BillInFormatWithoutPrefix", "MSCU", infer.BillOfLading, "MEDUFR030802", true},
		{"ContainerAsBill", "MSCU", infer.BillOfLading, "MSCU1234566", false},
		{"ContainerAsBooking", "MAEU", infer.Booking, "MSKU 123456-5", false},
		{"ContainerShapedWithATypoInNoBillFormat", "HLCU", infer.BillOfLading, "HLCU1234567", false},
		{"BillOutOfFormat", "MAEU", infer.BillOfLading, "MAEUX1", false},
		{"HouseBillLookingNumber", "MSCU", infer.BillOfLading, "SHA2024-77815", false},
		{"UnknownSCACAcceptsAll", "ZZZZ", infer.BillOfLading, "ANYTHING1", true},
		{"NotANumber", "MAEU", infer.BillOfLading, "MAEU<script>", false},
		{"Blank", "MAEU", infer.BillOfLading, " - ", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := e.Fits(tt.scac, tt.kind, tt.number); got != tt.want {
				r, _ := e.Infer(tt.number)
				t.Fatalf("Fits(%s, %s, %q) = %v, want %v (infer: %+v)", tt.scac, tt.kind, tt.number, got, tt.want, r)
			}
		})
	}
}
