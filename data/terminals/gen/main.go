// Command gen writes data/terminals/terminals.json from two tables: terminals.csv, kept by hand
// (each terminal's port, SMDG and FIRMS codes, name and nickname: facts from SMDG's terminal code
// list and CBP's FIRMS code list), and a copy of SMDG's Master Terminal Facilities List (the
// whole list, or the extract smdg-us.csv kept beside it), from which each terminal with an SMDG
// code takes its address. The output is deterministic: terminals sorted by port, then SMDG code,
// then FIRMS code, one per line.
package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
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
	dir := flag.String("dir", "data/terminals", "the folder of terminals.csv, and of terminals.json written")
	smdg := flag.String("smdg", "data/terminals/smdg-us.csv", "SMDG's terminal list, or an extract with the same columns")
	flag.Parse()
	if err := run(*dir, *smdg); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dir, smdgPath string) error {
	hand, err := os.Open(filepath.Join(dir, "terminals.csv"))
	if err != nil {
		return err
	}
	defer hand.Close()
	list, err := os.Open(smdgPath)
	if err != nil {
		return err
	}
	defer list.Close()
	doc, err := build(hand, list)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "terminals.json"), doc, 0o644)
}

// terminal is one entry of terminals.json.
type terminal struct {
	LOCODE    string `json:"locode"`
	SMDGCode  string `json:"smdg_code,omitempty"`
	FIRMSCode string `json:"firms_code,omitempty"`
	Name      string `json:"name"`
	Nickname  string `json:"nickname,omitempty"`
	Street    string `json:"street,omitempty"`
	City      string `json:"city,omitempty"`
	State     string `json:"state,omitempty"`
	StateAbbr string `json:"state_abbr,omitempty"`
	Zip       string `json:"zip,omitempty"`
	Country   string `json:"country"`
}

// build joins the hand-kept table with the SMDG list's addresses and encodes the result, which
// boxwatch.LoadTerminals must accept.
func build(hand, smdg io.Reader) ([]byte, error) {
	rows, err := readCSV(hand, map[string][]string{"locode": {"locode"}, "smdg": {"smdg_code"}, "firms": {"firms_code"},
		"name": {"name"}, "nickname": {"nickname"}})
	if err != nil {
		return nil, fmt.Errorf("terminals.csv: %w", err)
	}
	listed, err := readCSV(smdg, map[string][]string{"locode": {"UNLOCODE", "locode"}, "smdg": {"Terminal Code", "smdg_code"},
		"address": {"Terminal Address", "address"}})
	if err != nil {
		return nil, fmt.Errorf("SMDG list: %w", err)
	}
	address := map[string]string{}
	for _, r := range listed {
		address[r["locode"]+"/"+r["smdg"]] = r["address"]
	}
	var out []terminal
	for _, r := range rows {
		t := terminal{LOCODE: r["locode"], SMDGCode: r["smdg"], FIRMSCode: r["firms"], Name: r["name"], Nickname: r["nickname"],
			Country: r["locode"][:min(2, len(r["locode"]))]}
		if t.SMDGCode != "" {
			a, ok := address[t.LOCODE+"/"+t.SMDGCode]
			if !ok {
				return nil, fmt.Errorf("%s/%s is not in the SMDG list", t.LOCODE, t.SMDGCode)
			}
			if t.Street, t.City, t.StateAbbr, t.Zip, err = splitAddress(a); err != nil {
				return nil, fmt.Errorf("%s/%s: %w", t.LOCODE, t.SMDGCode, err)
			}
			t.State = states[t.StateAbbr]
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b terminal) int {
		return strings.Compare(a.LOCODE+"/"+a.SMDGCode+"/"+a.FIRMSCode, b.LOCODE+"/"+b.SMDGCode+"/"+b.FIRMSCode)
	})
	var b bytes.Buffer
	b.WriteString("{\"terminals\": [\n")
	for i, t := range out {
		line, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		b.Write(line)
		if i < len(out)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]}\n")
	if _, err := boxwatch.LoadTerminals(bytes.NewReader(b.Bytes())); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// readCSV reads a CSV file with a header into rows keyed by the names of columns, each found
// under one of its headers.
func readCSV(r io.Reader, columns map[string][]string) ([]map[string]string, error) {
	records, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return nil, fmt.Errorf("empty")
	}
	index := map[string]int{}
	for name, headers := range columns {
		for i, h := range records[0] {
			if slices.Contains(headers, strings.TrimSpace(h)) {
				index[name] = i
			}
		}
		if _, ok := index[name]; !ok {
			return nil, fmt.Errorf("no column %q", headers[0])
		}
	}
	var out []map[string]string
	for _, rec := range records[1:] {
		row := map[string]string{}
		for name, i := range index {
			row[name] = strings.TrimSpace(rec[i])
		}
		out = append(out, row)
	}
	return out, nil
}

// splitAddress splits a US address as SMDG writes it ("street, …, city, ST 12345, USA").
func splitAddress(a string) (street, city, state, zip string, err error) {
	parts := strings.Split(a, ", ")
	n := len(parts)
	if n < 4 || parts[n-1] != "USA" {
		return "", "", "", "", fmt.Errorf("address %q is not street, city, state and zip, USA", a)
	}
	st, z, ok := strings.Cut(parts[n-2], " ")
	if !ok || len(st) != 2 || states[st] == "" {
		return "", "", "", "", fmt.Errorf("address %q: no state and zip", a)
	}
	return strings.Join(parts[:n-3], ", "), parts[n-3], st, z, nil
}

// states are the US states of the listed terminals' addresses.
var states = map[string]string{
	"AL": "Alabama", "CA": "California", "FL": "Florida", "GA": "Georgia", "LA": "Louisiana", "MA": "Massachusetts",
	"MD": "Maryland", "NJ": "New Jersey", "NY": "New York", "PA": "Pennsylvania", "SC": "South Carolina", "TX": "Texas",
	"VA": "Virginia", "WA": "Washington",
}
