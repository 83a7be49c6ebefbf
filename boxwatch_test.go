package boxwatch_test

import (
	"testing"

	"github.com/boxwatch/boxwatch"
)

func TestNameUUID(t *testing.T) {
	// The expected ids were computed apart from this package (SHA-1 of the name, then the version
	// and variant bits set by hand); they must never change, or stored ids stop matching.
	tests := []struct{ name, got, want string }{
		{"ShippingLineID", boxwatch.ShippingLineID("MAEU"), "e03c8f3a-9f58-5497-8ec8-5225db4c78e6"},
		{"PortID", boxwatch.PortID("NLRTM"), "a3c491c6-979e-57ef-9195-6fec499f80c2"},
		{"empty name", boxwatch.NameUUID(""), "da39a3ee-5e6b-5b0d-b255-bfef95601890"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, tt.got, tt.want)
		}
	}
}

func TestShapes(t *testing.T) {
	tests := []struct {
		name string
		fn   func(string) bool
		yes  []string
		no   []string
	}{
		{"IsSCAC", boxwatch.IsSCAC, []string{"MAEU", "TEST"}, []string{"", "MAE", "MAEUU", "maeu", "MAE1", "MAÉU"}},
		{"IsLOCODE", boxwatch.IsLOCODE, []string{"NLRTM", "USNYC", "DE2A9"}, []string{"", "NLRT", "NLRTMX", "nlrtm", "N1RTM", "NLRT1", "NLRT0", "NL-RT"}},
		{"IsDigits", boxwatch.IsDigits, []string{"0", "219902000"}, []string{"", "21990200A", " 1", "١"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, s := range tt.yes {
				if !tt.fn(s) {
					t.Errorf("%q: false, want true", s)
				}
			}
			for _, s := range tt.no {
				if tt.fn(s) {
					t.Errorf("%q: true, want false", s)
				}
			}
		})
	}
}
