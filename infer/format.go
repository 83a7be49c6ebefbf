package infer

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// maxNumberLen is the longest number accepted, before normalisation.
const maxNumberLen = 40

// charClass is a set of characters of a normalised number: bit c-'0' stands for character c, so
// digits and upper-case letters both fit in 64 bits.
type charClass uint64

const (
	digits  charClass = 1<<10 - 1
	letters charClass = (1<<26 - 1) << ('A' - '0')
)

func (c charClass) has(b byte) bool {
	return b >= '0' && b <= 'Z' && c&(1<<(b-'0')) != 0
}

func (c charClass) size() float64 { return float64(bits.OnesCount64(uint64(c))) }

// segment is one token of a format: between min and max characters of class.
type segment struct {
	class    charClass
	min, max int
}

// format is a compiled format (see the package documentation for the notation).
type format struct {
	segments []segment
	// density[n] is the likelihood of any one string of length n the format allows, 0 when it
	// allows none.
	density [maxNumberLen + 1]float64
}

// parseFormat compiles a format written in the package's notation.
func parseFormat(spec string) (format, error) {
	var f format
	tokens := strings.Fields(spec)
	if len(tokens) == 0 {
		return f, fmt.Errorf("empty format")
	}
	for _, tok := range tokens {
		switch tok[0] {
		case '\'':
			lit, ok := strings.CutSuffix(tok[1:], "'")
			if !ok || lit == "" {
				return f, fmt.Errorf("format %q: unterminated literal %s", spec, tok)
			}
			for i := 0; i < len(lit); i++ {
				if !(digits | letters).has(lit[i]) {
					return f, fmt.Errorf("format %q: literal %s must hold upper-case letters and digits", spec, tok)
				}
				f.segments = append(f.segments, segment{class: 1 << (lit[i] - '0'), min: 1, max: 1})
			}
		case '[':
			set, count, ok := strings.Cut(tok[1:], "]")
			if !ok || set == "" {
				return f, fmt.Errorf("format %q: unterminated set %s", spec, tok)
			}
			var class charClass
			for i := 0; i < len(set); i++ {
				if !(digits | letters).has(set[i]) {
					return f, fmt.Errorf("format %q: set %s must hold upper-case letters and digits", spec, tok)
				}
				class |= 1 << (set[i] - '0')
			}
			min, max := 1, 1
			if count != "" {
				var err error
				if min, max, err = parseCount(count); err != nil {
					return f, fmt.Errorf("format %q: %s: %w", spec, tok, err)
				}
			}
			f.segments = append(f.segments, segment{class: class, min: min, max: max})
		case 'D', 'L', 'X':
			class := digits | letters
			switch tok[0] {
			case 'D':
				class = digits
			case 'L':
				class = letters
			}
			min, max, err := parseCount(tok[1:])
			if err != nil {
				return f, fmt.Errorf("format %q: %s: %w", spec, tok, err)
			}
			f.segments = append(f.segments, segment{class: class, min: min, max: max})
		default:
			return f, fmt.Errorf("format %q: unknown token %s", spec, tok)
		}
	}
	f.density = f.densities()
	if f.density == [maxNumberLen + 1]float64{} {
		return f, fmt.Errorf("format %q matches no number of at most %d characters", spec, maxNumberLen)
	}
	return f, nil
}

// parseCount reads "n" or "m-n", with 1 ≤ m ≤ n ≤ maxNumberLen.
func parseCount(s string) (min, max int, err error) {
	lo, hi, isRange := strings.Cut(s, "-")
	if min, err = strconv.Atoi(lo); err != nil {
		return 0, 0, fmt.Errorf("bad count %q", s)
	}
	max = min
	if isRange {
		if max, err = strconv.Atoi(hi); err != nil {
			return 0, 0, fmt.Errorf("bad count %q", s)
		}
	}
	if min < 1 || max < min || max > maxNumberLen {
		return 0, 0, fmt.Errorf("count %q out of range 1-%d", s, maxNumberLen)
	}
	return min, max, nil
}

// densities gives, for each length, the likelihood of any one string of that length under the
// format, reading it as a process that picks each segment's count uniformly in its range and then
// each character uniformly in its class. A format that could split one string in several ways
// adds up the ways; the formats of the registry have no such overlap, and the figure is a weight.
func (f *format) densities() [maxNumberLen + 1]float64 {
	var p [maxNumberLen + 1]float64
	p[0] = 1
	for _, g := range f.segments {
		var next [maxNumberLen + 1]float64
		for at, w := range p {
			if w == 0 {
				continue
			}
			w /= float64(g.max - g.min + 1)
			for k := 1; k <= g.max && at+k <= maxNumberLen; k++ {
				w /= g.class.size()
				if k >= g.min {
					next[at+k] += w
				}
			}
		}
		p = next
	}
	return p
}

// match reports whether the whole of s fits the format. It tracks the set of positions reachable
// after each segment as a bit set, so ranges need no backtracking.
func (f *format) match(s string) bool {
	n := len(s)
	if n > maxNumberLen || f.density[n] == 0 {
		return false
	}
	reach := uint64(1)
	for _, g := range f.segments {
		var next uint64
		for r := reach; r != 0; r &= r - 1 {
			p := bits.TrailingZeros64(r)
			for k := 0; k < g.max && p+k < n && g.class.has(s[p+k]); k++ {
				if k+1 >= g.min {
					next |= 1 << (p + k + 1)
				}
			}
		}
		if next == 0 {
			return false
		}
		reach = next
	}
	return reach&(1<<n) != 0
}
