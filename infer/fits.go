package infer

import "github.com/boxwatch/boxwatch"

// Fits reports whether number could be a bill of lading (kind BillOfLading) or a booking (kind
// Booking) issued by the line with that SCAC, as far as the engine knows the line's formats:
//   - a complete container number (owner code shape and a right check digit) is neither;
//   - otherwise the number, or its body after the line's bill-of-lading prefix, must fit one of
//     the line's formats of that kind;
//   - a line with no known format of that kind, and an unknown SCAC, accept any other number.
//
// A number that infer_number would refuse (blank, too long, other characters) fits nothing.
func (e *Engine) Fits(scac string, kind NumberType, number string) bool {
	s, err := normalize(number)
	if err != nil {
		return false
	}
	if isContainer(s) && boxwatch.ContainerNumberProblem(s) == "" {
		return false
	}
	li := -1
	for i := range e.lines {
		if e.lines[i].scac == scac {
			li = i
			break
		}
	}
	if li < 0 {
		return true
	}
	bodies := []string{s}
	if p, ok := e.billPrefix(s); ok && p == li {
		bodies = append(bodies, s[4:])
	}
	known := false
	for i := range e.formats {
		f := &e.formats[i]
		if f.line != li || f.kind != kind {
			continue
		}
		known = true
		for _, b := range bodies {
			if f.match(b) {
				return true
			}
		}
	}
	return !known
}
