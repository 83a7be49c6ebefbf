package sim_test

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/ais"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/carrier/sim"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

// feedReader decodes what an AIS feed sends.
type feedReader struct {
	mu   sync.Mutex
	msgs []ais.Message
}

func readFeed(t *testing.T, addr net.Addr) *feedReader {
	t.Helper()
	conn, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	f := &feedReader{}
	go func() {
		var d ais.Decoder
		var m ais.Message
		sc := bufio.NewScanner(conn)
		for sc.Scan() {
			if ok, _ := d.Decode(sc.Bytes(), &m); ok {
				f.mu.Lock()
				f.msgs = append(f.msgs, m)
				f.mu.Unlock()
			}
		}
	}()
	return f
}

func (f *feedReader) of(mmsi uint32, typ int) []ais.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []ais.Message
	for _, m := range f.msgs {
		if m.MMSI == mmsi && m.Type == typ {
			out = append(out, m)
		}
	}
	return out
}

// mmsiOf returns the MMSI of a vessel by IMO number: the fleet's, or a simulated vessel's (IMO
// 30kkkkC has MMSI 200000000 + kkkk, see docs/carriers.md).
func mmsiOf(t *testing.T, imo string) uint32 {
	t.Helper()
	if strings.HasPrefix(imo, "30") {
		k, _ := strconv.Atoi(imo[2:6])
		return 200000000 + uint32(k)
	}
	for _, v := range data.Fleet() {
		if v.IMO == imo {
			var n uint32
			for _, c := range v.MMSI {
				n = n*10 + uint32(c-'0')
			}
			return n
		}
	}
	t.Fatalf("vessel %s is not in the fleet", imo)
	return 0
}

// departure returns the actual departure from the port of lading and the vessel's IMO number.
func departure(t *testing.T, events []dcsa.Event) (time.Time, *dcsa.TransportCall) {
	t.Helper()
	for _, e := range events {
		if e.TransportEventTypeCode == "DEPA" && e.EventClassifierCode == "ACT" {
			return mustTime(t, e.EventDateTime), e.TransportCall
		}
	}
	t.Fatal("no actual departure")
	return time.Time{}, nil
}

// TestAISBroadcast: a voyage under way when first looked up is heard from its vessel's arrival
// at the port of lading, moored there, then sailing away from it; static reports give its IMO
// number; times are simulated time on a grid; later reports follow as simulated time runs.
func TestAISBroadcast(t *testing.T) {
	n := newTestNetwork(t, func(o *sim.Options) { o.Speed = 60 })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.StartAIS(ln); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	if err := n.StartAIS(ln); err == nil {
		t.Fatal("a second StartAIS succeeded")
	}
	feed := readFeed(t, n.AISAddr())
	// The feed hears only what is sent after the client connected: wait for the connection.
	trackingtest.Eventually(t, 5*time.Second, "the feed never connected", func() bool { return n.AISClients() == 1 })

	events := n.mustEvents(t, "MAEU", numberWithDigit(3, 3)) // at sea on the first leg
	left, pol := departure(t, events)
	imo := pol.Vessel.VesselIMONumber
	mmsi := mmsiOf(t, imo)
	polPoint := portPoint(t, pol.UNLocationCode)

	// The backlog runs from the vessel's arrival at the port of lading to the lookup, days after
	// its departure: wait until it has been read past the departure.
	trackingtest.Eventually(t, 10*time.Second, "no backlog of position reports past the departure", func() bool {
		reports := feed.of(mmsi, 1)
		return len(reports) > 10 && reports[len(reports)-1].Time.After(left.Add(time.Hour)) && len(feed.of(mmsi, 5)) > 0
	})
	statics := feed.of(mmsi, 5)
	if s := statics[0]; s.IMO == 0 || s.Name.Len() == 0 || s.Time.IsZero() {
		t.Fatalf("static report %+v", s)
	}
	reports := feed.of(mmsi, 1)
	var prev time.Time
	var lastDist float64
	atSea := 0
	for _, r := range reports {
		if r.Time.IsZero() || !r.HasPosition || !r.HasSpeed {
			t.Fatalf("report without time, position or speed: %+v", r)
		}
		if !prev.IsZero() && r.Time.Sub(prev) != 3*time.Minute {
			t.Fatalf("reports %v then %v: want every 3 simulated minutes", prev, r.Time)
		}
		prev = r.Time
		dist := geo.DistanceNM(polPoint, r.Position)
		switch {
		case r.Time.Before(left):
			if dist > 1 || r.Speed != 0 {
				t.Fatalf("before departure the vessel is %.1f nm from the port at %.1f kn", dist, r.Speed)
			}
		default:
			atSea++
			if dist+0.01 < lastDist || r.Speed < 10 || r.Speed > 25 || !r.HasCourse {
				t.Fatalf("at sea: %.1f nm from the port after %.1f, %.1f kn: %+v", dist, lastDist, r.Speed, r)
			}
			lastDist = dist
		}
	}
	if atSea == 0 {
		t.Fatal("no report at sea in the backlog")
	}

	// An hour of real time at 60 times speed is 60 simulated hours: 20 more reports an hour.
	before := len(reports)
	n.clock.Advance(time.Hour)
	trackingtest.Eventually(t, 10*time.Second, "no reports as simulated time ran", func() bool {
		return len(feed.of(mmsi, 1)) >= before+1000
	})
}

// TestAISRouter: vessels sail the router's paths.
func TestAISRouter(t *testing.T) {
	var mu sync.Mutex
	var asked [][2]geo.Point
	router := func(from, to geo.Point) ([]geo.Point, float64, error) {
		mu.Lock()
		asked = append(asked, [2]geo.Point{from, to})
		mu.Unlock()
		// A dogleg through a point far to the south of both ports.
		via := geo.Point{Lat: min(from.Lat, to.Lat) - 20, Lon: (from.Lon + to.Lon) / 2}
		path := []geo.Point{from, via, to}
		return path, geo.DistanceNM(from, via) + geo.DistanceNM(via, to), nil
	}
	n := newTestNetwork(t, func(o *sim.Options) { o.Router = router })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.StartAIS(ln); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	feed := readFeed(t, n.AISAddr())
	trackingtest.Eventually(t, 5*time.Second, "the feed never connected", func() bool { return n.AISClients() == 1 })
	events := n.mustEvents(t, "MSCU", numberWithDigit(5, 4))
	_, pol := departure(t, events)
	mmsi := mmsiOf(t, pol.Vessel.VesselIMONumber)
	trackingtest.Eventually(t, 10*time.Second, "no position reports", func() bool { return len(feed.of(mmsi, 1)) > 10 })
	mu.Lock()
	routed := len(asked)
	mu.Unlock()
	if routed == 0 {
		t.Fatal("the router was never asked")
	}
	// Sail the whole leg: its middle lies on the dogleg, 20° south of the ports.
	n.clock.Advance(60 * 24 * time.Hour)
	polPoint := portPoint(t, pol.UNLocationCode)
	trackingtest.Eventually(t, 10*time.Second, "no report follows the router's dogleg to the south", func() bool {
		for _, r := range feed.of(mmsi, 1) {
			if r.Position.Lat < polPoint.Lat-15 {
				return true
			}
		}
		return false
	})
}

func portPoint(t *testing.T, locode string) geo.Point {
	t.Helper()
	p, ok := data.Ports().ByLOCODE(locode)
	if !ok {
		t.Fatalf("port %s unknown", locode)
	}
	return geo.Point{Lat: p.Latitude, Lon: p.Longitude}
}

// TestAISKeepsSailingVoyagesOnly: the feed keeps a vessel while one of its voyages looked up is
// still to be heard, so what it holds is bounded by the voyages sailing, not by the lookups: a
// voyage looked up again (by the same or another journey aboard) is kept once, voyages over are
// dropped and not kept again when looked up again.
func TestAISKeepsSailingVoyagesOnly(t *testing.T) {
	n := newTestNetwork(t, func(o *sim.Options) { o.Speed = 60 })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.StartAIS(ln); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })

	const lookups = 120
	for i := range lookups {
		n.mustEvents(t, "MAEU", numberWithDigit(i, 3))
		n.clock.Advance(time.Second) // each first looked up later than the one before
	}
	vessels, voyages := n.AISVessels()
	t.Logf("%d lookups: %d voyages kept for %d vessels", lookups, voyages, vessels)
	if vessels == 0 || voyages < vessels || voyages > 2*lookups {
		t.Fatalf("%d lookups left %d voyages for %d vessels", lookups, voyages, vessels)
	}
	// Looking up the same numbers again keeps nothing more.
	for i := range lookups / 2 {
		n.mustEvents(t, "MAEU", numberWithDigit(i, 3))
	}
	if v, again := n.AISVessels(); again != voyages || v != vessels {
		t.Errorf("looking up journeys again kept %d voyages for %d vessels, %d for %d before", again, v, voyages, vessels)
	}

	// Half a year of simulated time later every voyage is over: the feed drops them all at its
	// next tick, and keeps none of them when they are looked up again.
	n.clock.Advance(3 * 24 * time.Hour)
	trackingtest.Eventually(t, 10*time.Second, "voyages kept after every one ended", func() bool {
		v, s := n.AISVessels()
		return v == 0 && s == 0
	})
	for i := range 10 {
		n.mustEvents(t, "MAEU", numberWithDigit(i, 3))
	}
	if v, s := n.AISVessels(); v != 0 || s != 0 {
		t.Errorf("voyages over, looked up again: %d kept for %d vessels, want none", s, v)
	}
}
