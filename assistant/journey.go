package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/boxwatch/boxwatch/client"
)

// The route and journey tools read the container map (GET /v2/containers/{id}/map_geojson), the
// GeoJSON the journey engine draws: its port features are the route with the carrier's times, its
// current_vessel feature the vessel at sea with boxwatch's prediction.

// journeyMap is what the tools read of a map: its ports by sequence (1 = port of lading), the
// vessel at sea, and the vessel of each leg sailed, by the sequence of the port it left.
type journeyMap struct {
	total  int
	ports  map[int]mapPort
	vessel *mapVessel
	sailed map[int]string
}

type mapPort struct {
	Sequence    int        `json:"ports_sequence"`
	Total       int        `json:"ports_total"`
	LocationID  string     `json:"location_id"`
	Name        string     `json:"name"`
	CountryCode string     `json:"country_code"`
	TimeZone    *string    `json:"time_zone"`
	Label       string     `json:"label"`
	InboundETA  *time.Time `json:"inbound_eta_at"`
	InboundATA  *time.Time `json:"inbound_ata_at"`
	OutboundETD *time.Time `json:"outbound_etd_at"`
	OutboundATD *time.Time `json:"outbound_atd_at"`
}

type mapVessel struct {
	Sequence         int        `json:"ports_sequence"`
	VesselID         string     `json:"vessel_id"`
	VesselName       string     `json:"vessel_name"`
	VesselIMO        string     `json:"vessel_imo"`
	Voyage           *string    `json:"voyage_number"`
	At               time.Time  `json:"vessel_location_timestamp"`
	Heading          *float64   `json:"vessel_location_heading"`
	Speed            *float64   `json:"vessel_location_speed"`
	DistanceToGoNM   *float64   `json:"distance_to_go_nm"`
	PredictedArrival *time.Time `json:"predicted_arrival_at"`
	Lon, Lat         float64    `json:"-"`
}

// maxPorts bounds the ports of a route read from a map: far more than any real journey calls at.
const maxPorts = 64

var errNotAMap = errors.New("the container map is not a GeoJSON FeatureCollection as boxwatch draws it")

// readMap reads a container map. It refuses what boxwatch never draws (another type, a port out
// of its sequence, a vessel without a position) rather than guess.
func readMap(raw []byte) (journeyMap, error) {
	var fc struct {
		Type     string `json:"type"`
		Features []struct {
			Geometry struct {
				Type        string          `json:"type"`
				Coordinates json.RawMessage `json:"coordinates"`
			} `json:"geometry"`
			Properties json.RawMessage `json:"properties"`
		} `json:"features"`
	}
	if err := json.Unmarshal(raw, &fc); err != nil || fc.Type != "FeatureCollection" {
		return journeyMap{}, errNotAMap
	}
	m := journeyMap{ports: map[int]mapPort{}, sailed: map[int]string{}}
	for _, f := range fc.Features {
		var kind struct {
			FeatureType string `json:"feature_type"`
		}
		if json.Unmarshal(f.Properties, &kind) != nil {
			return journeyMap{}, errNotAMap
		}
		switch kind.FeatureType {
		case "port":
			var p mapPort
			if json.Unmarshal(f.Properties, &p) != nil || p.Total < 2 || p.Total > maxPorts || p.Sequence < 1 || p.Sequence > p.Total ||
				(m.total != 0 && p.Total != m.total) {
				return journeyMap{}, errNotAMap
			}
			m.total, m.ports[p.Sequence] = p.Total, p
		case "current_vessel":
			var v mapVessel
			var pos []float64
			if json.Unmarshal(f.Properties, &v) != nil || f.Geometry.Type != "Point" || json.Unmarshal(f.Geometry.Coordinates, &pos) != nil ||
				len(pos) != 2 || math.Abs(pos[0]) > 180 || math.Abs(pos[1]) > 90 || m.vessel != nil {
				return journeyMap{}, errNotAMap
			}
			v.Lon, v.Lat = pos[0], pos[1]
			m.vessel = &v
		case "past_vessel_locations":
			var p struct {
				Sequence int    `json:"ports_sequence"`
				VesselID string `json:"vessel_id"`
			}
			if json.Unmarshal(f.Properties, &p) != nil {
				return journeyMap{}, errNotAMap
			}
			if p.VesselID != "" {
				m.sailed[p.Sequence] = p.VesselID
			}
		}
	}
	if v := m.vessel; v != nil && (v.Sequence < 1 || v.Sequence >= m.total) {
		return journeyMap{}, errNotAMap
	}
	for seq := range m.sailed {
		if seq < 1 || seq >= m.total {
			return journeyMap{}, errNotAMap
		}
	}
	return m, nil
}

// fetchMap reads a container's map.
func fetchMap(ctx context.Context, c *client.Client, id string) (journeyMap, error) {
	if err := containerID.check("id", id); err != nil {
		return journeyMap{}, err
	}
	raw, err := c.ContainerMap(ctx, id)
	if err != nil {
		return journeyMap{}, failed(err, containerID.notFound())
	}
	return readMap(raw)
}

// RoutePort is a port of a route, with the carrier's times of the vessel calls there.
type RoutePort struct {
	Sequence    int     `json:"sequence" jsonschema:"1 is the port of lading, the last the port of discharge"`
	Label       string  `json:"label" jsonschema:"POL, TS1, TS2… or POD"`
	Name        *string `json:"name" jsonschema:"null when boxwatch cannot place the port"`
	CountryCode *string `json:"country_code"`
	TimeZone    *string `json:"time_zone"`
	ETA         *Time   `json:"eta" jsonschema:"estimated arrival of the inbound vessel"`
	ATA         *Time   `json:"ata" jsonschema:"actual arrival"`
	ETD         *Time   `json:"etd" jsonschema:"estimated departure of the outbound vessel"`
	ATD         *Time   `json:"atd" jsonschema:"actual departure"`
}

func (m journeyMap) port(seq int) RoutePort {
	p, ok := m.ports[seq]
	if !ok {
		label := fmt.Sprintf("TS%d", seq-1)
		switch seq {
		case 1:
			label = "POL"
		case m.total:
			label = "POD"
		}
		return RoutePort{Sequence: seq, Label: label}
	}
	return RoutePort{Sequence: seq, Label: p.Label, Name: &p.Name, CountryCode: &p.CountryCode, TimeZone: p.TimeZone,
		ETA: placeTime(p.InboundETA, p.TimeZone), ATA: placeTime(p.InboundATA, p.TimeZone),
		ETD: placeTime(p.OutboundETD, p.TimeZone), ATD: placeTime(p.OutboundATD, p.TimeZone)}
}

// Leg is one ocean leg of a route.
type Leg struct {
	Sequence int       `json:"sequence"`
	From     RoutePort `json:"from"`
	To       RoutePort `json:"to"`
	Status   string    `json:"status" jsonschema:"sailed, at_sea or not_started"`
	Vessel   *Vessel   `json:"vessel" jsonschema:"the vessel of the leg, when boxwatch knows it"`
}

// Route is a container's ocean route.
type Route struct {
	ContainerID string `json:"container_id"`
	TotalLegs   int    `json:"total_legs"`
	Legs        []Leg  `json:"legs"`
}

func getContainerRoute(ctx context.Context, c *client.Client, in idIn) (Route, string, error) {
	m, err := fetchMap(ctx, c, in.ID)
	if err != nil {
		return Route{}, "", err
	}
	out := Route{ContainerID: in.ID, Legs: []Leg{}}
	names := map[string]client.Vessel{}
	for seq := 1; seq < m.total; seq++ {
		l := Leg{Sequence: seq, From: m.port(seq), To: m.port(seq + 1), Status: "not_started"}
		switch {
		case l.To.ATA != nil:
			l.Status = "sailed"
		case l.From.ATD != nil:
			l.Status = "at_sea"
		}
		if v := m.vessel; v != nil && v.Sequence == seq {
			l.Vessel = &Vessel{Name: &v.VesselName, IMO: &v.VesselIMO, Voyage: v.Voyage}
		} else if id := m.sailed[seq]; id != "" {
			ship, ok := names[id]
			if !ok {
				if ship, err = c.Vessel(ctx, id); err != nil && !client.IsNotFound(err) {
					return Route{}, "", failed(err, "")
				}
				names[id] = ship
			}
			if ship.IMO != "" {
				l.Vessel = &Vessel{Name: &ship.Name, IMO: &ship.IMO}
			}
		}
		out.Legs = append(out.Legs, l)
	}
	out.TotalLegs = len(out.Legs)
	if out.TotalLegs == 0 {
		return out, "boxwatch knows no route for this container yet: the carrier has reported none. get_container_transport_events lists what happened so far.", nil
	}
	var stops []string
	for _, l := range out.Legs {
		stops = append(stops, portWords(l.From))
	}
	stops = append(stops, portWords(out.Legs[len(out.Legs)-1].To))
	return out, fmt.Sprintf("%d leg(s): %s.", out.TotalLegs, strings.Join(stops, " → ")), nil
}

func portWords(p RoutePort) string {
	if p.Name == nil {
		return p.Label + " (unknown port)"
	}
	return fmt.Sprintf("%s (%s)", *p.Name, p.Label)
}

// Journey is where a container's vessel is, and when boxwatch and the carrier expect it.
type Journey struct {
	ContainerID string `json:"container_id"`
	Status      string `json:"status" jsonschema:"not_departed, at_sea, in_port (between legs), arrived (at the port of discharge) or no_route"`
	// Vessel, Position, From, To and the arrivals are there at sea.
	Vessel           *Vessel    `json:"vessel"`
	Position         *Position  `json:"position" jsonschema:"the vessel's last AIS position"`
	From             *RoutePort `json:"from" jsonschema:"the port the vessel left, or the last port reached"`
	To               *RoutePort `json:"to" jsonschema:"the next port"`
	DistanceToGoNM   *float64   `json:"distance_to_go_nm" jsonschema:"nautical miles still to sail to the next port, by sea"`
	CarrierETA       *Time      `json:"carrier_eta" jsonschema:"the carrier's estimated arrival at the next port"`
	PredictedArrival *Time      `json:"predicted_arrival" jsonschema:"boxwatch's prediction from the distance to go, the speed the vessel made good under way and the waits recently seen at the canals on the way and at the port; null when the speed is unknown"`
	PredictedLateBy  *float64   `json:"predicted_late_by_hours" jsonschema:"how many hours after the carrier's ETA boxwatch expects the vessel (negative: before)"`
}

// Position is where a vessel was heard.
type Position struct {
	Latitude   float64  `json:"latitude"`
	Longitude  float64  `json:"longitude"`
	ReportedAt string   `json:"reported_at" jsonschema:"UTC"`
	Heading    *float64 `json:"heading_degrees"`
	SpeedKnots *float64 `json:"speed_knots"`
}

func getContainerJourney(ctx context.Context, c *client.Client, in idIn) (Journey, string, error) {
	m, err := fetchMap(ctx, c, in.ID)
	if err != nil {
		return Journey{}, "", err
	}
	j := journeyOf(in.ID, m)
	return j, journeySummary(j), nil
}

// journeyOf says where a container is on its map.
func journeyOf(containerID string, m journeyMap) Journey {
	out := Journey{ContainerID: containerID}
	if v := m.vessel; v != nil {
		from, to := m.port(v.Sequence), m.port(v.Sequence+1)
		out.Status, out.From, out.To, out.DistanceToGoNM = "at_sea", &from, &to, v.DistanceToGoNM
		out.Vessel = &Vessel{Name: &v.VesselName, IMO: &v.VesselIMO, Voyage: v.Voyage}
		out.Position = &Position{Latitude: v.Lat, Longitude: v.Lon, ReportedAt: utc(v.At), Heading: v.Heading, SpeedKnots: v.Speed}
		out.CarrierETA = to.ETA
		out.PredictedArrival = placeTime(v.PredictedArrival, to.TimeZone)
		if eta := m.ports[v.Sequence+1].InboundETA; v.PredictedArrival != nil && eta != nil {
			late := math.Round(v.PredictedArrival.Sub(*eta).Hours()*10) / 10
			out.PredictedLateBy = &late
		}
		return out
	}
	if m.total == 0 {
		out.Status = "no_route"
		return out
	}
	// Without a position, the ports say where the container is: the last one reached (the port
	// of lading to begin with), and whether the vessel left it.
	last := 1
	for seq := m.total; seq > 1; seq-- {
		if m.port(seq).ATA != nil {
			last = seq
			break
		}
	}
	from := m.port(last)
	out.From = &from
	if last < m.total {
		next := m.port(last + 1)
		out.To, out.CarrierETA = &next, next.ETA
	}
	switch {
	case last == m.total:
		out.Status = "arrived"
	case from.ATD != nil:
		out.Status = "at_sea"
	case last == 1:
		out.Status = "not_departed"
	default:
		out.Status = "in_port"
	}
	return out
}

func journeySummary(j Journey) string {
	switch j.Status {
	case "no_route":
		return "boxwatch knows no route for this container yet: the carrier has reported none."
	case "arrived":
		return fmt.Sprintf("The container's vessel has arrived at %s: the ocean journey is over. get_container tells whether it is available for pickup.", portWords(*j.From))
	case "not_departed":
		s := fmt.Sprintf("The container has not left %s yet", portWords(*j.From))
		if j.From.ETD != nil {
			s += fmt.Sprintf("; the carrier expects it to sail %s (%s)", j.From.ETD.Local, j.From.ETD.TimeZone)
		}
		return s + "."
	case "in_port":
		s := fmt.Sprintf("The container is at %s, between legs", portWords(*j.From))
		if j.To != nil {
			s += "; next " + portWords(*j.To)
		}
		if j.CarrierETA != nil {
			s += fmt.Sprintf(", carrier's ETA %s (%s)", j.CarrierETA.Local, j.CarrierETA.TimeZone)
		}
		return s + ". No vessel position: it is not at sea."
	}
	if j.Position == nil {
		s := fmt.Sprintf("The container is at sea from %s to %s; boxwatch has no position of its vessel yet", portWords(*j.From), portWords(*j.To))
		if j.CarrierETA != nil {
			s += fmt.Sprintf(". Carrier's ETA %s (%s)", j.CarrierETA.Local, j.CarrierETA.TimeZone)
		}
		return s + "."
	}
	var b strings.Builder
	name := "Its vessel"
	if j.Vessel != nil && j.Vessel.Name != nil && *j.Vessel.Name != "" {
		name = *j.Vessel.Name
	}
	fmt.Fprintf(&b, "%s is at sea from %s to %s, at %.3f, %.3f (reported %s).", name, portWords(*j.From), portWords(*j.To),
		j.Position.Latitude, j.Position.Longitude, j.Position.ReportedAt)
	if j.DistanceToGoNM != nil {
		fmt.Fprintf(&b, " %.0f nautical miles to go.", *j.DistanceToGoNM)
	}
	if j.CarrierETA != nil {
		fmt.Fprintf(&b, " Carrier's ETA %s (%s).", j.CarrierETA.Local, j.CarrierETA.TimeZone)
	}
	switch {
	case j.PredictedArrival != nil && j.PredictedLateBy != nil:
		fmt.Fprintf(&b, " boxwatch predicts %s, %s.", j.PredictedArrival.Local, lateWords(*j.PredictedLateBy))
	case j.PredictedArrival != nil:
		fmt.Fprintf(&b, " boxwatch predicts %s.", j.PredictedArrival.Local)
	default:
		b.WriteString(" boxwatch cannot predict the arrival yet: the vessel's speed over its track is unknown.")
	}
	return b.String()
}

func lateWords(hours float64) string {
	switch {
	case math.Abs(hours) < 1:
		return "within the hour of the carrier's ETA"
	case hours > 0:
		return fmt.Sprintf("%.1f hours after the carrier's ETA", hours)
	}
	return fmt.Sprintf("%.1f hours before the carrier's ETA", -hours)
}
