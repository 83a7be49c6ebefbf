// Command gen writes data/railways/railways.json from railways.csv, kept by hand: each railway's
// SCAC, name, the short names carriers and terminals call it by, its country and the public page
// that gives its reporting mark. The output is deterministic: railways sorted by SCAC, one per
// line, and boxwatch.LoadRailways must accept it.
package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/boxwatch/boxwatch"
)

func main() {
	dir := flag.String("dir", "data/railways", "the folder of railways.csv, and of railways.json written")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	f, err := os.Open(filepath.Join(dir, "railways.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	doc, err := build(f)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "railways.json"), doc, 0o644)
}

// railway is one entry of railways.json.
type railway struct {
	SCAC       string   `json:"scac"`
	Name       string   `json:"name"`
	ShortNames []string `json:"short_names"`
	Country    string   `json:"country"`
}

var header = []string{"scac", "name", "short_names", "country", "source"}

// build reads the hand-kept table (every row with its source) and encodes railways.json.
func build(r io.Reader) ([]byte, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("railways.csv: %w", err)
	}
	if len(rows) == 0 || !slices.Equal(rows[0], header) {
		return nil, fmt.Errorf("railways.csv: the header is not %s", strings.Join(header, ","))
	}
	var out []railway
	for i, row := range rows[1:] {
		if row[4] == "" {
			return nil, fmt.Errorf("railways.csv: row %d (%s): no source", i+2, row[0])
		}
		out = append(out, railway{SCAC: row[0], Name: row[1], ShortNames: strings.Fields(row[2]), Country: row[3]})
	}
	if len(out) == 0 {
		return nil, errors.New("railways.csv: no railway")
	}
	slices.SortFunc(out, func(a, b railway) int { return strings.Compare(a.SCAC, b.SCAC) })
	var buf bytes.Buffer
	buf.WriteString("{\"railways\": [\n")
	for i, r := range out {
		line, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		buf.Write(line)
		if i < len(out)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("]}\n")
	if _, err := boxwatch.LoadRailways(bytes.NewReader(buf.Bytes())); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
