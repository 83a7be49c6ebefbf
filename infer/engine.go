package infer

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/boxwatch/boxwatch"
)

// Confidences. They are priors set from public facts, not fitted; TestEvaluation checks them
// against the labelled set in testdata.
const (
	// ownerConfidence: a box with a line's own owner prefix mostly travels on that line's
	// bookings; partners' slots and sold boxes account for the rest.
	ownerConfidence = 0.97
	// groupConfidence and brandConfidence split a box of an absorbed line (parent_scac) between
	// the group, which now owns the equipment, and the brand, which may still be operating it.
	groupConfidence = 0.88
	brandConfidence = 0.08
	// badCheckFactor scales a container's confidences when its check digit is wrong or missing:
	// the number holds a typo, which may sit in the owner code.
	badCheckFactor = 0.82
	// equipmentFactor scales them for categories J (detachable equipment) and Z (chassis), which
	// carriers do not track.
	equipmentFactor = 0.5
	// prefixedBillConfidence: a known bill-of-lading prefix followed by a body in one of the
	// carrier's formats.
	prefixedBillConfidence = 0.98
	// unformattedBillConfidence: a known prefix on a carrier whose formats are not known.
	unformattedBillConfidence = 0.90
	// misfitBillConfidence: a known prefix whose body fits none of the carrier's formats; the
	// prefix may be a coincidence.
	misfitBillConfidence = 0.75
	// unknownFormatsWeight is the weight, against the format likelihood ratios of the known
	// carriers, of the carriers and forwarders whose formats are not known. One exact fit then
	// gives 1/(1+0.25) = 0.80.
	unknownFormatsWeight = 0.25
	// bareCap bounds the confidence of a bare number: without a prefix or owner code nothing
	// rules out a carrier whose formats are not known, so it is never auto-selected.
	bareCap = 0.90
	// minConfidence drops negligible candidates.
	minConfidence = 0.01
)

// maxBareCandidates bounds the lines whose formats may share one length.
const maxBareCandidates = 32

// Engine infers number types and shipping lines. It is immutable after New and safe for
// concurrent use.
type Engine struct {
	lines []line
	// owners maps a three-letter owner code (see ownerCode) to 1 + the index of its line,
	// to lessorOwned, or to 0 when the code is unknown.
	owners [26 * 26 * 26]int16
	// billPrefixes maps a four-letter bill-of-lading prefix, packed by pack4, to its line.
	billPrefixes map[uint32]int
	formats      []lineFormat
	// byLength[n] lists the formats that can match a number of n characters.
	byLength [maxNumberLen + 1][]int
	// shapes[l][d] is 26^l·10^d, the number of strings with a given sequence of l letters and d
	// digits.
	shapes [maxNumberLen + 1][maxNumberLen + 1]float64
}

// lessorOwned marks the owner codes of lessors.
const lessorOwned = -1

type line struct {
	scac, name     string
	parent         int // index of the parent line, or -1
	hasBillFormats bool
}

type lineFormat struct {
	format
	line int
	kind NumberType
}

// New compiles the carrier registry and the lessor list into an engine. It fails when a registry
// field it reads is malformed, when a format does not parse, when an owner prefix or a
// bill-of-lading prefix is claimed twice, or when parent_scac names no line.
func New(carriers *boxwatch.Carriers, lessors []boxwatch.Lessor) (*Engine, error) {
	e := &Engine{billPrefixes: map[uint32]int{}}
	all := carriers.All()
	index := make(map[string]int, len(all))
	for i, l := range all {
		index[l.SCAC] = i
	}
	holders := map[int]string{} // owner code → who claimed it, for error messages
	claim := func(prefix string, owner int16, holder string) error {
		if !boxwatch.IsOwnerPrefix(prefix) {
			return fmt.Errorf("infer: %s: %q is not an owner prefix", holder, prefix)
		}
		code := ownerCode(prefix)
		if e.owners[code] != 0 {
			return fmt.Errorf("infer: owner code %s is claimed by %s and %s", prefix[:3], holders[code], holder)
		}
		e.owners[code], holders[code] = owner, holder
		return nil
	}
	for i, l := range all {
		var bill, booking []string
		var parent string
		if err := extra(l, "bill_of_lading_formats", &bill); err != nil {
			return nil, err
		}
		if err := extra(l, "booking_formats", &booking); err != nil {
			return nil, err
		}
		if err := extra(l, "parent_scac", &parent); err != nil {
			return nil, err
		}
		ln := line{scac: l.SCAC, name: l.Name, parent: -1, hasBillFormats: len(bill) > 0}
		if parent != "" {
			p, ok := index[parent]
			if !ok || p == i {
				return nil, fmt.Errorf("infer: carrier %s: parent_scac %q is not another line of the registry", l.SCAC, parent)
			}
			ln.parent = p
		}
		e.lines = append(e.lines, ln)
		for _, p := range l.ContainerPrefixes {
			if err := claim(p, int16(i+1), l.SCAC); err != nil {
				return nil, err
			}
		}
		for _, p := range l.BillOfLadingPrefixes {
			if len(p) != 4 || !isLetters(p) {
				return nil, fmt.Errorf("infer: carrier %s: bill-of-lading prefix %q is not four letters", l.SCAC, p)
			}
			if prev, dup := e.billPrefixes[pack4(p)]; dup {
				return nil, fmt.Errorf("infer: bill-of-lading prefix %s is claimed by %s and %s", p, all[prev].SCAC, l.SCAC)
			}
			e.billPrefixes[pack4(p)] = i
		}
		for _, group := range []struct {
			specs []string
			kind  NumberType
		}{{bill, BillOfLading}, {booking, Booking}} {
			for _, spec := range group.specs {
				f, err := parseFormat(spec)
				if err != nil {
					return nil, fmt.Errorf("infer: carrier %s: %w", l.SCAC, err)
				}
				e.formats = append(e.formats, lineFormat{format: f, line: i, kind: group.kind})
			}
		}
	}
	for _, l := range lessors {
		for _, p := range l.ContainerPrefixes {
			if err := claim(p, lessorOwned, "lessor "+l.Name); err != nil {
				return nil, err
			}
		}
	}
	for n := range e.byLength {
		lines := map[int]bool{}
		for i := range e.formats {
			if e.formats[i].density[n] != 0 {
				e.byLength[n] = append(e.byLength[n], i)
				lines[e.formats[i].line] = true
			}
		}
		if len(lines) > maxBareCandidates {
			return nil, fmt.Errorf("infer: %d lines have formats of length %d; the engine handles at most %d", len(lines), n, maxBareCandidates)
		}
	}
	for l := range e.shapes {
		for d := range e.shapes[l] {
			e.shapes[l][d] = math.Pow(26, float64(l)) * math.Pow(10, float64(d))
		}
	}
	return e, nil
}

// extra decodes the registry field key of line l, if present, into v.
func extra(l boxwatch.ShippingLine, key string, v any) error {
	raw, ok := l.Extra[key]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("infer: carrier %s: %s: %w", l.SCAC, key, err)
	}
	return nil
}

// Infer answers for one number as a user typed it. It returns a *boxwatch.Error of kind
// KindInvalid, pointing at /number, when the number is blank, longer than 40 characters or holds
// anything but letters, digits, spaces, dashes, dots and slashes. The Result's slices are the
// caller's.
func (e *Engine) Infer(number string) (Result, error) {
	s, err := normalize(number)
	if err != nil {
		return Result{}, err
	}
	if isContainer(s) {
		return e.container(s), nil
	}
	// A known prefix with a body in its carrier's format beats the shape of a container without
	// check digit, which beats a known prefix with a body in no format.
	li, prefixed := e.billPrefix(s)
	switch {
	case prefixed && e.fitsLine(s[4:], li):
		return billResult(s[4:], Known(true), e.single(li, prefixedBillConfidence)), nil
	case isContainerWithoutCheckDigit(s):
		return e.container(s), nil
	case prefixed && !e.lines[li].hasBillFormats:
		return billResult(s[4:], NullBool{}, e.single(li, unformattedBillConfidence)), nil
	case prefixed:
		return billResult(s[4:], NullBool{}, e.single(li, misfitBillConfidence)), nil
	}
	return e.bare(s), nil
}

// billPrefix returns the line whose bill-of-lading prefix starts s, when a body follows it.
func (e *Engine) billPrefix(s string) (line int, ok bool) {
	if len(s) <= 4 || !isLetters(s[:4]) {
		return 0, false
	}
	line, ok = e.billPrefixes[pack4(s)]
	return line, ok
}

// normalize removes the separators of number and upper-cases it, without allocating when there is
// nothing to change.
func normalize(number string) (string, error) {
	if len(number) > maxNumberLen {
		return "", boxwatch.Invalid("/number", boxwatch.CodeTooLong, "The number must be at most %d characters.", maxNumberLen)
	}
	var buf [maxNumberLen]byte
	n, changed := 0, false
	for i := 0; i < len(number); i++ {
		c := number[i]
		switch {
		case c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
			changed = true
		case c == ' ' || c == '-' || c == '.' || c == '/':
			changed = true
			continue
		default:
			return "", boxwatch.Invalid("/number", boxwatch.CodeInvalid, "The number may hold only letters, digits, spaces, dashes, dots and slashes.")
		}
		buf[n] = c
		n++
	}
	if n == 0 {
		return "", boxwatch.Invalid("/number", boxwatch.CodeBlank, "The number must not be blank.")
	}
	if !changed {
		return number, nil
	}
	return string(buf[:n]), nil
}

// container answers for an ISO 6346 number, complete or without its check digit.
func (e *Engine) container(s string) Result {
	r := Result{
		NumberType: Container,
		Validation: Validation{Type: validationContainer, ParsedNumber: s},
	}
	factor := 1.0
	if len(s) == 10 {
		r.Validation.IsValid, r.Validation.CheckDigitPassed = Known(false), Known(false)
		r.Validation.Reason = reasonMissingCheckDigit
		factor = badCheckFactor
	} else {
		want, _ := boxwatch.ContainerCheckDigit(s)
		ok := s[10]-'0' == want
		r.Validation.IsValid, r.Validation.CheckDigitPassed = Known(ok), Known(ok)
		if !ok {
			r.Validation.Reason = reasonCheckDigit
			factor = badCheckFactor
		}
	}
	if s[3] != 'U' {
		factor *= equipmentFactor
	}
	// A lessor's box or an unknown owner code says nothing about the carrier.
	r.ShippingLine = predict(nil)
	if o := e.owners[ownerCode(s)]; o > 0 {
		li := int(o - 1)
		if p := e.lines[li].parent; p >= 0 {
			r.ShippingLine = predict([]Candidate{
				e.candidate(p, groupConfidence*factor),
				e.candidate(li, brandConfidence*factor),
			})
		} else {
			r.ShippingLine = e.single(li, ownerConfidence*factor)
		}
	}
	return r
}

func billResult(body string, valid NullBool, p LinePrediction) Result {
	return Result{
		NumberType:   BillOfLading,
		Validation:   Validation{IsValid: valid, Type: validationShipment, ParsedNumber: body},
		ShippingLine: p,
	}
}

// fitsLine reports whether s fits one of the bill-of-lading formats of line li.
func (e *Engine) fitsLine(s string, li int) bool {
	for _, fi := range e.byLength[len(s)] {
		if f := &e.formats[fi]; f.line == li && f.kind == BillOfLading && f.match(s) {
			return true
		}
	}
	return false
}

// bareHit accumulates, for one line, the best likelihood ratio of its formats of each kind.
type bareHit struct {
	line          int
	bill, booking float64
}

func (h *bareHit) score() float64 { return max(h.bill, h.booking) }

// bare answers for a number without prefix or owner code, by the formats it fits.
//
// Each fitting format scores the ratio of its likelihood for s to the likelihood of s among all
// strings with its sequence of letters and digits: 1 for a format that is exactly that shape,
// more for one with literals, less for a loose one. A line scores its best format. Its
// confidence is its share of the total plus unknownFormatsWeight, capped at bareCap. The number
// is a bill of lading when the bill-of-lading scores outweigh the booking scores plus
// unknownFormatsWeight, a booking otherwise.
func (e *Engine) bare(s string) Result {
	var hits [maxBareCandidates]bareHit
	nh := 0
	nLetters := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' {
			nLetters++
		}
	}
	shape := e.shapes[nLetters][len(s)-nLetters]
	for _, fi := range e.byLength[len(s)] {
		f := &e.formats[fi]
		if !f.match(s) {
			continue
		}
		ratio := shape * f.density[len(s)]
		h := 0
		for h < nh && hits[h].line != f.line {
			h++
		}
		if h == nh {
			hits[h] = bareHit{line: f.line}
			nh++
		}
		if f.kind == Booking {
			hits[h].booking = max(hits[h].booking, ratio)
		} else {
			hits[h].bill = max(hits[h].bill, ratio)
		}
	}
	r := Result{Validation: Validation{Type: validationShipment, ParsedNumber: s}}
	if nh == 0 {
		r.NumberType = Booking
		if looksPrefixed(s) {
			// Most carriers print their bills as SCAC plus number: an unknown carrier's bill.
			r.NumberType = BillOfLading
		}
		r.ShippingLine = predict(nil)
		return r
	}
	var total, bill, booking float64
	for _, h := range hits[:nh] {
		total += h.score()
		bill += h.bill
		booking += h.booking
	}
	// A number in no known format is taken for a booking, the kind whose formats vary most, so
	// the unknown weight counts as booking.
	r.NumberType = Booking
	if bill > booking+unknownFormatsWeight {
		r.NumberType = BillOfLading
		r.Validation.IsValid = Known(true)
	}
	// Rank by score, then registry order: insertion sort over a handful of hits.
	for i := 1; i < nh; i++ {
		for j := i; j > 0 && less(&hits[j], &hits[j-1]); j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	confidence := func(h *bareHit) float64 { return min(bareCap, h.score()/(total+unknownFormatsWeight)) }
	kept := 0
	for kept < nh && round(confidence(&hits[kept])) >= minConfidence {
		kept++
	}
	cands := make([]Candidate, kept)
	for i := range cands {
		cands[i] = e.candidate(hits[i].line, confidence(&hits[i]))
	}
	r.ShippingLine = predict(cands)
	return r
}

func less(a, b *bareHit) bool {
	if sa, sb := a.score(), b.score(); sa != sb {
		return sa > sb
	}
	return a.line < b.line
}

func (e *Engine) candidate(li int, confidence float64) Candidate {
	return Candidate{SCAC: e.lines[li].scac, Name: e.lines[li].name, Confidence: round(confidence)}
}

// single predicts one line.
func (e *Engine) single(li int, confidence float64) LinePrediction {
	return predict([]Candidate{e.candidate(li, confidence)})
}

// predict turns ranked candidates into a prediction.
func predict(cands []Candidate) LinePrediction {
	if len(cands) == 0 {
		return LinePrediction{Decision: NoPrediction, Candidates: []Candidate{}}
	}
	p := LinePrediction{Decision: decide(cands[0].Confidence), Candidates: cands}
	if p.Decision != NoPrediction {
		p.Selected = &cands[0]
	}
	return p
}

// round keeps three decimals, so that decisions are taken on the confidences shown.
func round(c float64) float64 { return math.Round(c*1000) / 1000 }

// isContainer reports whether s has the shape of an ISO 6346 number: three letters, U, J or Z,
// and seven digits.
func isContainer(s string) bool { return len(s) == 11 && ownerShaped(s) && boxwatch.IsDigits(s[4:]) }

// isContainerWithoutCheckDigit reports whether s is an ISO 6346 number missing its last digit.
func isContainerWithoutCheckDigit(s string) bool {
	return len(s) == 10 && ownerShaped(s) && boxwatch.IsDigits(s[4:])
}

func ownerShaped(s string) bool {
	return isLetters(s[:3]) && (s[3] == 'U' || s[3] == 'J' || s[3] == 'Z')
}

// looksPrefixed reports whether s reads as four letters and a number: a SCAC-prefixed bill.
func looksPrefixed(s string) bool {
	if len(s) < 8 || !isLetters(s[:4]) {
		return false
	}
	for i := 4; i < len(s); i++ {
		if s[i] <= '9' {
			return true
		}
	}
	return false
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// ownerCode indexes the three-letter owner code at the start of s.
func ownerCode(s string) int {
	return int(s[0]-'A')*26*26 + int(s[1]-'A')*26 + int(s[2]-'A')
}

func pack4(s string) uint32 {
	return uint32(s[0])<<24 | uint32(s[1])<<16 | uint32(s[2])<<8 | uint32(s[3])
}
