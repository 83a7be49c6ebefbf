package journey_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/journey/journeytest"
	"github.com/boxwatch/boxwatch/searoute"
	"github.com/boxwatch/boxwatch/store/storetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var z time.Time

// Shorter names for the helpers every test here uses.
var (
	day               = journeytest.Day
	imoNumber         = journeytest.IMO
	stop              = journeytest.Stop
	asiaEurope        = journeytest.AsiaEurope
	asiaEuropeVessels = journeytest.AsiaEuropeVessels
)

// mapStage is a moment of a journey: its route as then known, its vessels, and the time.
type mapStage struct {
	name    string
	now     time.Time
	route   func(a, b string) []boxwatch.RouteStop
	vessels func(a, b string) []journeytest.Vessel
	stopped time.Time
	split   bool
	// inland, when set, is the leg past the port of discharge.
	inland *inlandLeg
}

// inlandLeg is a destination past the port of discharge and the container's times on the way.
type inlandLeg struct {
	dest  boxwatch.Destination
	times boxwatch.ContainerInland
}

// The stages of the three-port journey Shanghai → Singapore (TS1) → Rotterdam, on vessel a then
// vessel b, and of a transpacific one.
var mapStages = []mapStage{
	{name: "booked", now: day(0), route: asiaEurope(z, z, z, z), vessels: asiaEuropeVessels(z, z)},
	{name: "sea_leg1", now: day(3.5), route: asiaEurope(day(1), z, z, z), vessels: asiaEuropeVessels(day(3.5), z)},
	{name: "transshipment", now: day(7.5), route: asiaEurope(day(1), day(6.3), z, z), vessels: asiaEuropeVessels(day(6.3), z)},
	{name: "sea_last_leg", now: day(18), route: asiaEurope(day(1), day(6.3), day(9), z), vessels: asiaEuropeVessels(day(6.3), day(18))},
	{name: "arrived", now: day(29.5), route: asiaEurope(day(1), day(6.3), day(9), day(29.2)), vessels: asiaEuropeVessels(day(6.3), day(29.2))},
	{name: "complete", now: day(36), route: asiaEurope(day(1), day(6.3), day(9), day(29.2)), vessels: asiaEuropeVessels(day(6.3), day(29.2)), stopped: day(35)},
	{name: "transpacific", now: day(8), route: transpacific, vessels: transpacificVessels},
	{name: "transpacific_split", now: day(8), route: transpacific, vessels: transpacificVessels, split: true},
	// The transpacific journey going on by rail to Chicago: ahead while at sea, under way once the
	// train left Los Angeles, past once it arrived (tracking stopped: the map has ended).
	{name: "inland_ahead", now: day(8), route: transpacific, vessels: transpacificVessels, inland: &inlandLeg{
		dest: boxwatch.Destination{LOCODE: "USCHI", Name: "BNSF Logistics Park Chicago", Mode: "RAIL", ETA: day(19)}}},
	{name: "inland_rail", now: day(16), route: transpacificArrived, vessels: transpacificVessels, inland: &inlandLeg{
		dest:  boxwatch.Destination{LOCODE: "USCHI", Name: "BNSF Logistics Park Chicago", Mode: "RAIL", ETA: day(19)},
		times: boxwatch.ContainerInland{PODRailCarrierSCAC: "BNSF", PODRailLoadedAt: day(14.5), PODRailDepartedAt: day(15), IndETAAt: day(19.2)}}},
	{name: "inland_past", now: day(22), route: transpacificArrived, vessels: transpacificVessels, stopped: day(21), inland: &inlandLeg{
		dest: boxwatch.Destination{LOCODE: "USCHI", Name: "BNSF Logistics Park Chicago", Mode: "RAIL", ETA: day(19), ATA: day(19.4)},
		times: boxwatch.ContainerInland{PODRailCarrierSCAC: "BNSF", PODRailLoadedAt: day(14.5), PODRailDepartedAt: day(15),
			IndETAAt: day(19.2), IndATAAt: day(19.4), IndRailUnloadedAt: day(19.5), FinalDestinationFullOutAt: day(20)}}},
	// The Asia–Europe journey going on by barge from Rotterdam up the Rhine to Mannheim: the leg
	// runs through the waterway's ports (data/waterways), not straight.
	{name: "inland_barge", now: day(30), route: asiaEurope(day(1), day(6.3), day(9), day(29.2)), vessels: asiaEuropeVessels(day(6.3), day(29.2)),
		inland: &inlandLeg{dest: boxwatch.Destination{LOCODE: "DEMHG", Name: "Mannheim barge terminal (simulated)", Mode: "BARGE", ETA: day(34)},
			times: boxwatch.ContainerInland{IndETAAt: day(34)}}},
}

// Shanghai to Los Angeles: at sea east of the antimeridian, with the path sailed crossing it.
func transpacific(a, _ string) []boxwatch.RouteStop {
	return []boxwatch.RouteStop{
		stop(1, "CNSHA", boxwatch.RolePOL, z, z, day(1), day(1), "", a),
		stop(2, "USLAX", boxwatch.RolePOD, day(13), z, z, z, a, ""),
	}
}

// transpacificArrived is the transpacific journey once the vessel berthed at Los Angeles.
func transpacificArrived(a, _ string) []boxwatch.RouteStop {
	return []boxwatch.RouteStop{
		stop(1, "CNSHA", boxwatch.RolePOL, z, z, day(1), day(1), "", a),
		stop(2, "USLAX", boxwatch.RolePOD, day(13), day(13.4), z, z, a, ""),
	}
}

func transpacificVessels(a, _ string) []journeytest.Vessel {
	return []journeytest.Vessel{{IMO: a, MMSI: "3" + a[:7] + "1", From: "CNSHA", To: "USLAX", Departed: day(1), Knots: 19, UpTo: day(8)}}
}

func TestContainerMapStages(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.Open(t)
		clock := &journeytest.Clock{}
		maps := journeytest.New(t, db, clock.Now)
		acme := storetest.MustCreateAccount(t, db, "acme").ID
		for i, st := range mapStages {
			t.Run(st.name, func(t *testing.T) {
				a, bb := imoNumber(930000+10*i), imoNumber(930001+10*i)
				number := fmt.Sprintf("MAP%09d", i)
				id := journeytest.MustSeed(t, db, acme, number, st.route(a, bb), st.stopped, st.vessels(a, bb)...)
				if st.inland != nil {
					journeytest.MustSeedInland(t, db, acme, number, st.inland.dest, st.inland.times)
				}
				clock.Set(st.now)
				m, err := maps.ContainerMap(t.Context(), acme, id, st.split)
				if err != nil {
					t.Fatal(err)
				}
				checkMap(t, m.Body)
				golden(t, "map_"+st.name+".geojson", m.Body)
				if m.Ended != !st.stopped.IsZero() || m.ETag == "" {
					t.Errorf("Ended %v, want %v (the journey has ended once tracking stopped); ETag %q", m.Ended, !st.stopped.IsZero(), m.ETag)
				}
			})
		}
	})
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
		t.Fatalf("%v (run go test ./journey -run %s -update)", err, t.Name())
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
func checkMap(t testing.TB, raw []byte) mapDoc {
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
			if ft != "port" && ft != "current_vessel" && ft != "inland_destination" {
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
		case "inland_leg":
			// A straight segment from the port of discharge to the destination, which follows it;
			// for a barge, straight segments through the waterway's ports.
			if n != 2 && f.Geometry.Type == "LineString" && f.Properties["mode"] != "barge" {
				t.Errorf("%s: %d positions, want the straight segment's 2", where, n)
			}
			pod, next := portBefore(doc, i), featureAfter(doc, i)
			if pod == nil || pod["location_id"] != f.Properties["previous_port_id"] || pod["label"] != "POD" {
				t.Errorf("%s does not follow its port of discharge: %v", where, pod)
			}
			if next == nil || next["feature_type"] != "inland_destination" || next["location_id"] != f.Properties["next_location_id"] {
				t.Errorf("%s is not followed by its destination: %v", where, next)
			}
			switch f.Properties["progress"] {
			case "ahead", "under_way", "past":
			default:
				t.Errorf("%s: progress %v", where, f.Properties["progress"])
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

// portBefore is the properties of the last port before feature i, nil when none.
func portBefore(doc mapDoc, i int) map[string]any {
	for j := i - 1; j >= 0; j-- {
		if doc.Features[j].Properties["feature_type"] == "port" {
			return doc.Features[j].Properties
		}
	}
	return nil
}

// featureAfter is the properties of feature i+1, nil when none.
func featureAfter(doc mapDoc, i int) map[string]any {
	if i+1 >= len(doc.Features) {
		return nil
	}
	return doc.Features[i+1].Properties
}

func checkPosition(t testing.TB, where string, p []float64) {
	t.Helper()
	if len(p) != 2 || p[0] < -180 || p[0] > 180 || p[1] < -90 || p[1] > 90 {
		t.Errorf("%s: position %v", where, p)
	}
}

// checkSea fails the test if a line crosses land, as the sea router's own tests judge it: every
// segment clear but for one at each end within searoute.CoastKM of a quay on land.
func checkSea(t testing.TB, where string, lines [][][]float64) {
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
		if searoute.Clear(data.Water(), a, b) {
			continue
		}
		coast := (i == 1 && l.Contains(a)) || (i == len(pts)-1 && l.Contains(b))
		if coast && geo.DistanceKM(a, b) <= searoute.CoastKM+0.05 {
			continue
		}
		t.Errorf("%s: segment %d from %v to %v crosses land", where, i, a, b)
	}
}

// TestInlandLegLeftOut: an inland destination the service cannot place, or one at the port of
// discharge itself, draws neither the leg nor the destination; the ocean map stays as it was.
func TestInlandLegLeftOut(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite.Open(t)
	clock := &journeytest.Clock{}
	clock.Set(day(8))
	maps := journeytest.New(t, db, clock.Now)
	acme := storetest.MustCreateAccount(t, db, "acme").ID
	a := imoNumber(940000)
	plain := journeytest.MustSeed(t, db, acme, "INL000000000", transpacific(a, ""), z, transpacificVessels(a, "")...)
	want, err := maps.ContainerMap(t.Context(), acme, plain, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, dest := range []boxwatch.Destination{
		{LOCODE: "ZZZZZ", Name: "Nowhere", Mode: "RAIL"}, // not a known place
		{LOCODE: "USLAX", Name: "The port itself", Mode: "TRUCK"},
	} {
		number := fmt.Sprintf("INL%09d", i+1)
		id := journeytest.MustSeed(t, db, acme, number, transpacific(a, ""), z)
		journeytest.MustSeedInland(t, db, acme, number, dest, boxwatch.ContainerInland{})
		m, err := maps.ContainerMap(t.Context(), acme, id, false)
		if err != nil {
			t.Fatal(err)
		}
		doc := checkMap(t, m.Body)
		for _, f := range doc.Features {
			if ft := f.Properties["feature_type"]; ft == "inland_leg" || ft == "inland_destination" {
				t.Errorf("destination %s: the map draws %s", dest.LOCODE, ft)
			}
		}
		if len(doc.Features) != len(checkMap(t, want.Body).Features) {
			t.Errorf("destination %s: %d features, the same journey without it has %d", dest.LOCODE, len(doc.Features), len(checkMap(t, want.Body).Features))
		}
	}
}
