package boxwatch_test

import (
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
)

func TestLoadLessors(t *testing.T) {
	tests := []struct {
		name, doc string
		ok        bool
	}{
		{"OK", `{"lessors":[{"name":"Triton","container_prefixes":["TRLU","TCLU"]},{"name":"Textainer","note":"","container_prefixes":["TEMU"]}]}`, true},
		{"OK without prefixes", `{"lessors":[{"name":"Triton"}]}`, true},
		{"ErrMalformed", `[{"name":"Triton"}]`, false},
		{"ErrNoName", `{"lessors":[{"container_prefixes":["TRLU"]}]}`, false},
		{"ErrPrefix", `{"lessors":[{"name":"Triton","container_prefixes":["TRLX"]}]}`, false},
		{"ErrDuplicate", `{"lessors":[{"name":"Triton","container_prefixes":["TRLU"]},{"name":"Other","container_prefixes":["TRLU"]}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := boxwatch.LoadLessors(strings.NewReader(tt.doc))
			if (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok %v", err, tt.ok)
			}
		})
	}
}
