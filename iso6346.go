package boxwatch

// ISO 6346 container numbers: a three-letter owner code, a category letter (U freight container,
// J detachable equipment, Z trailer or chassis), a six-digit serial and a check digit.

// ContainerCheckDigit computes the ISO 6346 check digit of the first ten characters of s (owner
// code, category and serial, upper-case). ok is false when s is shorter than ten characters or a
// character is out of place. A remainder of 10 yields 0, as the standard prescribes.
func ContainerCheckDigit(s string) (digit byte, ok bool) {
	if len(s) < 10 {
		return 0, false
	}
	sum := 0
	for i := 0; i < 10; i++ {
		c := s[i]
		var v int
		switch {
		case i < 4 && c >= 'A' && c <= 'Z':
			v = letterValue[c-'A']
		case i >= 4 && c >= '0' && c <= '9':
			v = int(c - '0')
		default:
			return 0, false
		}
		sum += v << i
	}
	return byte(sum % 11 % 10), true
}

// letterValue gives each letter its ISO 6346 value: A=10 upward, skipping the multiples of 11
// (11, 22, 33) so that no letter shares a value with its weight's period.
var letterValue = [26]int{
	10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, // A–K
	23, 24, 25, 26, 27, 28, 29, 30, 31, 32, // L–U
	34, 35, 36, 37, 38, // V–Z
}

// ContainerNumberProblem explains why s (already normalised: upper-case, no separators) is not a
// valid ISO 6346 container number, or returns "" when it is one.
func ContainerNumberProblem(s string) string {
	if len(s) != 11 {
		return "must be 11 characters: a 3-letter owner code, a category letter (U, J or Z), 6 digits and a check digit"
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return "must start with a 3-letter owner code"
		}
	}
	if c := s[3]; c != 'U' && c != 'J' && c != 'Z' {
		return "must have U, J or Z as its fourth character (equipment category)"
	}
	for i := 4; i < 11; i++ {
		if s[i] < '0' || s[i] > '9' {
			return "must end with 7 digits (serial number and check digit)"
		}
	}
	want, _ := ContainerCheckDigit(s)
	if s[10]-'0' != want {
		return "has an invalid check digit"
	}
	return ""
}
