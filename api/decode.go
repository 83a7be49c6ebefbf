package api

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/boxwatch/boxwatch"
)

// Each request body is described once, by a Go struct type: the OpenAPI document gives the body
// the schema of its type (openapi.go), and decodeBody walks the parsed JSON along the same type.
// TestBodiesMatchTheirSchemas holds the two to each other.
//
// A body type with a Data field is a JSON:API document whose data is a resource object: Type, with
// the resource type the route takes as its enum, and Attributes; ID when the path names the
// resource (data.id, if sent, must match it) or the body must; Relationships when it may set some.
// A member the type does not describe is refused at its JSON pointer. Members are decoded in the
// order of their fields, so a body with several problems reports the first one in that order.
//
// Tags add to json (the member's name; omitempty: it may be left out), enum, format and doc:
//
//	blank:"…"      the message (code blank) for an empty string when minLength is 1, and, unless
//	               the member is omitempty, for the member left out or null: it is required.
//	invalid:"…"    the message for a value of the wrong type or out of its limits.
//	items:"…"      the message for an item of a list that is not of the list's type.
//	trim:"space"   a string is kept, and its length checked, without its surrounding spaces.
//	minLength:"1", maxLength (strings, in characters), minimum, maximum (whole numbers),
//	maxProperties (objects): limits.
//
// In messages, %s stands for the member's name.
//
// Null is taken as absent, so a member left out and a null one decode alike; an update that must
// tell them apart (null clears, absent keeps) describes the member as optional.

// decodeBody reads a request body into a new T, which describes it. id is the id of the resource
// the path names, "" when it names none.
func decodeBody[T any](body []byte, id string) (T, error) {
	var dst T
	doc, err := parseJSON(body)
	if err != nil {
		return dst, err
	}
	return dst, decodeDocument(doc, reflect.ValueOf(&dst).Elem(), id)
}

// ignored is a member JSON:API allows that boxwatch does not read, such as meta.
type ignored any

// documentMeta holds the top-level members JSON:API allows beside data.
type documentMeta struct {
	Meta    ignored `json:"meta,omitempty" doc:"Ignored."`
	JSONAPI ignored `json:"jsonapi,omitempty" doc:"Ignored."`
}

// resourceMeta holds the member JSON:API allows in a resource object beside its type, id,
// attributes and relationships.
type resourceMeta struct {
	Meta ignored `json:"meta,omitempty" doc:"Ignored."`
}

// optional is a member of an update that may be left out (Set false: the value stays), sent as
// null (Set, Value nil: the value is cleared) or sent with a value.
type optional[T any] struct {
	Set   bool
	Value *T
}

// sent records that the member is in the body and returns where its value goes, or the zero
// Value when it is null.
func (o *optional[T]) sent(null bool) reflect.Value {
	o.Set = true
	if null {
		return reflect.Value{}
	}
	o.Value = new(T)
	return reflect.ValueOf(o.Value).Elem()
}

func (*optional[T]) valueType() reflect.Type { return reflect.TypeFor[T]() }

// presence is implemented by optional.
type presence interface {
	sent(null bool) reflect.Value
	valueType() reflect.Type
}

// memberDecoder is implemented by the description of a member whose rules are too irregular for
// tags (relationships, initial_custom_fields): it decodes the member itself. raw is nil when the
// member is absent or null; present tells which.
type memberDecoder interface {
	decodeMember(raw any, present bool, pointer string) error
}

// refuser is implemented by the description of an object that refuses some members it does not
// describe with a reason of its own (fixed attributes of an update): they are checked first, in
// the order given; %s in the message stands for the member's name.
type refuser interface {
	refused() (names []string, message string)
}

// lenient is implemented by the description of an object whose other members are ignored rather
// than refused: JSON:API lets relationship objects and resource identifiers carry meta and links.
type lenient interface {
	ignoresOtherMembers()
}

// bodyExample is implemented by plain JSON bodies, to show what the body looks like when it is
// not an object.
type bodyExample interface {
	example() string
}

var (
	presenceType = reflect.TypeFor[presence]()
	ignoredType  = reflect.TypeFor[ignored]()
)

// member is a described member: a struct field and what its tags say.
type member struct {
	name     string
	index    []int
	optional bool // omitempty
	tag      reflect.StructTag
}

// members lists the members a struct type describes, those of embedded structs included.
func members(t reflect.Type) []member {
	if m, ok := memberCache.Load(t); ok {
		return m.([]member)
	}
	var out []member
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			for _, m := range members(f.Type) {
				m.index = append([]int{i}, m.index...)
				out = append(out, m)
			}
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, member{name: name, index: f.Index, optional: strings.Contains(opts, "omitempty"), tag: f.Tag})
	}
	memberCache.Store(t, out)
	return out
}

var memberCache sync.Map // reflect.Type → []member

func memberNamed(t reflect.Type, name string) (member, bool) {
	for _, m := range members(t) {
		if m.name == name {
			return m, true
		}
	}
	return member{}, false
}

// message fills a message template with a member's name.
func message(template, name string) string {
	if strings.Contains(template, "%s") {
		return fmt.Sprintf(template, name)
	}
	return template
}

func (m member) message(key, fallback string) string {
	if s := m.tag.Get(key); s != "" {
		return message(s, m.name)
	}
	return message(fallback, m.name)
}

// decodeDocument decodes a parsed body into v, a body type.
func decodeDocument(doc any, v reflect.Value, id string) error {
	data, ok := memberNamed(v.Type(), "data")
	if !ok {
		notObject := "The body must be a JSON object."
		if e, ok := v.Addr().Interface().(bodyExample); ok {
			notObject = fmt.Sprintf("The body must be a JSON object such as %s.", e.example())
		}
		return decodeObject(doc, v, "", notObject)
	}
	return decodeResourceDocument(doc, v, v.FieldByIndex(data.index), id)
}

// decodeResourceDocument decodes a JSON:API document whose primary data is a resource object.
func decodeResourceDocument(doc any, body, data reflect.Value, id string) error {
	dt := data.Type()
	typ, _ := memberNamed(dt, "type")
	wantType := typ.tag.Get("enum")
	idMember, hasID := memberNamed(dt, "id")
	rel, hasRel := memberNamed(dt, "relationships")
	attrs, _ := memberNamed(dt, "attributes")

	// What the body names (its relationships, the resource it edits) is read before the rest.
	top, _ := doc.(map[string]any)
	dataObj, _ := top["data"].(map[string]any)
	if hasRel {
		raw, present := dataObj["relationships"]
		if err := decodeMember(raw, present, data.FieldByIndex(rel.index), rel, "/data/relationships"); err != nil {
			return err
		}
	}
	if hasID && idMember.tag.Get("blank") != "" && dataObj != nil {
		s, ok := dataObj["id"].(string)
		switch {
		case dataObj["id"] == nil:
			return boxwatch.Invalid("/data/id", boxwatch.CodeBlank, "%s", idMember.message("blank", ""))
		case !ok || !boxwatch.IsUUID(s):
			return boxwatch.Invalid("/data/id", boxwatch.CodeInvalid, "%s", idMember.message("invalid", "%s must be an id."))
		}
		id = s
	}

	if top == nil {
		return boxwatch.Invalid("/", boxwatch.CodeInvalid, "The body must be a JSON object with a data member.")
	}
	for k := range top {
		if _, ok := memberNamed(body.Type(), k); !ok {
			return boxwatch.Invalid("/"+escapePointer(k), boxwatch.CodeInvalid, "Unknown top-level member '%s'.", k)
		}
	}
	if _, ok := top["data"]; !ok {
		return boxwatch.Invalid("/data", boxwatch.CodeBlank, "The body must have a data member.")
	}
	if dataObj == nil {
		return boxwatch.Invalid("/data", boxwatch.CodeInvalid, "data must be a resource object.")
	}
	for k := range dataObj {
		switch _, known := memberNamed(dt, k); {
		case k == "id" && !hasID:
			return boxwatch.Invalid("/data/id", boxwatch.CodeInvalid, "Ids are assigned by the server: leave data.id out.")
		case k == "relationships" && !hasRel:
			return boxwatch.Invalid("/data/relationships", boxwatch.CodeNotSupported, "Relationships cannot be set on a %s.", wantType)
		case !known:
			return boxwatch.Invalid("/data/"+escapePointer(k), boxwatch.CodeInvalid, "Unknown member '%s' in data.", k)
		}
	}
	switch t, ok := dataObj["type"].(string); {
	case dataObj["type"] == nil:
		return boxwatch.Invalid("/data/type", boxwatch.CodeBlank, "data.type can't be blank: it must be %q.", wantType)
	case !ok:
		return boxwatch.Invalid("/data/type", boxwatch.CodeInvalid, "data.type must be the string %q.", wantType)
	case t != wantType:
		return &httpError{status: http.StatusConflict, code: boxwatch.CodeTypeMismatch,
			detail: fmt.Sprintf("data.type is %q but this endpoint takes %q.", t, wantType)}
	default:
		data.FieldByIndex(typ.index).SetString(t)
	}
	if raw, present := dataObj["id"]; present && id != "" {
		if s, ok := raw.(string); !ok || !strings.EqualFold(s, id) {
			return &httpError{status: http.StatusConflict, code: boxwatch.CodeIDMismatch, detail: "data.id does not match the id in the path."}
		}
	}
	if hasID {
		data.FieldByIndex(idMember.index).SetString(id)
	}
	a, present := dataObj["attributes"]
	if !present {
		a = map[string]any{}
	}
	return decodeObject(a, data.FieldByIndex(attrs.index), "/data/attributes", "data.attributes must be an object.")
}

// decodeObject decodes a JSON object into v, a struct type describing it; notObject is the message
// for a value that is not an object.
func decodeObject(raw any, v reflect.Value, pointer, notObject string) error {
	obj, ok := raw.(map[string]any)
	if !ok {
		at := pointer
		if at == "" {
			at = "/"
		}
		return boxwatch.Invalid(at, boxwatch.CodeInvalid, "%s", notObject)
	}
	if r, ok := v.Addr().Interface().(refuser); ok {
		names, msg := r.refused()
		for _, name := range names {
			if _, ok := obj[name]; ok {
				return boxwatch.Invalid(pointer+"/"+name, boxwatch.CodeInvalid, "%s", message(msg, name))
			}
		}
	}
	if _, ok := v.Addr().Interface().(lenient); !ok {
		for k := range obj {
			if _, known := memberNamed(v.Type(), k); !known {
				return boxwatch.Invalid(pointer+"/"+escapePointer(k), boxwatch.CodeInvalid, "Unknown attribute '%s'.", k)
			}
		}
	}
	for _, m := range members(v.Type()) {
		raw, present := obj[m.name]
		if err := decodeMember(raw, present, v.FieldByIndex(m.index), m, pointer+"/"+m.name); err != nil {
			return err
		}
	}
	return nil
}

// decodeMember decodes one member's value into v, as m describes it.
func decodeMember(raw any, present bool, v reflect.Value, m member, pointer string) error {
	if v.Type() == ignoredType {
		return nil
	}
	if d, ok := v.Addr().Interface().(memberDecoder); ok {
		return d.decodeMember(raw, present, pointer)
	}
	if p, ok := v.Addr().Interface().(presence); ok {
		if !present {
			return nil
		}
		target := p.sent(raw == nil)
		if raw == nil {
			return nil
		}
		return decodeMember(raw, true, target, m, pointer)
	}
	if raw == nil {
		if m.tag.Get("blank") != "" && !m.optional {
			return boxwatch.Invalid(pointer, boxwatch.CodeBlank, "%s", m.message("blank", ""))
		}
		return nil
	}
	invalid := func(fallback string) error {
		return boxwatch.Invalid(pointer, boxwatch.CodeInvalid, "%s", m.message("invalid", fallback))
	}
	switch t := v.Type(); t.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(t.Elem()))
		return decodeMember(raw, true, v.Elem(), m, pointer)
	case reflect.String:
		s, ok := raw.(string)
		if !ok {
			return invalid("%s must be a string.")
		}
		if m.tag.Get("trim") == "space" {
			s = strings.TrimSpace(s)
		}
		if s == "" && m.tag.Get("minLength") == "1" {
			return boxwatch.Invalid(pointer, boxwatch.CodeBlank, "%s", m.message("blank", ""))
		}
		if max, err := strconv.Atoi(m.tag.Get("maxLength")); err == nil && utf8.RuneCountInString(s) > max {
			return boxwatch.Invalid(pointer, boxwatch.CodeTooLong, "%s is at most %d characters.", m.name, max)
		}
		v.SetString(s)
	case reflect.Bool:
		b, ok := raw.(bool)
		if !ok {
			return invalid("%s must be true or false.")
		}
		v.SetBool(b)
	case reflect.Int:
		n, ok := raw.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil || !m.within(float64(i)) {
			return invalid("%s must be a whole number.")
		}
		v.SetInt(i)
	case reflect.Interface:
		out, ok := plainJSON(raw)
		if !ok {
			return boxwatch.Invalid(pointer, boxwatch.CodeInvalid, "The number is out of range.")
		}
		if out != nil {
			v.Set(reflect.ValueOf(out))
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String || t.Elem().Kind() != reflect.Float64 {
			panic("api: no decoder for " + t.String())
		}
		obj, ok := raw.(map[string]any)
		if max, err := strconv.Atoi(m.tag.Get("maxProperties")); !ok || err == nil && len(obj) > max {
			return invalid("%s must be an object of numbers.")
		}
		out := reflect.MakeMapWithSize(t, len(obj))
		for k, e := range obj {
			n, ok := e.(json.Number)
			f, err := n.Float64()
			if !ok || err != nil || math.IsInf(f, 0) {
				return boxwatch.Invalid(pointer+"/"+escapePointer(k), boxwatch.CodeInvalid, "%s", m.message("items", "%s holds only numbers."))
			}
			out.SetMapIndex(reflect.ValueOf(k), reflect.ValueOf(f))
		}
		v.Set(out)
	case reflect.Slice:
		list, ok := raw.([]any)
		if t.Elem().Kind() == reflect.String {
			if !ok {
				return invalid("%s must be an array of strings.")
			}
			out := make([]string, len(list))
			for i, e := range list {
				s, ok := e.(string)
				if !ok {
					return boxwatch.Invalid(fmt.Sprintf("%s/%d", pointer, i), boxwatch.CodeInvalid, "%s", m.message("items", "%s must hold only strings."))
				}
				out[i] = s
			}
			v.Set(reflect.ValueOf(out))
			return nil
		}
		if !ok {
			return invalid("%s must be an array of objects.")
		}
		v.Set(reflect.MakeSlice(t, len(list), len(list)))
		for i, e := range list {
			if err := decodeObject(e, v.Index(i), fmt.Sprintf("%s/%d", pointer, i), m.message("items", "Each item of %s must be an object.")); err != nil {
				return err
			}
		}
	case reflect.Struct:
		return decodeObject(raw, v, pointer, m.message("invalid", "%s must be an object."))
	default:
		panic("api: no decoder for " + t.String())
	}
	return nil
}

// within reports whether n is within the member's minimum and maximum.
func (m member) within(n float64) bool {
	if min, err := strconv.ParseFloat(m.tag.Get("minimum"), 64); err == nil && n < min {
		return false
	}
	if max, err := strconv.ParseFloat(m.tag.Get("maximum"), 64); err == nil && n > max {
		return false
	}
	return true
}

// plainJSON turns the decoder's json.Number values into float64, as the domain reads values; ok
// is false when a number is out of range.
func plainJSON(v any) (out any, ok bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil && !math.IsInf(f, 0)
	case []any:
		list := make([]any, len(v))
		for i, item := range v {
			if list[i], ok = plainJSON(item); !ok {
				return nil, false
			}
		}
		return list, true
	}
	return v, true
}

// escapePointer escapes a member name for use in a JSON pointer (RFC 6901).
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
