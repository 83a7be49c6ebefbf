package dcsa

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/boxwatch/boxwatch"
)

// event is a wire event that passed parseEvents, with its times and empty indicator read.
type event struct {
	Event
	at      time.Time
	created time.Time
	empty   *bool
}

// parseEvents reads one page of GET /v2/events: a JSON array of events. Every event must have
// what the spec requires of all events (eventID, eventType, eventClassifierCode PLN, EST or ACT,
// eventDateTime, eventCreatedDateTime) and what boxwatch needs of its family: a transport event
// its transportEventTypeCode and a transportCall with an ID; an equipment event its
// equipmentEventTypeCode and equipmentReference; a shipment event its shipmentEventTypeCode,
// documentTypeCode and documentID. Type codes outside today's lists are kept: the lists grow
// between versions. Any failure is a *boxwatch.CarrierError with Reason unrecognized_response.
func parseEvents(data []byte) ([]event, error) {
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '[' {
		return nil, unrecognized(errors.New("the response is not a JSON array"))
	}
	var wire []Event
	if err := json.Unmarshal(data, &wire); err != nil {
		return nil, unrecognized(fmt.Errorf("decoding events: %w", err))
	}
	events := make([]event, len(wire))
	for i, w := range wire {
		e, err := check(w)
		if err != nil {
			return nil, unrecognized(fmt.Errorf("event %d (eventID %.60q): %w", i, w.EventID, err))
		}
		events[i] = e
	}
	return events, nil
}

func check(w Event) (event, error) {
	e := event{Event: w}
	var err error
	if w.EventID == "" {
		return e, errors.New("eventID is missing")
	}
	if e.created, err = parseTime(w.EventCreatedDateTime); err != nil {
		return e, fmt.Errorf("eventCreatedDateTime: %w", err)
	}
	if e.at, err = parseTime(w.EventDateTime); err != nil {
		return e, fmt.Errorf("eventDateTime: %w", err)
	}
	switch w.EventClassifierCode {
	case boxwatch.ClassifierPlanned, boxwatch.ClassifierEstimated, boxwatch.ClassifierActual:
	default:
		return e, fmt.Errorf("eventClassifierCode %.20q is not PLN, EST or ACT", w.EventClassifierCode)
	}
	if w.TransportCall != nil && w.TransportCall.TransportCallID == "" {
		return e, errors.New("transportCall has no transportCallID")
	}
	switch w.EventType {
	case boxwatch.EventTransport:
		switch {
		case w.TransportEventTypeCode == "":
			return e, errors.New("transportEventTypeCode is missing")
		case w.TransportCall == nil:
			return e, errors.New("a transport event has no transportCall")
		}
	case boxwatch.EventEquipment:
		switch {
		case w.EquipmentEventTypeCode == "":
			return e, errors.New("equipmentEventTypeCode is missing")
		case w.EquipmentReference == "":
			return e, errors.New("equipmentReference is missing")
		}
		switch w.EmptyIndicatorCode {
		case "EMPTY", "LADEN":
			empty := w.EmptyIndicatorCode == "EMPTY"
			e.empty = &empty
		case "":
		default:
			return e, fmt.Errorf("emptyIndicatorCode %.20q is not EMPTY or LADEN", w.EmptyIndicatorCode)
		}
	case boxwatch.EventShipment:
		switch {
		case w.ShipmentEventTypeCode == "":
			return e, errors.New("shipmentEventTypeCode is missing")
		case w.DocumentTypeCode == "" || w.DocumentID == "":
			return e, errors.New("documentTypeCode or documentID is missing")
		}
	case "":
		return e, errors.New("eventType is missing")
	default:
		return e, fmt.Errorf("eventType %.20q is not TRANSPORT, EQUIPMENT or SHIPMENT", w.EventType)
	}
	return e, nil
}

// parseTime reads an ISO 8601 date-time with an offset. The spec's own examples separate date
// and time with a space, so that is accepted as well as the T. A time without an offset cannot
// be placed and is refused.
func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("missing")
	}
	if len(s) > 10 && s[10] == ' ' {
		s = s[:10] + "T" + s[11:]
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%.40q is not a date-time with an offset", s)
	}
	return t, nil
}
