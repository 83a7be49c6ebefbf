package infer_test

import (
	"fmt"

	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/infer"
)

func ExampleEngine_Infer() {
	engine, err := infer.New(data.Carriers(), data.Lessors())
	if err != nil {
		panic(err)
	}
	for _, number := range []string{"CSQU 305438 3", "MAEU123456789", "TGHU1234567", "HAMA71223610"} {
		r, err := engine.Infer(number)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %s, %s", number, r.NumberType, r.ShippingLine.Decision)
		for _, c := range r.ShippingLine.Candidates {
			fmt.Printf(" %s=%.3f", c.SCAC, c.Confidence)
		}
		fmt.Println()
	}
	// Output:
	// CSQU 305438 3: container, auto_select HLCU=0.970
	// MAEU123456789: bill_of_lading, auto_select MAEU=0.980
	// TGHU1234567: container, no_prediction
	// HAMA71223610: bill_of_lading, no_prediction ONEY=0.308 HDMU=0.308 SMLM=0.308
}

func ExampleEngine_Lines() {
	engine, err := infer.New(data.Carriers(), data.Lessors())
	if err != nil {
		panic(err)
	}
	for _, number := range []string{"MAEU123456789", "HAMA71223610", "TGHU1234567", "!!"} {
		fmt.Println(number, engine.Lines(number))
	}
	// Output:
	// MAEU123456789 [MAEU]
	// HAMA71223610 [ONEY HDMU SMLM]
	// TGHU1234567 []
	// !! []
}
