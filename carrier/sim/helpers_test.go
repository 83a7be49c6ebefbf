package sim_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/carrier/sim"
)

// start is the real time the test clocks start at.
var start = time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)

// clock is a settable real-time clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// testNetwork is a network served over HTTP on loopback with its clock and state.
type testNetwork struct {
	*sim.Network
	clock *clock
	state sim.State
	url   string
}

func newTestNetwork(t testing.TB, opts ...func(*sim.Options)) *testNetwork {
	t.Helper()
	c := &clock{now: start}
	o := sim.Options{Clock: c.Now, State: sim.NewMemoryState()}
	for _, f := range opts {
		f(&o)
	}
	n, err := sim.New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(n)
	t.Cleanup(srv.Close)
	return &testNetwork{Network: n, clock: c, state: o.State, url: srv.URL}
}

// answer is one HTTP answer of the network.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) events(t testing.TB) []dcsa.Event {
	t.Helper()
	if a.status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", a.status, a.body)
	}
	var evs []dcsa.Event
	if err := json.Unmarshal(a.body, &evs); err != nil {
		t.Fatalf("body is not an event list: %v: %s", err, a.body)
	}
	return evs
}

func (n *testNetwork) get(t testing.TB, path string) answer {
	t.Helper()
	return getURL(t, n.url+path)
}

func getURL(t testing.TB, u string) answer {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, body}
}

// mustEvents looks a number up by bill of lading and returns its events.
func (n *testNetwork) mustEvents(t testing.TB, scac, number string) []dcsa.Event {
	t.Helper()
	return n.get(t, eventsPath(scac, "transportDocumentReference", number)).events(t)
}

func eventsPath(scac, param, number string) string {
	return fmt.Sprintf("/%s/v2/events?%s=%s", scac, param, url.QueryEscape(number))
}

// view is a journey as its events show it. The vessel calls are known from the start (the plan
// covers them); the depot calls appear with the first move at them.
type view struct {
	calls      map[int]*dcsa.TransportCall // by sequence number
	last       int                         // sequence number of the return depot
	containers map[string]bool
	events     []dcsa.Event
}

func newView(t testing.TB, events []dcsa.Event) view {
	t.Helper()
	v := view{calls: map[int]*dcsa.TransportCall{}, containers: map[string]bool{}, events: events}
	for _, e := range events {
		if e.TransportCall != nil {
			v.calls[*e.TransportCall.TransportCallSequenceNumber] = e.TransportCall
			if e.TransportCall.FacilityTypeCode == "POTE" {
				v.last = max(v.last, *e.TransportCall.TransportCallSequenceNumber+1)
			}
		}
		if e.EquipmentReference != "" {
			v.containers[e.EquipmentReference] = true
		}
	}
	if v.last != 4 && v.last != 6 {
		t.Fatalf("the route has %d calls, want 4 (direct) or 6 (through a hub)", v.last)
	}
	return v
}

// hub reports whether the route changes vessel at a hub.
func (v view) hub() bool { return v.last == 6 }

// pol, pod: sequence numbers of the ports of lading and discharge.
func (v view) pol() int { return 2 }
func (v view) pod() int { return v.last - 1 }

// count returns how many ACT events of a transport or equipment code the call has.
func (v view) count(code string, seq int) int {
	n := 0
	for _, e := range v.events {
		if e.EventClassifierCode == boxwatch.ClassifierActual && e.TransportCall != nil && *e.TransportCall.TransportCallSequenceNumber == seq &&
			(e.TransportEventTypeCode == code || e.EquipmentEventTypeCode == code) {
			n++
		}
	}
	return n
}

// actual reports whether the call has an ACT event of the code: of the vessel for a transport
// code, of every container for an equipment code.
func (v view) actual(code string, seq int) bool {
	if code == "ARRI" || code == "DEPA" {
		return v.count(code, seq) == 1
	}
	return v.count(code, seq) == len(v.containers)
}

// none reports whether the call has no ACT event of the code.
func (v view) none(code string, seq int) bool { return v.count(code, seq) == 0 }

// shipment reports whether an ACT shipment event of the code exists.
func (v view) shipment(code string) bool {
	for _, e := range v.events {
		if e.EventClassifierCode == boxwatch.ClassifierActual && e.ShipmentEventTypeCode == code {
			return true
		}
	}
	return false
}

// estimate returns the time of the EST event of a transport code at a call.
func (v view) estimate(t testing.TB, code string, seq int) time.Time {
	t.Helper()
	for _, e := range v.events {
		if e.EventClassifierCode == boxwatch.ClassifierEstimated && e.TransportEventTypeCode == code && *e.TransportCall.TransportCallSequenceNumber == seq {
			return mustTime(t, e.EventDateTime)
		}
	}
	t.Fatalf("no estimate of %s at call %d", code, seq)
	return time.Time{}
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("%q is not an RFC 3339 time: %v", s, err)
	}
	return at
}

// markers end the numbers the simulator answers otherwise than by their last digit.
var markers = []string{"0000", "9999", "4100", "5030", "7710", "7720", "7730", "7740", "7750", "7790"}

// marked reports whether number ends in one of the markers.
func marked(number string) bool {
	return slices.ContainsFunc(markers, func(m string) bool { return strings.HasSuffix(number, m) })
}

// numberWithDigit returns the i-th test bill of lading number ending in digit; its next to last
// digit is never 0, so for the first hundred it never ends in a marker.
func numberWithDigit(i, digit int) string { return fmt.Sprintf("%07d%d%d", 1000+i*37, 1+i%8, digit) }

// containerWithDigit returns a valid container number of the owner prefix ending in digit, but
// not in a marker.
func containerWithDigit(t testing.TB, prefix string, seed, digit int) string {
	t.Helper()
	for serial := seed; serial < seed+1000; serial++ {
		s := fmt.Sprintf("%s%06d", prefix, serial%1000000)
		number := fmt.Sprintf("%s%d", s, digit)
		if d, _ := boxwatch.ContainerCheckDigit(s); int(d) == digit && !marked(number) {
			return number
		}
	}
	t.Fatalf("no container number of %s ends in %d", prefix, digit)
	return ""
}

// containerEnding returns a valid container number of the owner prefix ending in tail (four
// digits, the last one a check digit).
func containerEnding(t testing.TB, prefix, tail string) string {
	t.Helper()
	for serial := range 1000 {
		body := fmt.Sprintf("%s%03d%s", prefix, serial, tail[:3])
		if d, _ := boxwatch.ContainerCheckDigit(body); string(rune('0'+d)) == tail[3:] {
			return body + tail[3:]
		}
	}
	t.Fatalf("no container number of %s ends in %s", prefix, tail)
	return ""
}
