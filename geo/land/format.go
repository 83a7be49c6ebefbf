package land

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/boxwatch/boxwatch/geo"
)

// magic starts an encoded ring file. The format after it: the number of rings, then for each
// ring its number of points and the points as varint deltas of longitude and latitude in
// micro-degrees, all as unsigned or zigzag varints.
const magic = "BWLAND1\n"

// Encode writes rings in the compact format Decode reads. Coordinates are rounded to a
// micro-degree (about 0.1 m).
func Encode(rings [][]geo.Point) []byte {
	b := []byte(magic)
	b = binary.AppendUvarint(b, uint64(len(rings)))
	for _, r := range rings {
		b = binary.AppendUvarint(b, uint64(len(r)))
		var px, py int64
		for _, p := range r {
			x, y := int64(math.Round(p.Lon*1e6)), int64(math.Round(p.Lat*1e6))
			b = binary.AppendVarint(b, x-px)
			b = binary.AppendVarint(b, y-py)
			px, py = x, y
		}
	}
	return b
}

// Decode reads rings written by Encode. It returns an error if b is not such a file.
func Decode(b []byte) ([][]geo.Point, error) {
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return nil, errors.New("land: not a ring file")
	}
	b = b[len(magic):]
	next := func(signed bool) (int64, error) {
		var v int64
		var n int
		if signed {
			v, n = binary.Varint(b)
		} else {
			var u uint64
			u, n = binary.Uvarint(b)
			v = int64(u)
		}
		if n <= 0 {
			return 0, errors.New("land: truncated ring file")
		}
		b = b[n:]
		return v, nil
	}
	count, err := next(false)
	if err != nil {
		return nil, err
	}
	if count > int64(len(b)) {
		return nil, fmt.Errorf("land: %d rings in %d bytes", count, len(b))
	}
	rings := make([][]geo.Point, 0, count)
	for range count {
		n, err := next(false)
		if err != nil {
			return nil, err
		}
		if n > int64(len(b)) {
			return nil, fmt.Errorf("land: ring of %d points in %d bytes", n, len(b))
		}
		r := make([]geo.Point, n)
		var x, y int64
		for i := range r {
			dx, err := next(true)
			if err != nil {
				return nil, err
			}
			dy, err := next(true)
			if err != nil {
				return nil, err
			}
			x, y = x+dx, y+dy
			r[i] = geo.Point{Lat: float64(y) / 1e6, Lon: float64(x) / 1e6}
			if math.Abs(r[i].Lat) > 90 || math.Abs(r[i].Lon) > 540 {
				return nil, fmt.Errorf("land: point %v out of range", r[i])
			}
		}
		rings = append(rings, r)
	}
	if len(b) != 0 {
		return nil, errors.New("land: trailing bytes in ring file")
	}
	return rings, nil
}
