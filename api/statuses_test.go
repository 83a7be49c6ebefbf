package api_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch/api"
	"github.com/boxwatch/boxwatch/data"
)

// pathParam matches a path parameter, whatever its name: the reference and boxwatch name some
// differently ({definition_id} and {id}).
var pathParam = regexp.MustCompile(`\{[^}]+\}`)

// TestReferenceStatuses checks, for every operation of the reference document that boxwatch
// serves, that its route answers the success status the reference documents. It reads the
// statuses from api/testdata/t49/operations.json, which go run ./api/internal/t49schema writes from
// the reference, so a status the reference changes fails here. TestReferenceCompatibility checks
// the same statuses on the answers themselves.
func TestReferenceStatuses(t *testing.T) {
	reference := loadReference(t)
	routes := map[string][]api.RouteInfo{}
	for _, rt := range api.RouteTable(api.Config{Carriers: data.Carriers()}) {
		key := rt.Method + " " + pathParam.ReplaceAllString(rt.Path, "{}")
		routes[key] = append(routes[key], rt)
	}
	checked := 0
	for name, op := range reference.Operations {
		if outOfScope[name] != "" {
			continue
		}
		method, path, _ := strings.Cut(name, " ")
		key := method + " /v2" + pathParam.ReplaceAllString(path, "{}")
		served := routes[key]
		if len(served) == 0 {
			t.Errorf("%s: no route serves it (looked for %s)", name, key)
			continue
		}
		want, err := strconv.Atoi(op.Status)
		if err != nil {
			t.Fatalf("%s: reference status %q", name, op.Status)
		}
		for _, rt := range served {
			if rt.Status != want {
				t.Errorf("%s: %s %s answers %d, the reference documents %d", name, rt.Method, rt.Path, rt.Status, want)
			}
		}
		checked++
	}
	if checked < 60 {
		t.Fatalf("checked %d operations; the reference has more than 60 that boxwatch serves", checked)
	}
}
