package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/data"
)

// TestBodiesMatchTheirSchemas holds every request body's decoder to the schema the OpenAPI
// document gives the body: a body built from the schema decodes, and the decoder refuses, at the
// member's JSON pointer, each member the schema does not describe, each value of a type it does not
// allow, and each value beyond a limit it states. Values the schema leaves open (custom field
// values, enums other than data.type, formats) are the domain's to check after decoding.
func TestBodiesMatchTheirSchemas(t *testing.T) {
	s := &server{cfg: Config{Carriers: data.Carriers(), Clock: boxwatch.SystemClock}}
	doc := s.openAPI()
	bodies := 0
	for _, rt := range s.routes() {
		if rt.body == nil {
			continue
		}
		bodies++
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			op := doc["paths"].(map[string]any)[rt.path].(map[string]any)[strings.ToLower(rt.method)].(map[string]any)
			sch := op["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
			id := ""
			if strings.Contains(rt.path, "{id}") {
				id = testID
			}
			bt := reflect.TypeOf(rt.body)
			decode := func(v any) error {
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				parsed, err := parseJSON(b)
				if err != nil {
					return err
				}
				return decodeDocument(parsed, reflect.New(bt).Elem(), id)
			}
			valid := sample(doc, sch)
			if err := decode(valid); err != nil {
				t.Fatalf("a body the schema describes is refused: %v\nbody: %s", err, mustJSON(valid))
			}
			for _, p := range probes(doc, sch, valid, "", func(v any) any { return v }) {
				err := decode(p.body)
				switch {
				case p.want == "" && err != nil:
					t.Errorf("%s: refused: %v\nbody: %s", p.what, err, mustJSON(p.body))
				case p.want != "" && !refusedAt(err, p.want):
					t.Errorf("%s: want a refusal at %s, got %v\nbody: %s", p.what, p.want, err, mustJSON(p.body))
				}
			}
		})
	}
	if bodies < 20 {
		t.Fatalf("only %d routes take a body", bodies)
	}
}

const testID = "01936e3a-0000-7000-8000-000000000000"

// refusedAt reports whether err is a client error about the member at pointer, or within it.
func refusedAt(err error, pointer string) bool {
	var he *httpError
	if errors.As(err, &he) {
		// data.type and data.id that do not match the route are conflicts, without a pointer.
		return he.status == http.StatusConflict && (pointer == "/data/type" || pointer == "/data/id")
	}
	for _, e := range boxwatch.AllErrors(err) {
		if e.Kind == boxwatch.KindInvalid && (e.Pointer == pointer || strings.HasPrefix(e.Pointer, pointer+"/")) {
			return true
		}
	}
	return false
}

// resolve follows a schema's $ref and merges allOf, as the document's generator writes them.
func resolve(doc, sch map[string]any) map[string]any {
	if ref, ok := sch["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		return resolve(doc, doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any))
	}
	if all, ok := sch["allOf"].([]any); ok {
		out := map[string]any{}
		for k, v := range resolve(doc, all[0].(map[string]any)) {
			out[k] = v
		}
		for k, v := range sch {
			if k != "allOf" {
				out[k] = v
			}
		}
		return out
	}
	return sch
}

// nonNull is a schema without its null alternative, and whether it had one.
func nonNull(doc, sch map[string]any) (map[string]any, bool) {
	sch = resolve(doc, sch)
	if alts, ok := sch["oneOf"].([]any); ok {
		return resolve(doc, alts[0].(map[string]any)), true
	}
	return sch, false
}

// sample builds a value the schema describes, with every member it lists.
func sample(doc, sch map[string]any) any {
	sch, _ = nonNull(doc, sch)
	if enum, ok := sch["enum"].([]any); ok {
		return enum[0]
	}
	if enum, ok := sch["enum"].([]string); ok {
		return enum[0]
	}
	switch sch["type"] {
	case "string":
		switch sch["format"] {
		case "uuid":
			return testID
		case "uri":
			return "https://example.com/hook"
		}
		return "x"
	case "integer":
		if min, ok := sch["minimum"].(int); ok {
			return min
		}
		return 1
	case "number":
		return 1.5
	case "boolean":
		return true
	case "array":
		return []any{sample(doc, sch["items"].(map[string]any))}
	case "object":
		out := map[string]any{}
		props, _ := sch["properties"].(map[string]any)
		for name, p := range props {
			out[name] = sample(doc, p.(map[string]any))
		}
		return out
	}
	return "x" // any value
}

type probe struct {
	what string
	body any
	// want is the pointer the decoder must refuse the body at; "" when it must accept it.
	want string
}

// probes lists, for the value v at pointer within a body that place rebuilds, the bodies that
// break what the schema says of it, and those that stretch it without breaking it.
func probes(doc, sch map[string]any, v any, pointer string, place func(any) any) []probe {
	s, nullable := nonNull(doc, sch)
	var out []probe
	add := func(what string, value any, want string) {
		out = append(out, probe{what: pointer + ": " + what, body: place(value), want: want})
	}
	if nullable {
		add("null", nil, "")
	}
	wrong := map[string]any{"string": 12, "integer": "x", "number": "x", "boolean": "x", "array": "x", "object": "x"}
	if w, ok := wrong[fmt.Sprint(s["type"])]; ok && pointer != "" {
		add("a value of another type", w, pointer)
	}
	switch s["type"] {
	case "string":
		if n, ok := s["maxLength"].(int); ok {
			add("too long", strings.Repeat("x", n+1), pointer)
		}
		if s["minLength"] == 1 {
			add("empty", "", pointer)
		}
		if pointer == "/data/type" {
			add("another type of resource", "other", pointer)
		}
	case "integer":
		if n, ok := s["minimum"].(int); ok {
			add("below the minimum", n-1, pointer)
		}
		if n, ok := s["maximum"].(int); ok {
			add("above the maximum", n+1, pointer)
		}
	case "array":
		list := v.([]any)
		for i, item := range list {
			at := func(x any) any {
				c := append([]any{}, list...)
				c[i] = x
				return place(c)
			}
			out = append(out, probes(doc, s["items"].(map[string]any), item, fmt.Sprintf("%s/%d", pointer, i), at)...)
		}
	case "object":
		obj := v.(map[string]any)
		with := func(k string, x any) any {
			c := map[string]any{}
			for name, val := range obj {
				c[name] = val
			}
			c[k] = x
			return place(c)
		}
		want := pointer + "/zz_unknown"
		if s["additionalProperties"] != false {
			want = ""
		}
		out = append(out, probe{what: pointer + ": an unknown member", body: with("zz_unknown", 1), want: want})
		props, _ := s["properties"].(map[string]any)
		if pointer == "/data" {
			// What a resource object may hold but this one does not: an id the server assigns,
			// relationships it cannot set.
			for _, k := range []string{"id", "relationships"} {
				if _, ok := props[k]; !ok {
					out = append(out, probe{what: "/data: " + k, body: with(k, map[string]any{}), want: "/data/" + k})
				}
			}
		}
		if n, ok := s["maxProperties"].(int); ok {
			big := map[string]any{}
			for i := range n + 1 {
				big[fmt.Sprint("k", i)] = 1
			}
			add("too many members", big, pointer)
		}
		for name, p := range props {
			if _, ok := obj[name]; !ok {
				continue
			}
			if name == "id" && strings.HasSuffix(pointer, "/entity/data") {
				// The entity's id is checked against the account's resources, at this pointer, by
				// the handler: any id the account does not have is refused alike.
				continue
			}
			out = append(out, probes(doc, p.(map[string]any), obj[name], pointer+"/"+name, func(x any) any { return with(name, x) })...)
		}
	}
	return out
}
