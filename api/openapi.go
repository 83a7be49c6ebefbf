package api

import (
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/boxwatch/boxwatch/infer"
)

// openAPI builds the OpenAPI 3.1 document from the route table and the Go types the handlers
// encode, so the document describes what the code does.
func (s *server) openAPI() map[string]any {
	g := &schemaGen{components: map[string]any{}, types: map[string]reflect.Type{}}
	paths := map[string]any{}
	for _, rt := range s.routes() {
		item, _ := paths[rt.path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[rt.path] = item
		}
		item[strings.ToLower(rt.method)] = g.operation(rt)
	}
	g.schema(reflect.TypeOf(errorDocument{})) // registers the error_document component
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "boxwatch API",
			"version": "2",
			"description": "Container tracking, wire-compatible with the Terminal49 v2 API. " +
				"Bodies are JSON:API (application/vnd.api+json; application/json is accepted too). " +
				"Unknown query parameters are rejected with 400 rather than ignored.",
		},
		"servers": []any{map[string]any{"url": "/"}},
		"paths":   paths,
		"components": map[string]any{
			"schemas": g.components,
			"securitySchemes": map[string]any{
				"token": map[string]any{
					"type": "apiKey", "in": "header", "name": "Authorization",
					"description": "Send `Authorization: Token <API key>`.",
				},
			},
		},
	}
}

func (s *server) handleOpenAPI() handlerFunc {
	doc := sync.OnceValues(func() ([]byte, error) { return json.MarshalIndent(s.openAPI(), "", "  ") })
	return func(w http.ResponseWriter, r *http.Request) error {
		b, err := doc()
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
		return nil
	}
}

var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

func operationID(rt route) string {
	p := strings.Trim(pathParam.ReplaceAllString(rt.path, "by_$1"), "/")
	return strings.ToLower(rt.method) + "_" + strings.NewReplacer("/", "_", ".", "_").Replace(p)
}

func (g *schemaGen) operation(rt route) map[string]any {
	op := map[string]any{
		"operationId": operationID(rt),
		"summary":     rt.summary,
		"description": rt.doc,
		"tags":        []string{rt.tag},
	}
	var params []any
	for _, m := range pathParam.FindAllStringSubmatch(rt.path, -1) {
		params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
	}
	for _, p := range rt.params {
		sch := map[string]any{"type": p.typ}
		if p.format != "" {
			sch["format"] = p.format
		}
		if p.enum != nil {
			sch["enum"] = p.enum
		}
		params = append(params, map[string]any{"name": p.name, "in": "query", "description": p.doc, "schema": sch})
	}
	if params != nil {
		op["parameters"] = params
	}
	if rt.auth {
		op["security"] = []any{map[string]any{"token": []string{}}}
	} else {
		op["security"] = []any{}
	}
	if rt.body != nil {
		op["requestBody"] = map[string]any{
			"required": true,
			"content": map[string]any{
				MediaType:          map[string]any{"schema": g.schema(reflect.TypeOf(rt.body))},
				"application/json": map[string]any{"schema": g.schema(reflect.TypeOf(rt.body))},
			},
		}
	}
	mediaType := MediaType
	switch rt.path {
	case "/v2/openapi.json", "/v2/webhooks/trigger", "/v2/webhooks/ips", "/v2/containers/{id}/map_geojson", "/v2/containers/{id}/refresh":
		mediaType = "application/json"
	}
	success := map[string]any{"description": http.StatusText(rt.status)}
	if rt.resp != nil {
		success["content"] = map[string]any{mediaType: map[string]any{"schema": g.schema(reflect.TypeOf(rt.resp))}}
	}
	responses := map[string]any{strconv.Itoa(rt.status): success}
	errs := append([]int{}, rt.errors...)
	errs = append(errs, 405, 500)
	if rt.feature != "" {
		errs = append(errs, 403)
	}
	if rt.auth && !slices.Contains(errs, 503) {
		errs = append(errs, 503) // every authenticated request reads the database
	}
	sort.Ints(errs)
	for _, code := range errs {
		resp := map[string]any{
			"description": http.StatusText(code),
			"content":     map[string]any{MediaType: map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/error_document"}}},
		}
		if _, health := rt.resp.(healthDocument); code == 503 && health {
			resp["content"] = map[string]any{MediaType: map[string]any{"schema": g.schema(reflect.TypeOf(healthDocument{}))}}
		}
		switch code {
		case 403:
			if rt.feature != "" {
				resp["description"] = "The account lacks the " + string(rt.feature) + " feature: " + rt.feature.DisabledMessage() + "."
			}
		case 429, 503:
			resp["headers"] = map[string]any{"Retry-After": map[string]any{
				"description": "Whole seconds to wait before trying again.", "schema": map[string]any{"type": "integer", "minimum": 1}}}
		case 405:
			resp["headers"] = map[string]any{"Allow": map[string]any{
				"description": "The methods the path accepts.", "schema": map[string]any{"type": "string"}}}
		}
		responses[strconv.Itoa(code)] = resp
	}
	op["responses"] = responses
	return op
}

// schemaGen turns Go types into JSON Schema (the OpenAPI 3.1 dialect). Named non-generic structs
// become components; struct tags add what Go types cannot say: enum, format, doc, and the limits
// request bodies state (see decode.go).
type schemaGen struct {
	components map[string]any
	types      map[string]reflect.Type // the type of each component
}

// schemaOverrides describe types whose JSON form is not their Go shape.
var schemaOverrides = map[reflect.Type]func() map[string]any{
	// A custom field value: a string, number, boolean, list of strings, or null.
	reflect.TypeFor[json.RawMessage](): func() map[string]any {
		return map[string]any{"type": []any{"string", "number", "boolean", "array", "null"}, "items": map[string]any{"type": "string"}}
	},
	reflect.TypeFor[infer.NullBool]():   func() map[string]any { return map[string]any{"type": []any{"boolean", "null"}} },
	reflect.TypeFor[infer.NullString](): func() map[string]any { return map[string]any{"type": []any{"string", "null"}} },
	reflect.TypeFor[infer.NumberType](): func() map[string]any {
		return map[string]any{"type": "string", "enum": []string{string(infer.Container), string(infer.BillOfLading), string(infer.Booking)}}
	},
	reflect.TypeFor[infer.Decision](): func() map[string]any {
		return map[string]any{"type": "string", "enum": []string{string(infer.AutoSelect), string(infer.NeedsConfirmation), string(infer.NoPrediction)}}
	},
}

func (g *schemaGen) schema(t reflect.Type) map[string]any {
	if o, ok := schemaOverrides[t]; ok {
		return o()
	}
	if reflect.PointerTo(t).Implements(presenceType) {
		// An optional member of an update: null is one of its values.
		inner := g.schema(reflect.New(t).Interface().(presence).valueType())
		if len(inner) == 0 {
			return inner
		}
		return map[string]any{"oneOf": []any{inner, map[string]any{"type": "null"}}}
	}
	switch t.Kind() {
	case reflect.Pointer:
		inner := g.schema(t.Elem())
		return map[string]any{"oneOf": []any{inner, map[string]any{"type": "null"}}}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int32, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object"}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		name := componentName(t)
		if name == "" {
			return g.object(t)
		}
		if other, ok := g.types[name]; ok && other != t {
			panic("api: " + t.String() + " and " + other.String() + " would share the component " + name)
		}
		g.types[name] = t
		if _, done := g.components[name]; !done {
			g.components[name] = map[string]any{} // placeholder for recursive types
			g.components[name] = g.object(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	panic("api: no schema for " + t.String())
}

func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, m := range members(t) {
		sch := g.schema(t.FieldByIndex(m.index).Type)
		if enum := m.tag.Get("enum"); enum != "" {
			sch = withKey(sch, "enum", strings.Split(enum, ","))
		}
		if format := m.tag.Get("format"); format != "" {
			sch = withKey(sch, "format", format)
		}
		for _, limit := range []string{"minLength", "maxLength", "minimum", "maximum", "maxProperties"} {
			if n, err := strconv.Atoi(m.tag.Get(limit)); err == nil {
				sch = withKey(sch, limit, n)
			}
		}
		if doc := m.tag.Get("doc"); doc != "" {
			sch = withKey(sch, "description", doc)
		}
		props[m.name] = sch
		if !m.optional {
			required = append(required, m.name)
		}
	}
	obj := map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[lenient]()) {
		delete(obj, "additionalProperties")
	}
	return obj
}

// withKey adds a keyword to a schema; on a nullable schema it goes to the non-null branch.
func withKey(sch map[string]any, key string, v any) map[string]any {
	if alts, ok := sch["oneOf"].([]any); ok {
		alts[0] = withKey(alts[0].(map[string]any), key, v)
		return sch
	}
	if _, isRef := sch["$ref"]; isRef {
		return map[string]any{"allOf": []any{sch}, key: v}
	}
	sch[key] = v
	return sch
}

// componentName names a struct's component: its Go name in snake case, or "" for anonymous and
// generic types, which are written inline.
func componentName(t reflect.Type) string {
	n := t.Name()
	if n == "" || strings.Contains(n, "[") {
		return ""
	}
	var b strings.Builder
	for i, c := range n {
		if c >= 'A' && c <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}
