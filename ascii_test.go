package boxwatch_test

import (
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
)

// The runes whose Unicode case mapping lands on an ASCII letter must keep their shape: the
// dotless ı (→ I), the long ſ (→ S), the Kelvin sign K (→ k) and the dotted İ (→ i); ß has no
// single-rune upper case and is a control.
func TestASCIICase(t *testing.T) {
	for _, c := range []struct{ in, upper, lower string }{
		{"msCu1234566", "MSCU1234566", "mscu1234566"},
		{"\u0131mo123456", "\u0131MO123456", "\u0131mo123456"},
		{"m\u017Fcu", "M\u017FCU", "m\u017Fcu"},
		{"\u212Aelvin", "\u212AELVIN", "\u212Aelvin"},
		{"\u0130stanbul", "\u0130STANBUL", "\u0130stanbul"},
		{"straße", "STRAßE", "straße"},
		{"", "", ""},
	} {
		if got := boxwatch.UpperASCII(c.in); got != c.upper {
			t.Errorf("UpperASCII(%q) = %q, want %q", c.in, got, c.upper)
		}
		if got := boxwatch.LowerASCII(c.in); got != c.lower {
			t.Errorf("LowerASCII(%q) = %q, want %q", c.in, got, c.lower)
		}
		if strings.ToUpper(c.in) != c.upper && boxwatch.EqualFoldASCII(c.in, strings.ToUpper(c.in)) {
			t.Errorf("EqualFoldASCII(%q, %q) = true", c.in, strings.ToUpper(c.in))
		}
	}
	if !boxwatch.EqualFoldASCII("mscu", "MSCU") || boxwatch.EqualFoldASCII("M\u017FCU", "MSCU") || boxwatch.EqualFoldASCII("To\u212Aen", "Token") {
		t.Error("EqualFoldASCII folds only ASCII letters")
	}
}
