package sim_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/carrier/sim"
)

// A number ending in 7 is at sea towards its port of discharge at its first lookup, its vessel
// the next to arrive there.
func ExampleNetwork() {
	firstLookup := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	n, err := sim.New(sim.Options{
		SCACs: []string{"MAEU"},
		Clock: func() time.Time { return firstLookup },
	})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	if err := n.Start(ln); err != nil {
		panic(err)
	}
	defer n.Close()

	base, _ := n.BaseURL("MAEU")
	resp, err := http.Get(base + "/v2/events?transportDocumentReference=260112347&eventType=TRANSPORT&transportEventTypeCode=ARRI")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var events []dcsa.Event
	if err := json.NewDecoder(resp.Body).Decode(&events); err != nil {
		panic(err)
	}
	fmt.Println(resp.Header.Get(dcsa.HeaderAPIVersion))
	for _, e := range events {
		if e.EventClassifierCode == "EST" {
			eta, _ := time.Parse(time.RFC3339, e.EventDateTime)
			fmt.Println("estimated arrival at", e.TransportCall.UNLocationCode, "in", eta.Sub(firstLookup).Round(time.Hour))
		}
	}
	// Output:
	// 2.2.0
	// estimated arrival at CNSHA in 11h0m0s
}
