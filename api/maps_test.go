package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/searoute"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// settableClock is a clock a test sets to each moment of a journey.
type settableClock struct{ t atomic.Int64 }

func (c *settableClock) set(t time.Time) { c.t.Store(t.UnixNano()) }
func (c *settableClock) Now() time.Time  { return time.Unix(0, c.t.Load()).UTC() }
func withSettable(c *settableClock) option {
	return func(_ testing.TB, cfg *api.Config, _ *store.DB) { cfg.Clock = c.Now }
}

// imoNumber makes a valid IMO number from six digits (the seventh is the check digit).
func imoNumber(six int) string {
	s := fmt.Sprintf("%06d", six)
	sum := 0
	for i := range 6 {
		sum += int(s[i]-'0') * (7 - i)
	}
	return s + fmt.Sprint(sum%10)
}

var mapT0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func day(d float64) time.Time { return mapT0.Add(time.Duration(d * 24 * float64(time.Hour))) }

// journeyVessel is a vessel of a test journey and the AIS it broadcast: positions every five
// minutes along the sea route between its ports, from departure until upTo (zero: none stored).
type journeyVessel struct {
	imo, mmsi  string
	from, to   string // UN/LOCODEs
	departed   time.Time
	knots      float64
	upTo       time.Time
	lastOnly   bool // only the latest position is known, no track
	noPosition bool
	step       time.Duration // between positions; 0 is five minutes
}

// sail returns the positions of a vessel leaving from at departed at knots along the sea path.
func sail(t testing.TB, v journeyVessel) []boxwatch.VesselPosition {
	t.Helper()
	a, _ := data.Ports().ByLOCODE(v.from)
	b, _ := data.Ports().ByLOCODE(v.to)
	path, err := data.SeaNetwork().Route(geo.Point{Lat: a.Latitude, Lon: a.Longitude}, geo.Point{Lat: b.Latitude, Lon: b.Longitude}, searoute.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []boxwatch.VesselPosition
	pts := path.Points
	seg, done := 1, 0.0 // segment index, nm into it
	speed := v.knots
	step := v.step
	if step == 0 {
		step = 5 * time.Minute
	}
	for at := v.departed; at.Before(v.upTo) && seg < len(pts); at = at.Add(step) {
		p := geo.Intermediate(pts[seg-1], pts[seg], math.Min(1, done/math.Max(geo.DistanceNM(pts[seg-1], pts[seg]), 1e-9)))
		heading := math.Round(geo.Bearing(pts[seg-1], pts[seg]))
		out = append(out, boxwatch.VesselPosition{MMSI: v.mmsi, Latitude: p.Lat, Longitude: p.Lon, SpeedKnots: &speed,
			HeadingDegrees: &heading, Timestamp: at})
		done += v.knots * step.Hours()
		for seg < len(pts) && done >= geo.DistanceNM(pts[seg-1], pts[seg]) {
			done -= geo.DistanceNM(pts[seg-1], pts[seg])
			seg++
		}
	}
	return out
}

// mustSeedJourney stores a shipment with route and one container for the account, its vessels
// and their AIS, and returns the container id.
func mustSeedJourney(t testing.TB, db *store.DB, accountID, number string, route []boxwatch.RouteStop, stopped time.Time, vessels ...journeyVessel) string {
	t.Helper()
	ctx := context.Background()
	created := mapT0.Add(-72 * time.Hour)
	var containerID string
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		tr := boxwatch.TrackingRequest{ID: boxwatch.NameUUID("tr/" + accountID + number), AccountID: accountID, RequestType: boxwatch.RequestBillOfLading,
			RequestNumber: number, SCAC: "MAEU", RefNumbers: []string{}, ShipmentTags: []string{},
			Status: boxwatch.StatusPending, CreatedAt: created, UpdatedAt: created}
		if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
			return err
		}
		s := boxwatch.Shipment{ID: boxwatch.NameUUID("s/" + accountID + number), AccountID: accountID, TrackingRequestID: tr.ID, SCAC: "MAEU",
			BillOfLading: number, RefNumbers: []string{}, Tags: []string{}, CreatedAt: created, UpdatedAt: created.Add(time.Hour),
			Route: route, StoppedAt: stopped}
		if !stopped.IsZero() {
			s.StoppedReason = boxwatch.StopAllContainersTerminated
		}
		if err := tx.InsertShipment(ctx, s); err != nil {
			return err
		}
		tr.Status, tr.ShipmentID = boxwatch.StatusCreated, s.ID
		if err := tx.SaveTrackingRequestState(ctx, tr); err != nil {
			return err
		}
		c := boxwatch.Container{ID: boxwatch.NameUUID("c/" + accountID + number), AccountID: accountID, ShipmentID: s.ID,
			Number: "MSKU" + number[len(number)-7:], CurrentStatus: boxwatch.ContainerOnShip, CreatedAt: created, UpdatedAt: created}
		containerID = c.ID
		if err := tx.SaveContainer(ctx, c); err != nil {
			return err
		}
		for _, v := range vessels {
			if err := tx.SaveVessel(ctx, boxwatch.Vessel{ID: boxwatch.VesselID(v.imo), IMO: v.imo, Name: "VESSEL " + v.imo}, created); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vessels {
		if v.mmsi == "" {
			continue
		}
		if err := db.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{{MMSI: v.mmsi, IMO: v.imo}}, created); err != nil {
			t.Fatal(err)
		}
		if v.noPosition {
			continue
		}
		ps := sail(t, v)
		if len(ps) == 0 {
			continue
		}
		if !v.lastOnly {
			if _, err := db.SavePositions(ctx, ps); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.SaveLastPositions(ctx, ps[len(ps)-1:]); err != nil {
			t.Fatal(err)
		}
	}
	return containerID
}

// stop is a route stop for the tests.
func stop(seq int, locode, role string, eta, ata, etd, atd time.Time, inIMO, outIMO string) boxwatch.RouteStop {
	return boxwatch.RouteStop{Sequence: seq, LOCODE: locode, Role: role, ETA: eta, ATA: ata, ETD: etd, ATD: atd,
		InboundVesselIMO: inIMO, OutboundVesselIMO: outIMO, InboundVoyage: voyageOf(inIMO), OutboundVoyage: voyageOf(outIMO)}
}

func voyageOf(imo string) string {
	if imo == "" {
		return ""
	}
	return "V" + imo[:3] + "W"
}

// mapStage is a moment of a journey: its route as then known, its vessels, and the time.
type mapStage struct {
	name    string
	now     time.Time
	route   func(a, b string) []boxwatch.RouteStop
	vessels func(a, b string) []journeyVessel
	stopped time.Time
	split   bool
}

// The three-port journey Shanghai → Singapore (TS1) → Rotterdam, on vessel a then vessel b.
var z time.Time

func asiaEurope(polATD, tsATA, tsATD, podATA time.Time) func(a, b string) []boxwatch.RouteStop {
	return func(a, b string) []boxwatch.RouteStop {
		return []boxwatch.RouteStop{
			stop(1, "CNSHA", boxwatch.RolePOL, z, z, day(1), polATD, "", a),
			stop(2, "SGSIN", boxwatch.RoleTS, day(6.5), tsATA, day(9), tsATD, a, b),
			stop(3, "NLRTM", boxwatch.RolePOD, day(29), podATA, z, z, b, ""),
		}
	}
}

func asiaEuropeVessels(upToA, upToB time.Time) func(a, b string) []journeyVessel {
	return func(a, b string) []journeyVessel {
		vs := []journeyVessel{{imo: a, mmsi: "2" + a[:7] + "1", from: "CNSHA", to: "SGSIN", departed: day(1), knots: 18, upTo: upToA}}
		return append(vs, journeyVessel{imo: b, mmsi: "2" + b[:7] + "2", from: "SGSIN", to: "NLRTM", departed: day(9), knots: 17.5, upTo: upToB})
	}
}

var mapStages = []mapStage{
	{name: "booked", now: day(0), route: asiaEurope(z, z, z, z), vessels: asiaEuropeVessels(z, z)},
	{name: "sea_leg1", now: day(3.5), route: asiaEurope(day(1), z, z, z), vessels: asiaEuropeVessels(day(3.5), z)},
	{name: "transshipment", now: day(7.5), route: asiaEurope(day(1), day(6.3), z, z), vessels: asiaEuropeVessels(day(6.3), z)},
	{name: "sea_last_leg", now: day(18), route: asiaEurope(day(1), day(6.3), day(9), z), vessels: asiaEuropeVessels(day(6.3), day(18))},
	{name: "arrived", now: day(29.5), route: asiaEurope(day(1), day(6.3), day(9), day(29.2)), vessels: asiaEuropeVessels(day(6.3), day(29.2))},
	{name: "complete", now: day(36), route: asiaEurope(day(1), day(6.3), day(9), day(29.2)), vessels: asiaEuropeVessels(day(6.3), day(29.2)), stopped: day(35)},
	{name: "transpacific", now: day(8), route: transpacific, vessels: transpacificVessels},
	{name: "transpacific_split", now: day(8), route: transpacific, vessels: transpacificVessels, split: true},
}

// Shanghai to Los Angeles: at sea east of the antimeridian, with the path sailed crossing it.
func transpacific(a, _ string) []boxwatch.RouteStop {
	return []boxwatch.RouteStop{
		stop(1, "CNSHA", boxwatch.RolePOL, z, z, day(1), day(1), "", a),
		stop(2, "USLAX", boxwatch.RolePOD, day(13), z, z, z, a, ""),
	}
}

func transpacificVessels(a, _ string) []journeyVessel {
	return []journeyVessel{{imo: a, mmsi: "3" + a[:7] + "1", from: "CNSHA", to: "USLAX", departed: day(1), knots: 19, upTo: day(8)}}
}

func TestContainerMapStages(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		clock := &settableClock{}
		ts := newTestServer(t, b, withSettable(clock))
		acme := mustAccountID(t, ts.db, "acme")
		for i, st := range mapStages {
			t.Run(st.name, func(t *testing.T) {
				a, bb := imoNumber(930000+10*i), imoNumber(930001+10*i)
				number := fmt.Sprintf("MAP%09d", i)
				id := mustSeedJourney(t, ts.db, acme, number, st.route(a, bb), st.stopped, st.vessels(a, bb)...)
				clock.set(st.now)
				path := "/v2/containers/" + id + "/map_geojson"
				if st.split {
					path += "?antimeridian=split"
				}
				r := ts.do(t, "GET", path, ts.acme, "").want(t, 200)
				if ct := r.header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q", ct)
				}
				checkMap(t, r.raw)
				golden(t, "map_"+st.name+".geojson", r.raw)
				want := "private, max-age=900"
				if !st.stopped.IsZero() {
					want = "private, max-age=31536000, immutable" // the journey has ended
				}
				if cc := r.header.Get("Cache-Control"); cc != want || r.header.Get("ETag") == "" {
					t.Errorf("Cache-Control %q, want %q; ETag %q", cc, want, r.header.Get("ETag"))
				}
			})
		}
	})
}

func mustAccountID(t testing.TB, db *store.DB, name string) string {
	t.Helper()
	a, err := db.AccountByName(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// golden compares an answer, indented, with testdata/name; -update rewrites the file.
func golden(t *testing.T, name string, raw []byte) {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	out.WriteByte('\n')
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./api -run %s -update)", err, t.Name())
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("%s differs from the answer:\n%s", file, firstDiff(string(want), out.String()))
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(wl), len(gl)) {
		if wl[i] != gl[i] {
			return fmt.Sprintf("line %d:\n want %s\n got  %s", i+1, wl[i], gl[i])
		}
	}
	return fmt.Sprintf("lengths differ: %d lines, want %d", len(gl), len(wl))
}

type mapDoc struct {
	Type     string `json:"type"`
	Features []struct {
		Type     string `json:"type"`
		Geometry struct {
			Type        string          `json:"type"`
			Coordinates json.RawMessage `json:"coordinates"`
		} `json:"geometry"`
		Properties map[string]any `json:"properties"`
	} `json:"features"`
}

// checkMap fails the test unless raw is a valid RFC 7946 FeatureCollection that keeps every rule
// of the map: known feature types in route order, lines of two positions or more with their
// point_count, positions in range, at most one current vessel and one partial leg starting at
// it, and no estimated line over land.
func checkMap(t *testing.T, raw []byte) mapDoc {
	t.Helper()
	var doc mapDoc
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not a map: %v", err)
	}
	if doc.Type != "FeatureCollection" || doc.Features == nil {
		t.Fatalf("type %q, features %v", doc.Type, doc.Features)
	}
	var current []float64
	counts := map[string]int{}
	lastSeq, fullStarted := 0, false
	for i, f := range doc.Features {
		ft, _ := f.Properties["feature_type"].(string)
		counts[ft]++
		where := fmt.Sprintf("feature %d (%s)", i, ft)
		if f.Type != "Feature" {
			t.Errorf("%s: type %q", where, f.Type)
		}
		seq, ok := f.Properties["ports_sequence"].(float64)
		if !ok || seq < 1 {
			t.Errorf("%s: ports_sequence %v", where, f.Properties["ports_sequence"])
		}
		if ft == "estimated_full_legs" {
			if !fullStarted {
				lastSeq, fullStarted = 0, true
			}
		} else if fullStarted {
			t.Errorf("%s after the estimated full legs", where)
		}
		if int(seq) < lastSeq {
			t.Errorf("%s: ports_sequence %v after %d", where, seq, lastSeq)
		}
		lastSeq = int(seq)
		var lines [][][]float64
		switch f.Geometry.Type {
		case "Point":
			var p []float64
			if err := json.Unmarshal(f.Geometry.Coordinates, &p); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			checkPosition(t, where, p)
			if ft != "port" && ft != "current_vessel" {
				t.Errorf("%s is a Point", where)
			}
			if ft == "current_vessel" {
				current = p
			}
			continue
		case "LineString":
			var l [][]float64
			if err := json.Unmarshal(f.Geometry.Coordinates, &l); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			lines = [][][]float64{l}
		case "MultiLineString":
			if err := json.Unmarshal(f.Geometry.Coordinates, &lines); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
		default:
			t.Fatalf("%s: geometry %q", where, f.Geometry.Type)
		}
		n := 0
		for _, l := range lines {
			if len(l) < 2 {
				t.Errorf("%s: a line of %d positions", where, len(l))
			}
			for _, p := range l {
				checkPosition(t, where, p)
			}
			n += len(l)
		}
		if pc, _ := f.Properties["point_count"].(float64); int(pc) != n {
			t.Errorf("%s: point_count %v, %d positions", where, f.Properties["point_count"], n)
		}
		switch ft {
		case "estimated_partial_leg":
			if current == nil || lines[0][0][0] != current[0] || lines[0][0][1] != current[1] {
				t.Errorf("%s starts at %v, the vessel is at %v", where, lines[0][0], current)
			}
			checkSea(t, where, lines)
		case "estimated_full_legs":
			checkSea(t, where, lines)
		case "past_vessel_locations":
			if f.Properties["estimated"] == true {
				checkSea(t, where, lines)
			}
		default:
			t.Errorf("%s is a line", where)
		}
	}
	if counts["current_vessel"] > 1 || counts["estimated_partial_leg"] > counts["current_vessel"] {
		t.Errorf("feature counts %v", counts)
	}
	return doc
}

func checkPosition(t *testing.T, where string, p []float64) {
	t.Helper()
	if len(p) != 2 || p[0] < -180 || p[0] > 180 || p[1] < -90 || p[1] > 90 {
		t.Errorf("%s: position %v", where, p)
	}
}

// checkSea fails the test if a line crosses land, as the sea router's own tests judge it: every
// segment clear but for one at each end within searoute.CoastKM of a quay on land.
func checkSea(t *testing.T, where string, lines [][][]float64) {
	t.Helper()
	l := data.Land()
	var pts []geo.Point
	for _, line := range lines {
		for i, p := range line {
			if i > 0 && p[0] == line[i-1][0] && p[1] == line[i-1][1] {
				t.Errorf("%s: position %v twice in a row", where, p)
			}
			pts = append(pts, geo.Point{Lon: p[0], Lat: p[1]})
		}
	}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if math.Abs(a.Lon) == 180 && math.Abs(b.Lon) == 180 && a.Lat == b.Lat {
			continue // the cut at the antimeridian
		}
		if searoute.Clear(l, a, b) {
			continue
		}
		coast := (i == 1 && l.Contains(a)) || (i == len(pts)-1 && l.Contains(b))
		if coast && geo.DistanceKM(a, b) <= searoute.CoastKM+0.05 {
			continue
		}
		t.Errorf("%s: segment %d from %v to %v crosses land", where, i, a, b)
	}
}
