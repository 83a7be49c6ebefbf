package infer_test

import (
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/infer"
)

func mustCarriers(t *testing.T, lines ...string) *boxwatch.Carriers {
	t.Helper()
	c, err := boxwatch.LoadCarriers(strings.NewReader(`{"shipping_lines": [` + strings.Join(lines, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewRejectsBadData(t *testing.T) {
	const aaa = `{"scac": "AAAA", "name": "A", "container_prefixes": ["AAAU"], "bill_of_lading_prefixes": ["AAAA"]}`
	tests := []struct {
		name    string
		lines   []string
		lessors []boxwatch.Lessor
		want    string
	}{
		{"OwnerCodeTwice", []string{aaa, `{"scac": "BBBB", "name": "B", "container_prefixes": ["AAAJ"]}`}, nil, "owner code AAA"},
		{"OwnerCodeOfLessor", []string{aaa}, []boxwatch.Lessor{{Name: "L", ContainerPrefixes: []string{"AAAU"}}}, "owner code AAA"},
		{"NotOwnerPrefix", []string{`{"scac": "BBBB", "name": "B", "container_prefixes": ["BBBX"]}`}, nil, "not an owner prefix"},
		{"BillPrefixTwice", []string{aaa, `{"scac": "BBBB", "name": "B", "bill_of_lading_prefixes": ["AAAA"]}`}, nil, "prefix AAAA"},
		{"BillPrefixNotFourLetters", []string{`{"scac": "BBBB", "name": "B", "bill_of_lading_prefixes": ["BB1"]}`}, nil, "four letters"},
		{"BadFormat", []string{`{"scac": "BBBB", "name": "B", "bill_of_lading_formats": ["D0"]}`}, nil, "out of range"},
		{"FormatsNotStrings", []string{`{"scac": "BBBB", "name": "B", "booking_formats": "D9"}`}, nil, "booking_formats"},
		{"UnknownParent", []string{`{"scac": "BBBB", "name": "B", "parent_scac": "ZZZZ"}`}, nil, "parent_scac"},
		{"OwnParent", []string{`{"scac": "BBBB", "name": "B", "parent_scac": "BBBB"}`}, nil, "parent_scac"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := infer.New(mustCarriers(t, tt.lines...), tt.lessors)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New = %v, want an error about %q", err, tt.want)
			}
		})
	}
}

func TestNewEmptyRegistry(t *testing.T) {
	e, err := infer.New(mustCarriers(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Infer("MSCU1234566")
	if err != nil {
		t.Fatal(err)
	}
	if r.ShippingLine.Decision != infer.NoPrediction || r.ShippingLine.Candidates == nil {
		t.Errorf("empty registry: %+v", r.ShippingLine)
	}
}
