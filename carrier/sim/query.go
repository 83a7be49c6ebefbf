package sim

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
)

// query is a parsed GET /v2/events request. A cursor carries the whole query, with the position
// of the page and the world it pages through (Anchor and AsOf), so that every page of one result
// comes from the same moment of the simulation.
type query struct {
	Bill      string `json:"td,omitempty"`
	Booking   string `json:"bk,omitempty"`
	Equipment string `json:"eq,omitempty"`

	EventTypes     []string `json:"et,omitempty"`
	ShipmentCodes  []string `json:"sc,omitempty"`
	TransportCodes []string `json:"tc,omitempty"`
	EquipmentCodes []string `json:"qc,omitempty"`
	DocumentTypes  []string `json:"dt,omitempty"`
	LOCODE         string   `json:"lo,omitempty"`
	VesselIMO      string   `json:"vi,omitempty"`
	Voyage         string   `json:"vo,omitempty"`
	Service        string   `json:"sv,omitempty"`
	CallID         string   `json:"ci,omitempty"`
	Created        []bound  `json:"cr,omitempty"`
	Sort           []order  `json:"so,omitempty"`

	Limit  int       `json:"l"`
	Offset int       `json:"o,omitempty"`
	Anchor time.Time `json:"a,omitzero"`
	AsOf   time.Time `json:"t,omitzero"`
}

// bound is a condition on eventCreatedDateTime.
type bound struct {
	Op string    `json:"op"` // gte, gt, lte, lt or eq
	T  time.Time `json:"t"`
}

// order is a sort key.
type order struct {
	Field string `json:"f"` // eventDateTime or eventCreatedDateTime
	Desc  bool   `json:"d,omitempty"`
}

const (
	defaultLimit = 100
	maxCursor    = 4096
	// maxElapsed caps simulated time after a first lookup: every journey has long ended by then,
	// and it keeps time arithmetic far from overflow.
	maxElapsed = 100 * 365 * day
)

// badRequest is a query the simulator refuses, with the message its 400 answer carries.
type badRequest string

func (e badRequest) Error() string { return string(e) }

func badf(format string, args ...any) error { return badRequest(fmt.Sprintf(format, args...)) }

var (
	eventTypes = []string{"SHIPMENT", "TRANSPORT", "EQUIPMENT"}
	// Track & Trace 2.2's list and CANC, the cancelled booking of DCSA's reference implementation.
	shipmentCodes  = []string{"RECE", "DRFT", "PENA", "PENU", "REJE", "APPR", "ISSU", "SURR", "SUBM", "VOID", "CONF", "REQS", "CMPL", "HOLD", "RELS", "CANC"}
	transportCodes = []string{"ARRI", "DEPA"}
	equipmentCodes = []string{"LOAD", "DISC", "GTIN", "GTOT", "STUF", "STRP", "PICK", "DROP", "INSP", "RSEA", "RMVD"}
	documentTypes  = []string{"CBR", "BKG", "SHI", "SRM", "TRD", "ARN", "VGM", "CAS", "CUS", "DGD", "OOG"}
	operators      = []string{"gte", "gt", "lte", "lt", "eq"}
)

// parseQuery reads the query parameters of GET /v2/events. With a cursor, the cursor stands for
// every other parameter. Parameters the simulator does not know are ignored.
func parseQuery(v url.Values) (query, error) {
	if c := v[dcsa.ParamCursor]; len(c) > 0 {
		return decodeCursor(c[0])
	}
	q := query{Limit: defaultLimit}
	one := func(name string) string {
		if vals := v[name]; len(vals) > 0 {
			return strings.TrimSpace(vals[0])
		}
		return ""
	}
	q.Bill = strings.ToUpper(one(dcsa.ParamTransportDocumentReference))
	q.Booking = strings.ToUpper(cmp.Or(one(dcsa.ParamCarrierBookingReference), one("bookingReference")))
	q.Equipment = strings.ToUpper(one(dcsa.ParamEquipmentReference))
	var err error
	list := func(name string, allowed []string) []string {
		raw := one(name)
		if raw == "" || err != nil {
			return nil
		}
		var out []string
		for _, s := range strings.Split(raw, ",") {
			s = strings.TrimSpace(s)
			if !slices.Contains(allowed, s) {
				err = badf("%s: %q is not one of %s", name, s, strings.Join(allowed, ", "))
				return nil
			}
			out = append(out, s)
		}
		return out
	}
	q.EventTypes = list("eventType", eventTypes)
	q.ShipmentCodes = list("shipmentEventTypeCode", shipmentCodes)
	q.TransportCodes = list("transportEventTypeCode", transportCodes)
	q.EquipmentCodes = list("equipmentEventTypeCode", equipmentCodes)
	q.DocumentTypes = list("documentTypeCode", documentTypes)
	if err != nil {
		return query{}, err
	}
	q.LOCODE = strings.ToUpper(one("UNLocationCode"))
	q.VesselIMO = one("vesselIMONumber")
	q.Voyage = cmp.Or(one("exportVoyageNumber"), one("carrierVoyageNumber"))
	q.Service = one("carrierServiceCode")
	q.CallID = one("transportCallID")
	if q.Created, err = parseCreated(v); err != nil {
		return query{}, err
	}
	if q.Sort, err = parseSort(one("sort")); err != nil {
		return query{}, err
	}
	if raw := one(dcsa.ParamLimit); raw != "" {
		n, err := strconv.ParseInt(raw, 10, 32)
		if err != nil {
			return query{}, badf("limit: %q is not a whole number", raw)
		}
		q.Limit = int(n)
	}
	return q, q.validate()
}

// parseCreated reads the eventCreatedDateTime conditions in both forms carriers use: the
// operator in the parameter name (DCSA: eventCreatedDateTime:gte=…) or in the value (Maersk:
// eventCreatedDateTime=gte:…). Without an operator the time must match exactly.
func parseCreated(v url.Values) ([]bound, error) {
	const name = "eventCreatedDateTime"
	var out []bound
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		op, named := strings.CutPrefix(k, name)
		if !named {
			continue
		}
		switch {
		case op == "":
		case strings.HasPrefix(op, ":") && slices.Contains(operators, op[1:]):
			op = op[1:]
		default:
			return nil, badf("%s: unknown operator in parameter %q (use gte, gt, lte, lt or eq)", name, k)
		}
		for _, raw := range v[k] {
			valueOp := op
			if before, after, ok := strings.Cut(raw, ":"); ok && op == "" && slices.Contains(operators, before) {
				valueOp, raw = before, after
			}
			t, err := parseTime(raw)
			if err != nil {
				return nil, badf("%s: %q is not an ISO 8601 date-time", name, raw)
			}
			out = append(out, bound{Op: cmp.Or(valueOp, "eq"), T: t})
		}
	}
	return out, nil
}

// parseTime reads an RFC 3339 date-time, or a date (midnight UTC). A space where the offset's
// plus sign should be is taken for one: an unencoded '+' in a query string arrives as a space.
func parseTime(s string) (time.Time, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), " ", "+")
	if len(s) == len("2006-01-02") {
		return time.Parse(time.DateOnly, s)
	}
	return time.Parse(time.RFC3339Nano, s)
}

func parseSort(raw string) ([]order, error) {
	if raw == "" {
		return nil, nil
	}
	var out []order
	for _, part := range strings.Split(raw, ",") {
		field, dir, _ := strings.Cut(strings.TrimSpace(part), ":")
		if field != "eventDateTime" && field != "eventCreatedDateTime" {
			return nil, badf("sort: cannot sort by %q (use eventDateTime or eventCreatedDateTime)", field)
		}
		switch strings.ToUpper(dir) {
		case "", "ASC":
			out = append(out, order{Field: field})
		case "DESC":
			out = append(out, order{Field: field, Desc: true})
		default:
			return nil, badf("sort: %q is not ASC or DESC", dir)
		}
	}
	return out, nil
}

// validate checks what parsing and cursors have in common, so that a hand-made cursor cannot
// carry what the parameters may not.
func (q query) validate() error {
	for _, r := range []struct {
		name, value string
		max         int
	}{
		{dcsa.ParamTransportDocumentReference, q.Bill, 20},
		{dcsa.ParamCarrierBookingReference, q.Booking, 35},
		{dcsa.ParamEquipmentReference, q.Equipment, 15},
		{"exportVoyageNumber", q.Voyage, 50},
		{"carrierServiceCode", q.Service, 5},
		{"transportCallID", q.CallID, 100},
	} {
		if len(r.value) > r.max {
			return badf("%s: longer than %d characters", r.name, r.max)
		}
		if strings.ContainsFunc(r.value, func(c rune) bool { return c < ' ' || c > '~' }) {
			return badf("%s: only printable ASCII characters are allowed", r.name)
		}
	}
	for _, r := range []struct{ name, value string }{
		{dcsa.ParamTransportDocumentReference, q.Bill},
		{dcsa.ParamCarrierBookingReference, q.Booking},
		{dcsa.ParamEquipmentReference, q.Equipment},
	} {
		if strings.ContainsFunc(r.value, func(c rune) bool { return !isReferenceChar(c) }) {
			return badf("%s: %q may hold only letters, digits and - _ . /", r.name, r.value)
		}
	}
	if q.Bill == "" && q.Booking == "" && q.Equipment == "" {
		return badf("one of %s, %s or %s is required", dcsa.ParamTransportDocumentReference,
			dcsa.ParamCarrierBookingReference, dcsa.ParamEquipmentReference)
	}
	if q.LOCODE != "" && !boxwatch.IsLOCODE(q.LOCODE) {
		return badf("UNLocationCode: %q is not a UN/LOCODE", q.LOCODE)
	}
	if q.VesselIMO != "" && (len(q.VesselIMO) != 7 || !boxwatch.IsDigits(q.VesselIMO)) {
		return badf("vesselIMONumber: %q is not a seven-digit IMO number", q.VesselIMO)
	}
	for _, lists := range []struct {
		values, allowed []string
	}{{q.EventTypes, eventTypes}, {q.ShipmentCodes, shipmentCodes}, {q.TransportCodes, transportCodes},
		{q.EquipmentCodes, equipmentCodes}, {q.DocumentTypes, documentTypes}} {
		for _, v := range lists.values {
			if !slices.Contains(lists.allowed, v) {
				return badf("%q is not a known code", v)
			}
		}
	}
	for _, b := range q.Created {
		if !slices.Contains(operators, b.Op) {
			return badf("eventCreatedDateTime: unknown operator %q", b.Op)
		}
	}
	for _, o := range q.Sort {
		if o.Field != "eventDateTime" && o.Field != "eventCreatedDateTime" {
			return badf("sort: cannot sort by %q", o.Field)
		}
	}
	if q.Limit < 1 || q.Limit > math.MaxInt32 {
		return badf("limit: must be from 1 to %d", math.MaxInt32)
	}
	if q.Offset < 0 || q.Offset > math.MaxInt32 {
		return badf("cursor: offset out of range")
	}
	if !q.AsOf.IsZero() {
		if y := q.Anchor.Year(); y < 1900 || y > 3000 || q.AsOf.Before(q.Anchor) || q.AsOf.Sub(q.Anchor) > maxElapsed {
			return badf("cursor: out of range")
		}
	}
	return nil
}

func isReferenceChar(c rune) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./", c)
}

func (q query) cursor() string {
	raw, _ := json.Marshal(q) // a query always encodes
	return base64.RawURLEncoding.EncodeToString(raw)
}

func decodeCursor(s string) (query, error) {
	if len(s) > maxCursor {
		return query{}, badf("cursor: too long")
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return query{}, badf("cursor: not a cursor this server made")
	}
	var q query
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil || dec.More() {
		return query{}, badf("cursor: not a cursor this server made")
	}
	return q, q.validate()
}

// match reports whether an event passes the query's filters. A filter on a code of one event
// type passes only events of that type, so contradictory filters pass nothing, as DCSA says.
func (q query) match(e event) bool {
	if len(q.EventTypes) > 0 && !slices.Contains(q.EventTypes, e.EventType) {
		return false
	}
	codeFilters := []struct {
		family string
		codes  []string
		code   string
	}{
		{"SHIPMENT", q.ShipmentCodes, e.ShipmentEventTypeCode},
		{"SHIPMENT", q.DocumentTypes, e.DocumentTypeCode},
		{"TRANSPORT", q.TransportCodes, e.TransportEventTypeCode},
		{"EQUIPMENT", q.EquipmentCodes, e.EquipmentEventTypeCode},
	}
	for _, f := range codeFilters {
		if len(f.codes) > 0 && (e.EventType != f.family || !slices.Contains(f.codes, f.code)) {
			return false
		}
	}
	if q.Equipment != "" && e.EventType == "EQUIPMENT" && e.EquipmentReference != q.Equipment {
		return false
	}
	tc := e.TransportCall
	if tc == nil {
		tc = &dcsa.TransportCall{}
	}
	vessel := ""
	if tc.Vessel != nil {
		vessel = tc.Vessel.VesselIMONumber
	}
	location := tc.UNLocationCode
	if e.EventLocation != nil {
		location = e.EventLocation.UNLocationCode
	}
	for _, f := range []struct{ want, have string }{
		{q.LOCODE, location}, {q.VesselIMO, vessel}, {q.Voyage, tc.ExportVoyageNumber},
		{q.Service, tc.CarrierServiceCode}, {q.CallID, tc.TransportCallID},
	} {
		if f.want != "" && f.want != f.have {
			return false
		}
	}
	for _, b := range q.Created {
		if !b.holds(e.created) {
			return false
		}
	}
	return true
}

func (b bound) holds(t time.Time) bool {
	c := t.Compare(b.T)
	switch b.Op {
	case "gte":
		return c >= 0
	case "gt":
		return c > 0
	case "lte":
		return c <= 0
	case "lt":
		return c < 0
	}
	return c == 0
}

// sort orders events by the query's keys, then by event time, record time and ID, so that pages
// never shuffle.
func (q query) sort(events []event) {
	slices.SortFunc(events, func(a, b event) int {
		for _, o := range q.Sort {
			x, y := a.at, b.at
			if o.Field == "eventCreatedDateTime" {
				x, y = a.created, b.created
			}
			c := x.Compare(y)
			if o.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return cmp.Or(a.at.Compare(b.at), a.created.Compare(b.created), strings.Compare(a.EventID, b.EventID))
	})
}
