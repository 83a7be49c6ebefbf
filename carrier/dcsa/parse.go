package dcsa

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

// event is a wire event that passed check, with its times and empty indicator read.
type event struct {
	Event
	at time.Time
	// created is eventCreatedDateTime, bounded by the time of the answer; trusted says whether
	// it can rank the event against others (see check).
	created time.Time
	trusted bool
	// order is the event's position in the whole answer, every page counted: of two records
	// that cannot be told apart by creation, the later one is the newer.
	order int
	empty *bool
}

// page is one page of an answer, read.
type page struct {
	events     []event
	unreadable []boxwatch.UnreadableEvent
	// retracted are the eventIDs the carrier withdraws (Track & Trace 3.0 beta).
	retracted []string
}

// errIgnored marks a record that is read and deliberately left out: an event family boxwatch
// has no use for (3.0's REEFER and IOT).
var errIgnored = errors.New("ignored")

// parsePage reads one page of events answered at answeredAt. The page is a JSON array of events
// (Track & Trace 2.2, or 3.0 beta records) or an object whose "events" member is that array
// (Maersk's 2.2, the released 3.0); each element may be in any of the three layouts. A page that
// is not one of those shapes fails with a *boxwatch.CarrierError, unrecognized_response. A record
// that cannot be read fails only itself: it is listed in unreadable with the reason, and the
// page goes on.
//
// A readable event has an eventType (TRANSPORT, EQUIPMENT or SHIPMENT, in any letter case), an
// eventClassifierCode (PLN, EST or ACT), an eventDateTime, and what boxwatch needs of its family:
// a transport event its transportEventTypeCode and a transportCall; an equipment event its
// equipmentEventTypeCode; a shipment event its shipmentEventTypeCode, documentTypeCode and
// documentID. The deprecated eventTypeCode stands in for a missing type-specific code. Members
// the spec requires but boxwatch can do without are optional: an event without an eventID is
// named by its content; a call without a transportCallID by its place, mode, voyage and vessel;
// an equipment event without equipmentReference concerns no container in particular. Type
// codes outside today's lists are kept: the lists grow between versions.
func parsePage(data []byte, answeredAt time.Time) (page, error) {
	records, err := splitRecords(data)
	if err != nil {
		return page{}, unrecognized(err)
	}
	var p page
	for i, raw := range records {
		e, retracted, err := parseRecord(raw, answeredAt)
		switch {
		case errors.Is(err, errIgnored):
		case err != nil:
			p.unreadable = append(p.unreadable, boxwatch.UnreadableEvent{Index: i, ID: e.EventID, Reason: err.Error()})
		case retracted != "":
			p.retracted = append(p.retracted, retracted)
		default:
			p.events = append(p.events, e)
		}
	}
	return p, nil
}

// splitRecords returns the elements of a page's event array.
func splitRecords(data []byte) ([]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var wrapper map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &wrapper); err != nil {
			return nil, fmt.Errorf("decoding the answer: %w", err)
		}
		inner, ok := wrapper["events"]
		if !ok {
			return nil, errors.New(`the response is an object without an "events" member`)
		}
		trimmed = bytes.TrimSpace(inner)
	}
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return nil, errors.New("the response is not a JSON array of events")
	}
	var records []json.RawMessage
	if err := json.Unmarshal(trimmed, &records); err != nil {
		return nil, fmt.Errorf("decoding events: %w", err)
	}
	return records, nil
}

// layout tells the three record layouts apart by the members only each of them has.
type layout struct {
	Metadata            json.RawMessage `json:"metadata"`
	EventClassification json.RawMessage `json:"eventClassification"`
}

// parseRecord reads one record. It returns the event, or the eventID a 3.0 beta record retracts.
// On failure the event carries whatever id could be read.
func parseRecord(raw json.RawMessage, answeredAt time.Time) (e event, retracted string, err error) {
	var shape layout
	if err := json.Unmarshal(raw, &shape); err != nil {
		return e, "", fmt.Errorf("not an event object: %w", err)
	}
	var w Event
	switch {
	case shape.Metadata != nil:
		var r RecordV3Beta
		err = json.Unmarshal(raw, &r)
		w = r.asEvent()
		if err == nil && r.Payload == nil {
			if r.Metadata != nil && r.Metadata.RetractedEventID != "" {
				return event{Event: w}, r.Metadata.RetractedEventID, nil
			}
			return event{Event: w}, "", errors.New("a record with neither payload nor retractedEventID")
		}
	case shape.EventClassification != nil:
		var v3 EventV3
		err = json.Unmarshal(raw, &v3)
		w = v3.asEvent()
	default:
		err = json.Unmarshal(raw, &w)
	}
	if err != nil {
		return event{Event: w}, "", fmt.Errorf("decoding: %w", err)
	}
	if w.EventID == "" {
		w.EventID = contentID(raw)
	}
	e, err = check(w, answeredAt)
	return e, "", err
}

// contentID names an event that has no eventID by its content, so that a record repeated word
// for word is still one event.
func contentID(raw []byte) string {
	var compact bytes.Buffer
	if json.Compact(&compact, raw) != nil {
		compact.Write(raw)
	}
	sum := sha256.Sum256(compact.Bytes())
	return "content:" + hex.EncodeToString(sum[:12])
}

// upper normalises a code: carriers write "Laden" and " ACT".
func upper(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

// check reads the times and codes of w; see parsePage for what it requires. Codes are
// normalised to upper case. eventCreatedDateTime may be missing; it is bounded by answeredAt,
// and it is not trusted to rank the event when it lies after the answer, or when a plan or
// estimate claims to have been made at the very time it forecasts (MSC copies eventDateTime).
func check(w Event, answeredAt time.Time) (event, error) {
	w.EventType, w.EventClassifierCode = upper(w.EventType), upper(w.EventClassifierCode)
	w.TransportEventTypeCode, w.EquipmentEventTypeCode, w.ShipmentEventTypeCode = upper(w.TransportEventTypeCode), upper(w.EquipmentEventTypeCode), upper(w.ShipmentEventTypeCode)
	w.EventTypeCode, w.EmptyIndicatorCode, w.DocumentTypeCode = upper(w.EventTypeCode), upper(w.EmptyIndicatorCode), upper(w.DocumentTypeCode)
	if l := w.EventLocation; l != nil {
		l.UNLocationCode, l.FacilityCodeListProvider = upper(l.UNLocationCode), upper(l.FacilityCodeListProvider)
	}
	if tc := w.TransportCall; tc != nil {
		tc.UNLocationCode, tc.ModeOfTransport, tc.FacilityTypeCode = upper(tc.UNLocationCode), upper(tc.ModeOfTransport), upper(tc.FacilityTypeCode)
		tc.FacilityCodeListProvider = upper(tc.FacilityCodeListProvider)
		if l := tc.Location; l != nil {
			l.UNLocationCode, l.FacilityCodeListProvider = upper(l.UNLocationCode), upper(l.FacilityCodeListProvider)
		}
		if tc.ExportVoyageNumber == "" && tc.ImportVoyageNumber == "" {
			tc.ExportVoyageNumber, tc.ImportVoyageNumber = tc.CarrierVoyageNumber, tc.CarrierVoyageNumber
		}
		if tc.TransportCallID == "" {
			tc.TransportCallID = derivedCallID(tc)
		}
	}
	e := event{Event: w}
	var err error
	if e.at, err = parseTime(w.EventDateTime); err != nil {
		return e, fmt.Errorf("eventDateTime: %w", err)
	}
	if w.EventCreatedDateTime != "" {
		if e.created, err = parseTime(w.EventCreatedDateTime); err != nil {
			return e, fmt.Errorf("eventCreatedDateTime: %w", err)
		}
		e.trusted = !e.created.After(answeredAt) && (w.EventClassifierCode == boxwatch.ClassifierActual || !e.created.Equal(e.at))
		if e.created.After(answeredAt) {
			e.created = answeredAt
		}
	}
	switch w.EventClassifierCode {
	case boxwatch.ClassifierPlanned, boxwatch.ClassifierEstimated, boxwatch.ClassifierActual:
	default:
		return e, fmt.Errorf("eventClassifierCode %.20q is not PLN, EST or ACT", w.EventClassifierCode)
	}
	code := func(specific *string) string {
		if *specific == "" {
			*specific = e.EventTypeCode
		}
		return *specific
	}
	switch e.EventType {
	case boxwatch.EventTransport:
		switch {
		case code(&e.TransportEventTypeCode) == "":
			return e, errors.New("transportEventTypeCode is missing")
		case e.TransportCall == nil:
			return e, errors.New("a transport event has no transportCall")
		}
	case boxwatch.EventEquipment:
		if code(&e.EquipmentEventTypeCode) == "" {
			return e, errors.New("equipmentEventTypeCode is missing")
		}
		e.EquipmentReference = strings.TrimSpace(e.EquipmentReference)
		switch e.EmptyIndicatorCode {
		case "EMPTY", "LADEN":
			empty := e.EmptyIndicatorCode == "EMPTY"
			e.empty = &empty
		case "":
		default:
			return e, fmt.Errorf("emptyIndicatorCode %.20q is not EMPTY or LADEN", w.EmptyIndicatorCode)
		}
	case boxwatch.EventShipment:
		switch {
		case code(&e.ShipmentEventTypeCode) == "":
			return e, errors.New("shipmentEventTypeCode is missing")
		case e.DocumentTypeCode == "" || e.DocumentID == "":
			return e, errors.New("documentTypeCode or documentID is missing")
		}
	case "REEFER", "IOT":
		return e, errIgnored
	case "":
		return e, errors.New("eventType is missing")
	default:
		return e, fmt.Errorf("eventType %.20q is not TRANSPORT, EQUIPMENT or SHIPMENT", w.EventType)
	}
	return e, nil
}

// derivedCallID names a call that has no transportCallID by what identifies it: its place,
// mode, voyages, vessel and sequence number.
func derivedCallID(tc *TransportCall) string {
	imo := ""
	if tc.Vessel != nil {
		imo = tc.Vessel.VesselIMONumber
	}
	seq := ""
	if tc.TransportCallSequenceNumber != nil {
		seq = fmt.Sprint(*tc.TransportCallSequenceNumber)
	}
	return strings.Join([]string{"call", callLOCODE(tc), tc.FacilityCode, tc.ModeOfTransport, tc.ExportVoyageNumber, tc.ImportVoyageNumber, imo, seq}, ":")
}

// timeLayouts are the date-times accepted, after a space between date and time (as the spec's
// own examples write it) is made a T: RFC 3339, with or without seconds and fractions, with the
// offset written +01:00, +0100 or Z.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04Z0700",
}

// parseTime reads an ISO 8601 date-time with an offset. A time without an offset cannot be
// placed and is refused; the error quotes what the carrier sent.
func parseTime(original string) (time.Time, error) {
	if original == "" {
		return time.Time{}, errors.New("missing")
	}
	s := strings.TrimSpace(original)
	if len(s) > 10 && s[10] == ' ' {
		s = s[:10] + "T" + s[11:]
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%.60q is not a date-time with an offset", original)
}
