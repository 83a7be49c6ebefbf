package ais_test

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/ais"
	"github.com/boxwatch/boxwatch/geo"
)

// roundTrip encodes ms with one Encoder and decodes the lines with one Decoder.
func roundTrip(t *testing.T, e *ais.Encoder, ms ...ais.Message) ([]ais.Message, string) {
	t.Helper()
	var out []byte
	for i := range ms {
		var err error
		if out, err = e.Append(out, &ms[i]); err != nil {
			t.Fatalf("Append(%+v): %v", ms[i], err)
		}
	}
	var d ais.Decoder
	var got []ais.Message
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if len(sc.Bytes()) > 82+len(`\c:1700000000250*68\`) {
			t.Errorf("line longer than NMEA allows: %s", sc.Text())
		}
		var m ais.Message
		ok, err := d.Decode(sc.Bytes(), &m)
		if err != nil {
			t.Fatalf("decoding %q: %v", sc.Text(), err)
		}
		if ok {
			got = append(got, m)
		}
	}
	return got, string(out)
}

func TestEncodeRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	ms := []ais.Message{
		{Type: 1, MMSI: 477553000, Channel: 'A', Time: at, Position: geo.Point{Lat: 22.28, Lon: 114.17}, HasPosition: true, Speed: 18.5, HasSpeed: true, Course: 90.1, HasCourse: true, Heading: 91, HasHeading: true},
		{Type: 2, Repeat: 3, MMSI: 477553000, Channel: 'B', NavStatus: 8, Position: geo.Point{Lat: -90, Lon: -180}, HasPosition: true},
		{Type: 3, MMSI: 123, Channel: 'A', NavStatus: 15, Time: at.Add(1500 * time.Millisecond), Position: geo.Point{Lat: 90, Lon: 180}, HasPosition: true, Speed: 102.2, HasSpeed: true, Course: 359.9, HasCourse: true, Heading: 359, HasHeading: true},
		{Type: 4, MMSI: 2579999, Channel: 'A', UTC: at, Position: geo.Point{Lat: 57.7, Lon: 11.9}, HasPosition: true},
		{Type: 4, MMSI: 2579999, Channel: 'A'},
		{Type: 5, MMSI: 636015523, Channel: 'B', Own: true, IMO: 9215660, CallSign: ais.TextOf("ELYX 3"), Name: ais.TextOf("CAP TRAFALGAR"), ShipType: 71,
			ToBow: 211, ToStern: 45, ToPort: 19, ToStarboard: 13, Draught: 10.6, Destination: ais.TextOf("GUAYAQUIL"), HasETA: true, ETAMonth: 12, ETADay: 31, ETAHour: 23, ETAMinute: 59},
		{Type: 5, MMSI: 1, Channel: 'A', Name: ais.TextOf("NO ETA")},
		{Type: 18, MMSI: 338123456, Channel: 'A', Position: geo.Point{Lat: 40.6892, Lon: -74.0445}, HasPosition: true, Heading: 0, HasHeading: true},
		{Type: 19, MMSI: 338123456, Channel: 'A', Position: geo.Point{Lat: 1, Lon: 2}, HasPosition: true, Speed: 3, HasSpeed: true, Name: ais.TextOf("LIBERTY"), ShipType: 37, ToBow: 511, ToStern: 511, ToPort: 63, ToStarboard: 63},
		{Type: 24, Part: 'A', MMSI: 338123456, Channel: 'A', Name: ais.TextOf("LIBERTY")},
		{Type: 24, Part: 'B', MMSI: 338123456, Channel: 'A', ShipType: 36, CallSign: ais.TextOf("WDF1234"), ToBow: 8, ToStern: 4, ToPort: 1, ToStarboard: 2},
		{Type: 27, MMSI: 123456789, Channel: 'A', NavStatus: 1, Position: geo.Point{Lat: 12.5, Lon: -45.25}, HasPosition: true, Speed: 62, HasSpeed: true, Course: 0, HasCourse: true},
		{Type: 27, MMSI: 123456789, Channel: 'A'},
	}
	var e ais.Encoder
	got, out := roundTrip(t, &e, ms...)
	if len(got) != len(ms) {
		t.Fatalf("%d messages back from %d:\n%s", len(got), len(ms), out)
	}
	for i := range ms {
		if got[i] != ms[i] {
			t.Errorf("message %d\n got %+v\nwant %+v", i, got[i], ms[i])
		}
	}
	if !strings.Contains(out, `\c:1795500000*`) || !strings.Contains(out, `\c:1795500001500*`) || !strings.Contains(out, "!AIVDO,2,1,1,B,") {
		t.Errorf("tag blocks, VDO or the sequential id missing:\n%s", out)
	}
}

func TestEncodeRounds(t *testing.T) {
	var e ais.Encoder
	m := ais.Message{Type: 1, MMSI: 1, Position: geo.Point{Lat: 10.0000001, Lon: 20.0000009}, HasPosition: true, Speed: 250, HasSpeed: true, Course: 12.34, HasCourse: true, Heading: 400, HasHeading: true}
	got, _ := roundTrip(t, &e, m)
	want := ais.Message{Type: 1, MMSI: 1, Channel: 'A', Position: geo.Point{Lat: 10, Lon: 20 + 1.0/600000}, HasPosition: true, Speed: 102.2, HasSpeed: true, Course: 12.3, HasCourse: true, Heading: 359, HasHeading: true}
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestEncodeTalkerAndSequence(t *testing.T) {
	e := ais.Encoder{Talker: "AB"}
	static := ais.Message{Type: 5, MMSI: 1}
	var out []byte
	for range 11 {
		out, _ = e.Append(out, &static)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\r\n")
	if len(lines) != 22 || !strings.HasPrefix(lines[0], "!ABVDM,2,1,1,A,") || !strings.HasPrefix(lines[19], "!ABVDM,2,2,0,A,") || !strings.HasPrefix(lines[21], "!ABVDM,2,2,1,A,") {
		t.Errorf("sequential ids do not run 1 to 9, 0, 1:\n%s", out)
	}
}

func TestEncodeErrors(t *testing.T) {
	var e ais.Encoder
	for _, m := range []ais.Message{{Type: 8, MMSI: 1}, {Type: 24, MMSI: 1}} {
		out, err := e.Append([]byte("kept"), &m)
		if err == nil || string(out) != "kept" {
			t.Errorf("type %d: %q, %v; want an error and dst unchanged", m.Type, out, err)
		}
	}
	m := ais.Message{Type: 8}
	if _, err := e.Append(nil, &m); !errors.Is(err, ais.ErrUnsupported) {
		t.Errorf("type 8: %v, want ErrUnsupported", err)
	}
}

// FuzzEncode checks that any position the encoder is given comes back within the message's
// resolution, or clamped to its range.
func FuzzEncode(f *testing.F) {
	f.Add(uint8(1), uint32(477553000), 22.28, 114.17, 18.5, 90.1, 91)
	f.Add(uint8(18), uint32(1), -90.0, 180.0, 0.0, 359.96, 0)
	f.Add(uint8(27), uint32(1<<30-1), 12.5, -45.25, 62.0, 0.0, 0)
	f.Fuzz(func(t *testing.T, typ uint8, mmsi uint32, lat, lon, speed, course float64, heading int) {
		types := []int{1, 2, 3, 18, 19, 27}
		m := ais.Message{Type: types[int(typ)%len(types)], MMSI: mmsi % (1 << 30), Position: geo.Point{Lat: lat, Lon: lon}, HasPosition: true,
			Speed: speed, HasSpeed: true, Course: course, HasCourse: true, Heading: heading, HasHeading: true}
		if math.IsNaN(lat) || math.IsNaN(lon) || math.Abs(lat) > 90 || math.Abs(lon) > 180 {
			return // outside the encoder's contract: the caller's position must be a position
		}
		var e ais.Encoder
		got, out := roundTrip(t, &e, m)
		if len(got) != 1 {
			t.Fatalf("no message back from %+v:\n%s", m, out)
		}
		g := got[0]
		res := 1.0 / 600000
		if m.Type == 27 {
			res = 1.0 / 600
		}
		if g.MMSI != m.MMSI || !g.HasPosition || math.Abs(g.Position.Lat-lat) > res || math.Abs(g.Position.Lon-lon) > res {
			t.Fatalf("%+v came back as %+v", m, g)
		}
	})
}
