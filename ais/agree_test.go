package ais_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/boxwatch/boxwatch/ais"
	"github.com/boxwatch/boxwatch/internal/testenv"
)

// The real data: the 85,194 lines of test-data/nmea-sample in the npm package aisparser@0.1.2
// (Apache-2.0, see data/vessels/LICENSE.aisparser), fetched by scripts/aisdata.sh together with
// the npm decoder ais-stream-decoder@2.1.2 that the agreement test compares with.

var sample struct {
	once sync.Once
	path string
	err  error
}

// samplePath returns the path of nmea-sample, fetching it (and the npm decoder) with
// scripts/aisdata.sh when needed. Fetching needs npm, and the decoder node (testenv decides what
// their absence does).
func samplePath(tb testing.TB) string {
	tb.Helper()
	testenv.Need(tb, "npm")
	testenv.Need(tb, "node")
	sample.once.Do(func() {
		out, err := exec.Command(filepath.Join("..", "scripts", "aisdata.sh")).Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				err = fmt.Errorf("%v: %s", err, ee.Stderr)
			}
			sample.err = fmt.Errorf("scripts/aisdata.sh: %v", err)
			return
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		sample.path = lines[len(lines)-1]
	})
	if sample.err != nil {
		tb.Fatal(sample.err)
	}
	return sample.path
}

func readLines(tb testing.TB, path string) [][]byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimRight(data, "\r\n"), []byte("\n"))
	if len(lines) != 85194 {
		tb.Fatalf("%s has %d lines, want 85,194", path, len(lines))
	}
	return lines
}

// npmMessage is one line of bench/ais/decode.js json: ais-stream-decoder's fields, null when it
// found them not available.
type npmMessage struct {
	Line     int      `json:"line"`
	Type     int      `json:"type"`
	MMSI     uint32   `json:"mmsi"`
	Lat      *float64 `json:"lat"`
	Lon      *float64 `json:"lon"`
	SOG      *float64 `json:"sog"`
	COG      *float64 `json:"cog"`
	Heading  *int     `json:"heading"`
	IMO      *uint32  `json:"imo"`
	Name     *string  `json:"name"`
	CallSign *string  `json:"callsign"`
	Part     *int     `json:"part"`
}

func runNPM(t *testing.T, path string) []npmMessage {
	t.Helper()
	cmd := exec.Command("node", "decode.js", "json", path)
	cmd.Dir = filepath.Join("..", "bench", "ais")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node decode.js: %v: %s", err, stderr.String())
	}
	var msgs []npmMessage
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var m npmMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("node decode.js: %v in %s", err, sc.Text())
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// TestAgreement compares the decoder with ais-stream-decoder on the real sample: both must find
// the same messages on the same lines with the same position, speed, course, heading, MMSI, IMO,
// name and call sign, except for the differences listed in explained, each counted exactly.
func TestAgreement(t *testing.T) {
	path := samplePath(t)
	lines := readLines(t, path)
	theirs := runNPM(t, path)

	counts := map[int]int{}
	for _, m := range theirs {
		counts[m.Type]++
	}
	wantCounts := map[int]int{1: 61374, 2: 1973, 3: 8785, 4: 4043, 5: 2223, 8: 1082, 18: 1361, 24: 307}
	if fmt.Sprint(counts) != fmt.Sprint(wantCounts) {
		t.Fatalf("ais-stream-decoder decoded %v, want %v as the issue measured", counts, wantCounts)
	}

	type result struct {
		m   ais.Message
		err error
	}
	ours := make([]result, len(lines)+1) // by 1-based line
	var d ais.Decoder
	for i, line := range lines {
		var r result
		ok, err := d.Decode(line, &r.m)
		if !ok {
			r.m = ais.Message{}
		}
		r.err = err
		ours[i+1] = r
	}

	// Each difference has a name; explained holds the count the sample shows for each, and why.
	found := map[string]int{}
	examples := map[string]string{}
	note := func(kind string, line int, detail string) {
		found[kind]++
		if _, ok := examples[kind]; !ok {
			examples[kind] = fmt.Sprintf("line %d: %s: %s", line, detail, lines[line-1])
		}
	}
	agreed := 0
	for _, n := range theirs {
		r := ours[n.Line]
		if r.m.Type == 0 {
			note(missing(lines, n.Line, r.err), n.Line, "")
			continue
		}
		diffs := compare(n, &r.m)
		for _, k := range diffs {
			theirs, _ := json.Marshal(n)
			note(k, n.Line, fmt.Sprintf("npm %s, boxwatch %s", theirs, summary(&r.m)))
		}
		if len(diffs) == 0 {
			agreed++
		}
	}
	theirLines := map[int]bool{}
	for _, n := range theirs {
		theirLines[n.Line] = true
	}
	oursOnly := map[int]int{}
	for line, r := range ours {
		if r.m.Type != 0 && !theirLines[line] {
			oursOnly[r.m.Type]++
		}
	}

	// ais-stream-decoder reads whatever bits a field spans and formats them; the standard gives
	// ranges, and values outside them mean "not available" or are invalid, so boxwatch leaves them
	// absent rather than passing on a course of 409.5°.
	explained := map[string]int{
		"course out of range":   1,  // 395.1°
		"heading out of range":  41, // 361° to 504°, in types 1 and 18
		"position out of range": 9,  // latitudes beyond 90° or longitudes beyond 180°, not the "not available" 91 and 181
		// A two-sentence type 5 whose sentences carry different sequential ids (4, then 1): a
		// faulty sender or two messages. ais-stream-decoder ignores the ids and joins them; boxwatch
		// joins only sentences of the same id, as interleaved messages need.
		"fragments of different sequential ids": 2,
	}
	t.Logf("agreed on %d of %d messages; decoded only by boxwatch, by type: %v", agreed, len(theirs), oursOnly)
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range found {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Logf("%s: %d, e.g. %s", k, found[k], examples[k])
	}
	for k, n := range found {
		if want, ok := explained[k]; !ok || want != n {
			t.Errorf("%d differences %q (explained count %d)", n, k, want)
		}
	}
	for k, want := range explained {
		if found[k] != want {
			t.Errorf("difference %q seen %d times, want %d", k, found[k], want)
		}
	}
	// ais-stream-decoder emits nothing for these types; boxwatch returns every message of a
	// defined type with its type and MMSI, and decodes types 19 and 27 in full.
	wantOursOnly := map[int]int{6: 435, 9: 27, 10: 7, 11: 28, 16: 1, 17: 314, 19: 109, 20: 276, 21: 380, 22: 23, 25: 2}
	if fmt.Sprint(oursOnly) != fmt.Sprint(wantOursOnly) {
		t.Errorf("decoded only by boxwatch: %v, want %v", oursOnly, wantOursOnly)
	}
}

// missing names why boxwatch decoded no message on a line where ais-stream-decoder did.
func missing(lines [][]byte, line int, err error) string {
	sentence := func(i int) []string { return strings.Split(string(lines[i-1]), ",") }
	if s := sentence(line); err == nil && line > 1 && len(s) == 7 && s[2] == s[1] && s[1] != "1" {
		if prev := sentence(line - 1); len(prev) == 7 && prev[1] == s[1] && prev[3] != s[3] {
			return "fragments of different sequential ids"
		}
	}
	return fmt.Sprintf("not decoded (%v)", err)
}

// summary is the compared fields of m, for failure messages.
func summary(m *ais.Message) string {
	return fmt.Sprintf("type %d mmsi %d position %v %v,%v speed %v %v course %v %v heading %v %v imo %d name %q callsign %q part %c",
		m.Type, m.MMSI, m.HasPosition, m.Position.Lat, m.Position.Lon, m.HasSpeed, m.Speed, m.HasCourse, m.Course,
		m.HasHeading, m.Heading, m.IMO, m.Name, m.CallSign, m.Part)
}

// compare returns the names of the fields where the two decoders differ.
func compare(n npmMessage, m *ais.Message) []string {
	var d []string
	if n.Type != m.Type || n.MMSI != m.MMSI {
		return []string{"type or MMSI"}
	}
	pos := m.Type <= 4 || m.Type == 18
	if pos {
		switch {
		case (n.Lat == nil || n.Lon == nil) && m.HasPosition:
			d = append(d, "position absent in npm only")
		case n.Lat != nil && n.Lon != nil && !m.HasPosition:
			if *n.Lat > 90 || *n.Lat < -90 || *n.Lon > 180 || *n.Lon < -180 {
				d = append(d, "position out of range")
			} else {
				d = append(d, "position absent in boxwatch only")
			}
		case m.HasPosition && (*n.Lat != m.Position.Lat || *n.Lon != m.Position.Lon):
			d = append(d, "position")
		}
	}
	if pos && m.Type != 4 {
		d = optional(d, "speed", n.SOG, m.Speed, m.HasSpeed, 102.3)
		d = optional(d, "course", n.COG, m.Course, m.HasCourse, 360)
		var h *float64
		if n.Heading != nil {
			v := float64(*n.Heading)
			h = &v
		}
		d = optional(d, "heading", h, float64(m.Heading), m.HasHeading, 359)
	}
	if n.IMO != nil && *n.IMO != m.IMO {
		d = append(d, "IMO")
	}
	if n.Name != nil && !m.Name.Equal(*n.Name) {
		d = append(d, "name")
	}
	if n.CallSign != nil && !m.CallSign.Equal(*n.CallSign) {
		d = append(d, "call sign")
	}
	if n.Part != nil && byte('A'+*n.Part) != m.Part {
		d = append(d, "part")
	}
	return d
}

// optional compares a value npm gives as null or a number with one boxwatch gives with a
// presence flag; a number above max that boxwatch leaves absent is "out of range".
func optional(d []string, name string, theirs *float64, ours float64, has bool, max float64) []string {
	switch {
	case theirs == nil && !has:
	case theirs != nil && !has && *theirs > max:
		d = append(d, name+" out of range")
	case theirs == nil || !has || *theirs != ours:
		d = append(d, name)
	}
	return d
}
