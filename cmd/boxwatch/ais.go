package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/boxwatch/boxwatch/ais"
)

const aisUsage = "usage: boxwatch ais decode FILE|- [--stats]"

// runAIS dispatches the ais subcommands; decode is the only one.
func runAIS(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "decode" {
		return usagef(aisUsage)
	}
	fs := flagSet{flag.NewFlagSet("ais decode", flag.ContinueOnError), stderr}
	fs.SetOutput(io.Discard)
	stats := fs.Bool("stats", false, "print to stderr the lines read, messages by type, errors by kind and microseconds per line")
	pos, err := parseFlags(fs, args[1:], getenv)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) != 1 {
		return usagef(aisUsage)
	}
	in := stdin
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	var d ais.Decoder
	start := time.Now()
	err = decodeAIS(ctx, &d, in, stdout)
	if *stats {
		printAISStats(stderr, &d, time.Since(start))
	}
	return err
}

// decodeAIS writes one JSON object per message decoded from in, with the line of its last sentence.
func decodeAIS(ctx context.Context, d *ais.Decoder, in io.Reader, stdout io.Writer) error {
	w := bufio.NewWriterSize(stdout, 64<<10)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var m ais.Message
	var buf []byte
	for n := 1; sc.Scan(); n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if ok, _ := d.Decode(sc.Bytes(), &m); !ok {
			continue // Stats counts what was skipped
		}
		buf = appendMessageJSON(buf[:0], n, &m)
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return w.Flush()
}

// appendMessageJSON appends m as one line of JSON; fields a message lacks are left out.
func appendMessageJSON(b []byte, line int, m *ais.Message) []byte {
	b = append(b, `{"line":`...)
	b = strconv.AppendInt(b, int64(line), 10)
	b = append(b, `,"type":`...)
	b = strconv.AppendInt(b, int64(m.Type), 10)
	b = append(b, `,"mmsi":`...)
	b = strconv.AppendUint(b, uint64(m.MMSI), 10)
	float := func(name string, v float64) {
		b = append(b, `,"`...)
		b = append(b, name...)
		b = append(b, `":`...)
		b = strconv.AppendFloat(b, v, 'f', -1, 64)
	}
	text := func(name string, t ais.Text) {
		if t.Len() > 0 {
			b = append(b, `,"`...)
			b = append(b, name...)
			b = append(b, `":`...)
			b = strconv.AppendQuote(b, t.String()) // six-bit text is printable ASCII: Go's quoting is JSON's
		}
	}
	if m.HasPosition {
		float("lat", m.Position.Lat)
		float("lon", m.Position.Lon)
	}
	if m.HasSpeed {
		float("sog", m.Speed)
	}
	if m.HasCourse {
		float("cog", m.Course)
	}
	if m.HasHeading {
		b = append(b, `,"heading":`...)
		b = strconv.AppendInt(b, int64(m.Heading), 10)
	}
	if !m.Time.IsZero() {
		b = append(b, `,"time":"`...)
		b = m.Time.AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	if !m.UTC.IsZero() {
		b = append(b, `,"utc":"`...)
		b = m.UTC.AppendFormat(b, time.RFC3339)
		b = append(b, '"')
	}
	if m.IMO != 0 {
		b = append(b, `,"imo":`...)
		b = strconv.AppendUint(b, uint64(m.IMO), 10)
	}
	text("name", m.Name)
	text("callsign", m.CallSign)
	if m.Part != 0 {
		b = append(b, `,"part":"`...)
		b = append(b, m.Part, '"')
	}
	return append(b, "}\n"...)
}

func printAISStats(w io.Writer, d *ais.Decoder, took time.Duration) {
	s := &d.Stats
	fmt.Fprintf(w, "lines read: %d\n", s.Lines)
	total := 0
	for _, n := range s.Messages {
		total += n
	}
	fmt.Fprintf(w, "messages: %d", total)
	for typ, n := range s.Messages {
		if n > 0 {
			fmt.Fprintf(w, ", type %d: %d", typ, n)
		}
	}
	fmt.Fprintln(w)
	total = 0
	for _, n := range s.Errors {
		total += n
	}
	fmt.Fprintf(w, "errors: %d", total)
	for kind := 1; kind < ais.ErrorKinds; kind++ {
		fmt.Fprintf(w, ", %s: %d", ais.Error(kind).String(), s.Errors[kind])
	}
	fmt.Fprintf(w, "\nincomplete at the end: %d\n", d.Pending())
	if s.Lines > 0 {
		fmt.Fprintf(w, "µs per line: %.3f (reading, decoding and printing)\n", float64(took.Nanoseconds())/1e3/float64(s.Lines))
	}
}
