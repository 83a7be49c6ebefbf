package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// aisInput mixes real sentences (aisparser 0.1.2's test data, Apache-2.0) with the ais package's
// own: a position, a type 5 in two sentences around a line with a bad checksum, a class B static
// part A, a base station with its clock, and a class A report with a tag-block time.
const aisInput = `!AIVDM,1,1,,A,13HOI:0P0000VOHLCnHQKwvL05Ip,0*23
!AIVDM,2,1,6,B,5INSC` + "`" + `h2<WbhDiUR3<0<521A84H4hL5800000017JHeC=53e0JQm@F@DEBC8,0*2A
!AIVDM,1,1,,A,13HOI:0P0000VOHLCnHQKwvL05Ip,0*24
!AIVDM,2,2,6,B,>r@00000000,2*1D
!BSVDM,1,1,,A,H52MJh0hT8E9AT0000000000000,2*70
!AIVDM,1,1,,A,402MN7ivbt5N?0kA@0Q?cp000000,0*7E
\c:1700000000*5F\!AIVDM,1,1,,A,177KQJ0P2q8:` + "`" + `?P<grh3Q?wp0000,0*72
`

const aisOutput = `{"line":1,"type":1,"mmsi":227006760,"lat":49.47557666666667,"lon":0.13138,"sog":0,"cog":36.7}
{"line":4,"type":5,"mmsi":636015523,"imo":9215660,"name":"CAP TRAFALGAR","callsign":"ELYX 3"}
{"line":5,"type":24,"mmsi":338123456,"name":"LIBERTY","part":"A"}
{"line":6,"type":4,"mmsi":2579999,"lat":58.1,"lon":11.2,"utc":"2026-11-24T05:30:15Z"}
{"line":7,"type":1,"mmsi":477553000,"lat":22.28,"lon":114.17,"sog":18.5,"cog":90,"time":"2023-11-14T22:13:20Z"}
`

func runAISCmd(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"ais"}, args...), func(string) string { return "" }, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), err
}

func TestAISDecode(t *testing.T) {
	t.Run("OK stdin", func(t *testing.T) {
		out, stderr, err := runAISCmd(t, aisInput, "decode", "-")
		if err != nil || out != aisOutput || stderr != "" {
			t.Errorf("err %v, stderr %q, stdout\n%s\nwant\n%s", err, stderr, out, aisOutput)
		}
	})
	t.Run("OK file with stats", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "feed.nmea")
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(aisInput, "\n", "\r\n")), 0o600); err != nil {
			t.Fatal(err)
		}
		out, stderr, err := runAISCmd(t, "", "decode", "--stats", path)
		if err != nil || out != aisOutput {
			t.Errorf("err %v, stdout\n%s\nwant\n%s", err, out, aisOutput)
		}
		for _, want := range []string{"lines read: 7\n", "messages: 5, type 1: 2, type 4: 1, type 5: 1, type 24: 1\n",
			"errors: 1, not_ais: 0, checksum: 1, sentence: 0,", "incomplete at the end: 0\n", "µs per line: "} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stats lack %q:\n%s", want, stderr)
			}
		}
	})
	t.Run("missing file", func(t *testing.T) {
		_, _, err := runAISCmd(t, "", "decode", filepath.Join(t.TempDir(), "none.nmea"))
		if err == nil || !os.IsNotExist(err) {
			t.Errorf("err %v, want the file's absence", err)
		}
	})
	for name, args := range map[string][]string{
		"NoSubcommand":    {},
		"OtherSubcommand": {"encode", "-"},
		"NoFile":          {"decode"},
		"TwoFiles":        {"decode", "a", "b"},
		"UnknownFlag":     {"decode", "--json", "-"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := runAISCmd(t, "", args...)
			if _, ok := err.(usageError); !ok {
				t.Errorf("err = %v (%T), want a usage error", err, err)
			}
		})
	}
}
