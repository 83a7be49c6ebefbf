package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/boxwatch/boxwatch/geo"
)

// A line is one river line of WDBII as GMT bins it: its level (0 the banks of double-lined
// rivers, 1 to 4 permanent rivers by size, 5 to 7 intermittent ones, 8 to 10 canals: major,
// minor, irrigation) and its points.
type line struct {
	level  int
	points []geo.Point
}

// The variables of GMT's binned files (binned_river_h.nc, binned_GSHHS_h.nc) this command reads;
// ncdump prints them as CDL text (scripts/rivers.sh).
var binnedVars = []string{
	"Bin_size_in_minutes",
	"N_bins_in_360_longitude_range",
	"Id_of_first_segment_in_a_bin",
	"N_segments_in_a_bin",
	"Id_of_first_point_in_a_segment",
	"Relative_longitude_from_SW_corner_of_bin",
	"Relative_latitude_from_SW_corner_of_bin",
}

// readRivers returns the river lines of GMT's binned river file (WDBII), as CDL text: each
// segment's point count and level are variables of their own.
func readRivers(r io.Reader) ([]line, error) {
	vars, err := readCDL(r)
	if err != nil {
		return nil, err
	}
	npts, level := vars["N_points_for_a_segment"], vars["Hierarchial_level_of_a_segment"]
	if npts == nil || len(npts) != len(level) {
		return nil, fmt.Errorf("no point count or level per segment")
	}
	return readBinned(vars, npts, level)
}

// readShores returns the shoreline pieces of GMT's binned GSHHS file, as CDL text: each
// polygon's part inside one bin, an open line unless the polygon lies within the bin. A
// segment's point count and level are packed in one number, count<<9 | level<<6 | entry<<3 |
// exit (the bin sides it enters and leaves by).
func readShores(r io.Reader) ([]line, error) {
	vars, err := readCDL(r)
	if err != nil {
		return nil, err
	}
	info := vars["Embedded_npts_levels_exit_entry_for_a_segment"]
	if info == nil {
		return nil, fmt.Errorf("no variable Embedded_npts_levels_exit_entry_for_a_segment")
	}
	npts, level := make([]int, len(info)), make([]int, len(info))
	for i, v := range info {
		npts[i], level[i] = v>>9, v>>6&7
	}
	return readBinned(vars, npts, level)
}

// readBinned returns the lines of a binned file given each segment's point count and level.
// Bins are 2° squares numbered west to east from 0° and north to south from 90° N; a point is
// its offset from its bin's south-west corner in 1/65535 of the bin's side, stored as a signed
// 16-bit number that stands for an unsigned one.
func readBinned(vars map[string][]int, npts, level []int) ([]line, error) {
	for _, name := range binnedVars {
		if _, ok := vars[name]; !ok {
			return nil, fmt.Errorf("no variable %s", name)
		}
	}
	if len(vars["Bin_size_in_minutes"]) != 1 || len(vars["N_bins_in_360_longitude_range"]) != 1 {
		return nil, fmt.Errorf("bin size or bin count is not a scalar")
	}
	side := float64(vars["Bin_size_in_minutes"][0]) / 60
	cols := vars["N_bins_in_360_longitude_range"][0]
	if side <= 0 || cols <= 0 {
		return nil, fmt.Errorf("bins of %g° in %d columns", side, cols)
	}
	first, count := vars["Id_of_first_segment_in_a_bin"], vars["N_segments_in_a_bin"]
	start := vars["Id_of_first_point_in_a_segment"]
	dx, dy := vars["Relative_longitude_from_SW_corner_of_bin"], vars["Relative_latitude_from_SW_corner_of_bin"]
	if len(first) != len(count) || len(npts) != len(level) || len(npts) != len(start) || len(dx) != len(dy) {
		return nil, fmt.Errorf("arrays of unequal length")
	}
	var lines []line
	for b := range first {
		west := float64(b%cols) * side
		south := 90 - float64(b/cols+1)*side
		for s := first[b]; s < first[b]+count[b]; s++ {
			if s < 0 || s >= len(npts) || start[s] < 0 || start[s]+npts[s] > len(dx) {
				return nil, fmt.Errorf("bin %d: segment %d out of range", b, s)
			}
			ln := line{level: level[s]}
			for i := start[s]; i < start[s]+npts[s]; i++ {
				lon := west + float64(uint16(dx[i]))*side/65535
				if lon > 180 {
					lon -= 360
				}
				ln.points = append(ln.points, geo.Point{Lat: south + float64(uint16(dy[i]))*side/65535, Lon: lon})
			}
			lines = append(lines, ln)
		}
	}
	return lines, nil
}

// readCDL returns the integer data of every variable of a CDL document (ncdump's output), by
// name: the values after "name =" up to the closing ";" in its data section.
func readCDL(r io.Reader) (map[string][]int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	vars := map[string][]int{}
	inData := false
	var name string
	var vals []int
	for sc.Scan() {
		ln := strings.TrimSpace(sc.Text())
		if !inData {
			inData = ln == "data:"
			continue
		}
		if name == "" {
			n, rest, ok := strings.Cut(ln, "=")
			if !ok {
				continue
			}
			name, ln = strings.TrimSpace(n), rest
			vals = nil
		}
		end := strings.HasSuffix(ln, ";")
		ln = strings.TrimSuffix(ln, ";")
		for _, f := range bytes.FieldsFunc([]byte(ln), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			if string(f) == "_" {
				// ncdump prints netCDF's default fill value as "_"; in the point arrays it is a
				// real offset, the short -32767 (32769 unsigned).
				vals = append(vals, -32767)
				continue
			}
			v, err := strconv.Atoi(string(f))
			if err != nil {
				return nil, fmt.Errorf("variable %s: %v", name, err)
			}
			vals = append(vals, v)
		}
		if end {
			vars[name] = vals
			name = ""
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !inData {
		return nil, fmt.Errorf("no data section")
	}
	if name != "" {
		return nil, fmt.Errorf("variable %s: no closing ';'", name)
	}
	return vars, nil
}
