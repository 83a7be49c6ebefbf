package ais_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/ais"
	"github.com/boxwatch/boxwatch/geo"
)

// Real sentences from the test data of the npm package aisparser 0.1.2 (Apache-2.0, see
// data/vessels/LICENSE.aisparser): the type 5 from ais28736.log, the others from nmea-sample. Their
// values are those ais-stream-decoder (types 1, 5) and aisparser (types 5, 19) read from them.
const (
	staticPart1 = "!AIVDM,2,1,6,B,5INSC`h2<WbhDiUR3<0<521A84H4hL5800000017JHeC=53e0JQm@F@DEBC8,0*2A"
	staticPart2 = "!AIVDM,2,2,6,B,>r@00000000,2*1D"
	position    = "!AIVDM,1,1,,A,13HOI:0P0000VOHLCnHQKwvL05Ip,0*23"
	classB      = "!AIVDM,1,1,,B,C69DqeP0Ar8;JH3R6<4O7wWPl@:62L>jcaQgh0000000?104222P,0*32"
)

// Sentences written with this package's Encoder, each read back by aisparser 0.1.2 to the values
// below, so that the decoder is not tested against its own encoder alone.
const (
	tagBlockMillis = `\c:1700000000250*68\!BSVDM,1,1,,B,33aDoE5P?w<tSF0l4Q@>4?wp0000,0*08` // talker BS, nothing available
	ownClassB      = "!BSVDO,1,1,,A,B52MJh000Fc@lJ5lQE3Pt0N00000,0*70"
	staticBPartA   = "!BSVDM,1,1,,A,H52MJh0hT8E9AT0000000000000,2*70"
	staticBPartB   = "!AIVDM,1,1,,A,H52MJh4T0000000G46ijkl104120,0*11"
	longRange      = "!AIVDM,1,1,,A,K1mg=5@NEtPrV6@t,0*17"
	baseStation    = "!AIVDM,1,1,,A,402MN7ivbt5N?0kA@0Q?cp000000,0*7E"
	voyage1        = `\c:1700000000*5F\!AIVDM,2,1,1,A,539Lg002>?0d@48<000Dll61@E=@000000000017UQQLL0o6NTA1B0C@0000,0*3D`
	voyage2        = "!AIVDM,2,2,1,A,00000000000,2*25"
)

var (
	capTrafalgar = ais.Message{Type: 5, Repeat: 1, MMSI: 636015523, Channel: 'B', IMO: 9215660, CallSign: ais.TextOf("ELYX 3"),
		Name: ais.TextOf("CAP TRAFALGAR"), ShipType: 71, ToBow: 211, ToStern: 45, ToPort: 19, ToStarboard: 13,
		Draught: 10.6, Destination: ais.TextOf("GUAYAQUIL ;)"), HasETA: true, ETAMonth: 4, ETADay: 7, ETAHour: 13}
	positionMsg = ais.Message{Type: 1, MMSI: 227006760, Channel: 'A', Position: geo.Point{Lat: 49.47557666666667, Lon: 0.13138},
		HasPosition: true, HasSpeed: true, Course: 36.7, HasCourse: true}
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name   string
		lines  []string
		want   []ais.Message // the messages the lines complete, in order
		errors []ais.Error   // the errors Decode returned, in order
	}{
		{"OK position", []string{position}, []ais.Message{positionMsg}, nil},
		{"OK two sentences", []string{staticPart1, staticPart2}, []ais.Message{capTrafalgar}, nil},
		{"OK interleaved", []string{staticPart1, position, staticPart2}, []ais.Message{positionMsg, capTrafalgar}, nil},
		{"OK out of order", []string{staticPart2, staticPart1}, []ais.Message{capTrafalgar}, nil},
		{"OK line endings and spaces", []string{" " + position + "\r\n", staticPart1 + "\n", staticPart2 + " \r\n"}, []ais.Message{positionMsg, capTrafalgar}, nil},
		{"OK fields after the checksum", []string{position + ",1241544035"}, []ais.Message{positionMsg}, nil},
		{"OK blank line", []string{"", "\r\n", position}, []ais.Message{positionMsg}, nil},
		{"OK class B extended", []string{classB}, []ais.Message{{Type: 19, MMSI: 412432822, Channel: 'B',
			Position: geo.Point{Lat: 24.695788333333333, Lon: 118.99442666666667}, HasPosition: true, Speed: 7.1, HasSpeed: true,
			Course: 49.7, HasCourse: true, Name: ais.TextOf("ZHECANGYU4078"), ShipType: 30, ToBow: 16, ToStern: 8, ToPort: 4, ToStarboard: 4}}, nil},
		{"OK tag block in milliseconds, nothing available", []string{tagBlockMillis}, []ais.Message{{Type: 3, MMSI: 244660052,
			Channel: 'B', NavStatus: 5, Time: time.UnixMilli(1700000000250).UTC()}}, nil},
		{"OK own ship", []string{ownClassB}, []ais.Message{{Type: 18, MMSI: 338123456, Channel: 'A', Own: true,
			Position: geo.Point{Lat: 40.6892, Lon: -74.0445}, HasPosition: true, Speed: 0.1, HasSpeed: true, Course: 359.9, HasCourse: true, HasHeading: true}}, nil},
		{"OK class B static", []string{staticBPartA, staticBPartB}, []ais.Message{
			{Type: 24, MMSI: 338123456, Channel: 'A', Part: 'A', Name: ais.TextOf("LIBERTY")},
			{Type: 24, MMSI: 338123456, Channel: 'A', Part: 'B', ShipType: 36, CallSign: ais.TextOf("WDF1234"), ToBow: 8, ToStern: 4, ToPort: 1, ToStarboard: 2}}, nil},
		{"OK long range", []string{longRange}, []ais.Message{{Type: 27, MMSI: 123456789, Channel: 'A', NavStatus: 1,
			Position: geo.Point{Lat: 12.5, Lon: -45.25}, HasPosition: true, Speed: 12, HasSpeed: true, Course: 271, HasCourse: true}}, nil},
		{"OK base station", []string{baseStation}, []ais.Message{{Type: 4, MMSI: 2579999, Channel: 'A',
			Position: geo.Point{Lat: 58.1, Lon: 11.2}, HasPosition: true, UTC: time.Date(2026, 11, 24, 5, 30, 15, 0, time.UTC)}}, nil},
		{"OK tag block on the first sentence", []string{voyage1, voyage2}, []ais.Message{{Type: 5, MMSI: 211234560, Channel: 'A',
			Time: time.Unix(1700000000, 0).UTC(), IMO: 9321483, CallSign: ais.TextOf("DABC"), Name: ais.TextOf("EMMA TEST"),
			ShipType: 71, ToBow: 300, ToStern: 97, ToPort: 28, ToStarboard: 28, Draught: 14.5, Destination: ais.TextOf("DEHAM"),
			HasETA: true, ETAMonth: 3, ETADay: 14, ETAHour: 6, ETAMinute: 30}}, nil},

		{"ErrChecksum", []string{strings.Replace(position, "*23", "*24", 1)}, nil, []ais.Error{ais.ErrChecksum}},
		{"ErrTagBlock checksum", []string{strings.Replace(tagBlockMillis, "*68", "*69", 1)}, nil, []ais.Error{ais.ErrTagBlock}},
		{"ErrTagBlock unterminated", []string{`\c:1700000000*5F!AIVDM`}, nil, []ais.Error{ais.ErrTagBlock}},
		{"ErrTagBlock bad time", []string{`\c:17x*27\` + position}, nil, []ais.Error{ais.ErrTagBlock}},
		{"ErrNotAIS", []string{"$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47", "hello"}, nil,
			[]ais.Error{ais.ErrNotAIS, ais.ErrNotAIS}},
		{"ErrSentence", []string{"!AIVDM,1,1,,A,13HOI,0*", "!AIVDM,1,1,,A,1,3,0*08", "!AIVDM,0,1,,A,1,0*16", "!AIVDM,1,2,,A,1,0*14",
			"!AIVDM,1,1,,A,1,6*11", "!AIVDM,1,1,12,A,1,0*14", "!AIVDM,1,1,,AB,1,0*55"}, nil,
			[]ais.Error{ais.ErrSentence, ais.ErrSentence, ais.ErrSentence, ais.ErrSentence, ais.ErrSentence, ais.ErrSentence, ais.ErrSentence}},
		{"ErrPayload", []string{"!AIVDM,1,1,,A,1~,0*69", "!AIVDM,2,1,3,A,5~,0*5D"}, nil, []ais.Error{ais.ErrPayload, ais.ErrPayload}},
		{"ErrShort", []string{"!AIVDM,1,1,,A,13HOI:0P0000VOH,0*61", "!AIVDM,1,1,,A,1,5*12"}, nil, []ais.Error{ais.ErrShort, ais.ErrShort}},
		{"ErrType", []string{"!AIVDM,1,1,,A,03HOI:0P0000VOHLCnHQKwvL05Ip,0*22"}, nil, []ais.Error{ais.ErrType}},
		{"other channel not joined", []string{staticPart1, string(fixChecksum(strings.Replace(staticPart2, ",B,>", ",A,>", 1)))}, nil, nil},
		{"other sequential id not joined", []string{staticPart1, "!AIVDM,2,2,7,B,>r@00000000,2*1C"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d ais.Decoder
			var got []ais.Message
			var errs []ais.Error
			for _, line := range tt.lines {
				var m ais.Message
				ok, err := d.Decode([]byte(line), &m)
				if ok {
					got = append(got, m)
				}
				if err != nil {
					errs = append(errs, err.(ais.Error))
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("messages\n got %+v\nwant %+v", got, tt.want)
			}
			if !slices.Equal(errs, tt.errors) {
				t.Errorf("errors %v, want %v", errs, tt.errors)
			}
			if d.Stats.Lines != len(tt.lines) {
				t.Errorf("Stats.Lines %d, want %d", d.Stats.Lines, len(tt.lines))
			}
			for _, e := range tt.errors {
				if d.Stats.Errors[e] == 0 {
					t.Errorf("Stats.Errors does not count %v: %v", e, d.Stats.Errors)
				}
			}
		})
	}
}

func TestExpiry(t *testing.T) {
	t.Run("window", func(t *testing.T) {
		d := ais.Decoder{Window: 3}
		var m ais.Message
		lines := []string{staticPart1, position, position, position, staticPart2}
		for _, line := range lines {
			if ok, _ := d.Decode([]byte(line), &m); ok && m.Type == 5 {
				t.Fatal("a message completed after its fragments expired")
			}
		}
		if d.Stats.Errors[ais.ErrExpired] != 1 || d.Stats.Messages[1] != 3 || d.Pending() != 1 {
			t.Errorf("stats %+v, pending %d; want one expired message, three positions and the second sentence waiting", d.Stats, d.Pending())
		}
		d = ais.Decoder{Window: 4}
		for _, line := range lines {
			d.Decode([]byte(line), &m)
		}
		if d.Stats.Messages[5] != 1 || d.Stats.Errors[ais.ErrExpired] != 0 || d.Pending() != 0 {
			t.Errorf("stats %+v, want the message complete within the window", d.Stats)
		}
	})
	t.Run("every slot busy", func(t *testing.T) {
		var d ais.Decoder
		var m ais.Message
		// 17 pending messages on two channels and nine ids: the oldest gives way.
		for i := range 17 {
			line := strings.Replace(staticPart1, ",6,B,", ","+string(rune('0'+i%9))+","+string("AB"[i/9])+",", 1)
			if _, err := d.Decode(fixChecksum(line), &m); err != nil {
				t.Fatal(err)
			}
		}
		if d.Stats.Errors[ais.ErrExpired] != 1 {
			t.Errorf("expired %d, want 1", d.Stats.Errors[ais.ErrExpired])
		}
	})
	t.Run("first sentence again", func(t *testing.T) {
		var d ais.Decoder
		var m ais.Message
		for _, line := range []string{staticPart1, staticPart1, staticPart2} {
			d.Decode([]byte(line), &m)
		}
		if d.Stats.Errors[ais.ErrExpired] != 1 || d.Stats.Messages[5] != 1 {
			t.Errorf("stats %+v, want the first message dropped and the second complete", d.Stats)
		}
	})
}

// fixChecksum returns line with the checksum its characters need.
func fixChecksum(line string) []byte {
	body := line[1:strings.IndexByte(line, '*')]
	var sum byte
	for i := range len(body) {
		sum ^= body[i]
	}
	return []byte(line[:len(line)-2] + strings.ToUpper(string("0123456789abcdef"[sum>>4])+string("0123456789abcdef"[sum&15])))
}

// TestNoAllocation holds the decoder to its promise: decoding into a caller's Message allocates
// nothing, for positions, tag blocks and multi-sentence messages alike.
func TestNoAllocation(t *testing.T) {
	for name, lines := range map[string][]string{
		"position":     {position},
		"tag block":    {tagBlockMillis},
		"class B":      {classB},
		"two parts":    {voyage1, voyage2},
		"malformed":    {"!AIVDM,1,1,,A,1~,0*69"},
		"out of order": {staticPart2, staticPart1},
	} {
		var d ais.Decoder
		var m ais.Message
		bs := make([][]byte, len(lines))
		for i, l := range lines {
			bs[i] = []byte(l)
		}
		allocs := testing.AllocsPerRun(100, func() {
			for _, b := range bs {
				d.Decode(b, &m)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per run, want 0", name, allocs)
		}
	}
}

func TestTextOf(t *testing.T) {
	for in, want := range map[string]string{
		"Ever Given":                       "EVER GIVEN",
		"name with é and a very long tail": "NAME WITH ?? AND A V",
		"trailing   ":                      "TRAILING",
		"at@sign":                          "AT?SIGN",
	} {
		if got := ais.TextOf(in); got.String() != want || got.Len() != len(want) || !got.Equal(want) || string(got.Bytes()) != want {
			t.Errorf("TextOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{position, staticPart1 + "\n" + staticPart2, staticPart2 + "\n" + staticPart1, classB,
		tagBlockMillis, ownClassB, staticBPartA + "\n" + staticBPartB, longRange, baseStation, voyage1 + "\n" + voyage2,
		"!AIVDM,1,1,,A,1~,0*69", `\c:17x*18\!AIVDM`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := ais.Decoder{Window: 5}
		var m ais.Message
		n := 0
		for line := range strings.Lines(s) {
			n++
			ok, err := d.Decode([]byte(line), &m)
			if ok && err != nil {
				t.Fatalf("a message and an error: %v", err)
			}
			if !ok {
				continue
			}
			if m.Type < 1 || m.Type > 27 || m.MMSI >= 1<<30 || m.Repeat > 3 {
				t.Fatalf("header out of range: %+v", m)
			}
			if m.HasPosition && (m.Position.Lat < -90 || m.Position.Lat > 90 || m.Position.Lon < -180 || m.Position.Lon > 180) {
				t.Fatalf("position out of range: %+v", m)
			}
			if m.HasCourse && (m.Course < 0 || m.Course >= 360) || m.HasHeading && (m.Heading < 0 || m.Heading >= 360) ||
				m.HasSpeed && (m.Speed < 0 || m.Speed > 102.2) {
				t.Fatalf("motion out of range: %+v", m)
			}
			for _, txt := range []ais.Text{m.Name, m.CallSign, m.Destination} {
				if strings.HasSuffix(txt.String(), " ") || strings.Contains(txt.String(), "@") {
					t.Fatalf("text %q keeps padding", txt)
				}
			}
		}
		if d.Stats.Lines != n {
			t.Fatalf("Stats.Lines %d after %d lines", d.Stats.Lines, n)
		}
	})
}
