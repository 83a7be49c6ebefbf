package boxwatch

// UpperASCII upper-cases the ASCII letters of s and leaves every other byte as it is. Codes and
// numbers (SCACs, UN/LOCODEs, container, bill and booking numbers, IMO numbers) are ASCII, and
// strings.ToUpper would turn a look-alike into a valid letter first (the dotless ı into I, the
// long ſ into S: "ımo123456" into "IMO123456"); with UpperASCII the look-alike stays and the
// check that follows refuses it.
func UpperASCII(s string) string { return mapASCII(s, 'a', 'z', 'A'-'a') }

// LowerASCII is UpperASCII's counterpart, for ids and codes written in lower case: the Kelvin
// sign K stays what it is instead of becoming k.
func LowerASCII(s string) string { return mapASCII(s, 'A', 'Z', 'a'-'A') }

func mapASCII(s string, from, to byte, shift int) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= from && s[i] <= to {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= from && b[j] <= to {
					b[j] = byte(int(b[j]) + shift)
				}
			}
			return string(b)
		}
	}
	return s
}

// EqualFoldASCII reports whether a and b are equal when ASCII letters are compared without case;
// unlike strings.EqualFold, "MſCU" is not "MSCU".
func EqualFoldASCII(a, b string) bool {
	return len(a) == len(b) && UpperASCII(a) == UpperASCII(b)
}
