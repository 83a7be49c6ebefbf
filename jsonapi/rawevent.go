package jsonapi

import (
	"strings"
	"time"

	"github.com/boxwatch/boxwatch"
)

// Raw events are the carrier's own records for a container, as its last answer gave them:
// estimated and planned ones included, and each with the carrier's code spelled out.

// RawEventAttributes is the wire form of a carrier's record.
type RawEventAttributes struct {
	Event          *string `json:"event" doc:"The milestone the record stands for, null when it stands for none."`
	OriginalEvent  string  `json:"original_event" doc:"The carrier's record: its DCSA event type, code and classifier."`
	Timestamp      string  `json:"timestamp" format:"date-time"`
	Estimated      bool    `json:"estimated" doc:"True for an estimated or planned time, false for one that happened."`
	ActualOn       *string `json:"actual_on" format:"date" doc:"Null: carriers give times, not bare dates."`
	EstimatedOn    *string `json:"estimated_on" format:"date" doc:"Null: carriers give times, not bare dates."`
	ActualAt       *string `json:"actual_at" format:"date-time"`
	EstimatedAt    *string `json:"estimated_at" format:"date-time"`
	Timezone       *string `json:"timezone"`
	CreatedAt      string  `json:"created_at" format:"date-time" doc:"When the carrier recorded it."`
	LocationName   *string `json:"location_name"`
	LocationLOCODE *string `json:"location_locode"`
	VesselName     *string `json:"vessel_name"`
	VesselIMO      *string `json:"vessel_imo"`
	Index          int     `json:"index" doc:"The record's place in the list, from 0."`
	VoyageNumber   *string `json:"voyage_number"`
}

// RawEventRelationships link a record to its place and vessel.
type RawEventRelationships struct {
	Location ToOne `json:"location"`
	Vessel   ToOne `json:"vessel"`
}

// RawEventResource is a carrier's record as a JSON:API resource.
type RawEventResource struct {
	ID            string                `json:"id" format:"uuid"`
	Type          string                `json:"type" enum:"raw_event"`
	Attributes    RawEventAttributes    `json:"attributes"`
	Relationships RawEventRelationships `json:"relationships"`
}

// RawEventListDocument answers a container's records.
type RawEventListDocument = Document[[]RawEventResource]

// RawEvents lists a container's records in the carrier's last answer: its equipment events and
// the vessel movements of the route, oldest first as the carrier sorted them.
func (rd Renderer) RawEvents(s boxwatch.Shipment, c boxwatch.Container) []RawEventResource {
	role := map[string]string{}
	for _, stop := range s.Route {
		role[stop.LOCODE] = stop.Role
	}
	calls := map[string]boxwatch.TransportCall{}
	for _, call := range s.Snapshot.Calls {
		calls[call.ID] = call
	}
	out := []RawEventResource{}
	for _, e := range s.Snapshot.Events {
		switch {
		case e.Type == boxwatch.EventEquipment && e.EquipmentReference == c.Number:
		case e.Type == boxwatch.EventTransport && role[e.LOCODE] != "":
		default:
			continue
		}
		at := optTime(e.Time)
		if at == nil {
			continue
		}
		estimated := e.Classifier != boxwatch.ClassifierActual
		a := RawEventAttributes{
			Event: rawEventName(e, role[e.LOCODE]), OriginalEvent: originalEvent(e), Timestamp: *at, Estimated: estimated,
			Timezone: rd.timeZone(e.LOCODE), CreatedAt: *optTime(firstTime(e.Created, e.Time)), LocationName: rd.portName(e.LOCODE),
			LocationLOCODE: optString(e.LOCODE), Index: len(out),
		}
		if estimated {
			a.EstimatedAt = at
		} else {
			a.ActualAt = at
		}
		rel := RawEventRelationships{Location: linkTo(portID(e.LOCODE), "port")}
		if call, ok := calls[e.TransportCallID]; ok {
			voyage := call.ExportVoyage
			if e.Code == "ARRI" || e.Code == "DISC" {
				voyage = firstOf(call.ImportVoyage, call.ExportVoyage)
			}
			a.VoyageNumber = optString(voyage)
			if v := call.Vessel; v != nil {
				a.VesselName, a.VesselIMO = optString(v.Name), optString(v.IMO)
				if v.IMO != "" {
					rel.Vessel = linkTo(boxwatch.VesselID(v.IMO), "vessel")
				}
			}
		}
		out = append(out, RawEventResource{ID: boxwatch.NameUUID("boxwatch/raw_event/" + s.SCAC + "/" + e.ID + "/" + c.Number),
			Type: "raw_event", Attributes: a, Relationships: rel})
	}
	return out
}

func firstTime(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// rawEventName names the milestone a record stands for, by its code, whether the box is empty,
// and the part its place plays in the route.
func rawEventName(e boxwatch.CarrierEvent, role string) *string {
	empty := e.Empty != nil && *e.Empty
	var name string
	switch {
	case e.Code == "GTOT" && empty:
		name = "empty_out"
	case e.Code == "GTIN" && !empty:
		name = "full_in"
	case e.Code == "GTOT":
		name = "full_out"
	case e.Code == "GTIN":
		name = "empty_in"
	case e.Code == "LOAD" && role == boxwatch.RolePOL, e.Code == "DEPA" && role == boxwatch.RolePOL:
		name = map[string]string{"LOAD": "vessel_loaded", "DEPA": "vessel_departed"}[e.Code]
	case e.Code == "DISC" && role == boxwatch.RolePOD, e.Code == "ARRI" && role == boxwatch.RolePOD:
		name = map[string]string{"DISC": "vessel_discharged", "ARRI": "vessel_arrived"}[e.Code]
	case role == boxwatch.RoleTS && (e.Code == "LOAD" || e.Code == "DISC" || e.Code == "ARRI" || e.Code == "DEPA"):
		name = map[string]string{"LOAD": "transshipment_loaded", "DISC": "transshipment_discharged",
			"ARRI": "transshipment_arrived", "DEPA": "transshipment_departed"}[e.Code]
	default:
		return nil
	}
	return &name
}

// eventCodeNames spell out the DCSA codes carriers send.
var eventCodeNames = map[string]string{
	"ARRI": "Vessel arrival", "DEPA": "Vessel departure", "GTIN": "Gate in", "GTOT": "Gate out",
	"LOAD": "Loaded on vessel", "DISC": "Discharged from vessel", "STUF": "Stuffed", "STRP": "Stripped",
	"PICK": "Picked up", "DROP": "Dropped off", "INSP": "Inspected", "RSEA": "Resealed", "RMVD": "Removed",
}

var classifierNames = map[string]string{
	boxwatch.ClassifierActual: "actual", boxwatch.ClassifierEstimated: "estimated", boxwatch.ClassifierPlanned: "planned",
}

func originalEvent(e boxwatch.CarrierEvent) string {
	name := firstOf(eventCodeNames[e.Code], e.Code)
	if e.Empty != nil {
		name += map[bool]string{true: " (empty)", false: " (laden)"}[*e.Empty]
	}
	return name + " [" + strings.TrimSpace(e.Type+" "+e.Code+" "+firstOf(classifierNames[e.Classifier], e.Classifier)) + "]"
}
