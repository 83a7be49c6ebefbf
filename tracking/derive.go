package tracking

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/boxwatch/boxwatch"
)

// Milestone names (the container.transport.* events), in journey order.
const (
	EmptyOut              = "container.transport.empty_out"
	FullIn                = "container.transport.full_in"
	VesselLoaded          = "container.transport.vessel_loaded"
	VesselDeparted        = "container.transport.vessel_departed"
	TransshipmentArrived  = "container.transport.transshipment_arrived"
	TransshipmentDisch    = "container.transport.transshipment_discharged"
	TransshipmentLoaded   = "container.transport.transshipment_loaded"
	TransshipmentDeparted = "container.transport.transshipment_departed"
	VesselArrived         = "container.transport.vessel_arrived"
	VesselDischarged      = "container.transport.vessel_discharged"
	FullOut               = "container.transport.full_out"
	EmptyIn               = "container.transport.empty_in"
)

// milestone is one thing that happened to a container, derived from actual (ACT) carrier events.
type milestone struct {
	event   string
	at      time.Time
	locode  string
	voyage  string
	vessel  string
	eventID string
}

// deriveRoute turns the carrier's vessel calls into the ports of the journey, in the order of
// orderCalls: consecutive calls at the same place (a transshipment: one vessel arrives, another
// leaves) merge into one stop. When the carrier itself names the port of lading or discharge
// (TransportCall.Role), calls before the one or after the other are not this shipment's journey
// and are left out. Times are the latest the carrier gave; OriginalETA and OriginalETD keep the
// first known value, carried over from the previous route.
func deriveRoute(cs boxwatch.CarrierShipment, previous []boxwatch.RouteStop) []boxwatch.RouteStop {
	calls := make([]boxwatch.TransportCall, 0, len(cs.Calls))
	for _, c := range cs.Calls {
		if c.Mode == "VESSEL" && c.LOCODE != "" {
			calls = append(calls, c)
		}
	}
	calls = withinCarrierPorts(orderCalls(calls, cs.Events))
	var stops []boxwatch.RouteStop
	var carrierRoles []string // by stop: the role the carrier gives it, if any
	for _, c := range calls {
		voyageIn, voyageOut := firstNonEmpty(c.ImportVoyage, c.ExportVoyage), firstNonEmpty(c.ExportVoyage, c.ImportVoyage)
		imo := ""
		if c.Vessel != nil {
			imo = c.Vessel.IMO
		}
		if n := len(stops); n > 0 && stops[n-1].LOCODE == c.LOCODE {
			// Another call at the same port: the vessel that leaves.
			s := &stops[n-1]
			s.ETD, s.ATD = estimate(c.Departure), c.Departure.Actual
			s.OriginalETD = firstTime(c.Departure.Planned, c.Departure.Estimated)
			s.OutboundVesselIMO, s.OutboundVoyage = imo, voyageOut
			carrierRoles[n-1] = cmp.Or(carrierRoles[n-1], c.Role)
			continue
		}
		carrierRoles = append(carrierRoles, c.Role)
		var terminal, terminalName string
		if c.FacilityCodeList == "SMDG" && c.FacilityCode != "" {
			terminal, terminalName = c.FacilityCode, c.FacilityName
		}
		stops = append(stops, boxwatch.RouteStop{
			LOCODE: c.LOCODE, TerminalCode: terminal, TerminalName: terminalName,
			ETA: estimate(c.Arrival), ATA: c.Arrival.Actual, OriginalETA: firstTime(c.Arrival.Planned, c.Arrival.Estimated),
			ETD: estimate(c.Departure), ATD: c.Departure.Actual, OriginalETD: firstTime(c.Departure.Planned, c.Departure.Estimated),
			InboundVesselIMO: imo, InboundVoyage: voyageIn, OutboundVesselIMO: imo, OutboundVoyage: voyageOut,
		})
	}
	for i := range stops {
		s := &stops[i]
		s.Sequence = i + 1
		switch {
		case i == 0:
			s.Role = boxwatch.RolePOL
			// A port of lading has no inbound leg on this journey.
			s.ETA, s.ATA, s.OriginalETA, s.InboundVesselIMO, s.InboundVoyage = time.Time{}, time.Time{}, time.Time{}, "", ""
		case i == len(stops)-1:
			s.Role = boxwatch.RolePOD
			s.ETD, s.ATD, s.OriginalETD, s.OutboundVesselIMO, s.OutboundVoyage = time.Time{}, time.Time{}, time.Time{}, "", ""
		default:
			s.Role = boxwatch.RoleTS
		}
		// The carrier knows better, as when it reports only the transshipment leg so far.
		s.Role = cmp.Or(carrierRoles[i], s.Role)
		for _, p := range previous {
			if p.Sequence == s.Sequence && p.LOCODE == s.LOCODE {
				if !p.OriginalETA.IsZero() {
					s.OriginalETA = p.OriginalETA
				}
				if !p.OriginalETD.IsZero() {
					s.OriginalETD = p.OriginalETD
				}
			}
		}
	}
	return stops
}

// orderCalls sorts calls into the order the journey makes them: by time, each call's arrival,
// else its departure, else its earliest event, each the actual time, else the estimated, else
// the planned one. DCSA's transportCallSequenceNumber counts calls within one voyage (and is
// often 1 everywhere), so it only separates calls at the same time.
func orderCalls(calls []boxwatch.TransportCall, events []boxwatch.CarrierEvent) []boxwatch.TransportCall {
	firstEvent := map[string]time.Time{}
	for _, e := range events {
		if t, ok := firstEvent[e.TransportCallID]; e.TransportCallID != "" && (!ok || e.Time.Before(t)) {
			firstEvent[e.TransportCallID] = e.Time
		}
	}
	when := func(c boxwatch.TransportCall) time.Time {
		return firstTime(bestTime(c.Arrival), bestTime(c.Departure), firstEvent[c.ID])
	}
	slices.SortStableFunc(calls, func(a, b boxwatch.TransportCall) int {
		return cmp.Or(when(a).Compare(when(b)), cmp.Compare(a.Sequence, b.Sequence), cmp.Compare(a.ID, b.ID))
	})
	return calls
}

// bestTime is what is best known of a time: the actual, else the estimated, else the planned.
func bestTime(t boxwatch.CallTimes) time.Time {
	return firstTime(t.Actual, t.Estimated, t.Planned)
}

// withinCarrierPorts drops the calls before the first the carrier calls the port of lading and
// after the last it calls the port of discharge.
func withinCarrierPorts(calls []boxwatch.TransportCall) []boxwatch.TransportCall {
	if i := slices.IndexFunc(calls, func(c boxwatch.TransportCall) bool { return c.Role == boxwatch.RolePOL }); i > 0 {
		// Keep the calls at the port of lading itself: an arrival there may precede the departure.
		for i > 0 && calls[i-1].LOCODE == calls[i].LOCODE {
			i--
		}
		calls = calls[i:]
	}
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Role == boxwatch.RolePOD {
			for i+1 < len(calls) && calls[i+1].LOCODE == calls[i].LOCODE {
				i++
			}
			return calls[:i+1]
		}
	}
	return calls
}

// estimate is the carrier's latest expectation of a time: its estimate, else its plan. It stays
// what it was once the actual time is known, as the reference API's *_eta_at fields do.
func estimate(t boxwatch.CallTimes) time.Time {
	return firstTime(t.Estimated, t.Planned)
}

func firstTime(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// containerFacts is what the carrier's events say of one container.
type containerFacts struct {
	number     string
	isoCode    string
	seal       string
	milestones []milestone
}

// deriveContainers lists every container the carrier reports with its milestones, in journey
// order. Equipment events give what happens to the box; the vessel's actual departures and
// arrivals at the ports of the route give the rest.
func deriveContainers(cs boxwatch.CarrierShipment, route []boxwatch.RouteStop) []containerFacts {
	role := map[string]string{} // LOCODE → role on the route
	for _, s := range route {
		role[s.LOCODE] = s.Role
	}
	callByID := map[string]boxwatch.TransportCall{}
	for _, c := range cs.Calls {
		callByID[c.ID] = c
	}
	voyage := func(e boxwatch.CarrierEvent, outbound bool) (string, string) {
		c, ok := callByID[e.TransportCallID]
		if !ok {
			return "", ""
		}
		v := c.ImportVoyage
		if outbound {
			v = c.ExportVoyage
		}
		if v == "" {
			v = firstNonEmpty(c.ExportVoyage, c.ImportVoyage)
		}
		imo := ""
		if c.Vessel != nil {
			imo = c.Vessel.IMO
		}
		return v, imo
	}

	var facts []containerFacts
	index := map[string]int{}
	add := func(number string) *containerFacts {
		if i, ok := index[number]; ok {
			return &facts[i]
		}
		index[number] = len(facts)
		facts = append(facts, containerFacts{number: number})
		return &facts[len(facts)-1]
	}
	for _, eq := range cs.Equipment {
		f := add(eq.Reference)
		f.isoCode = eq.ISOCode
		if len(eq.Seals) > 0 {
			f.seal = eq.Seals[0]
		}
	}

	// Vessel movements at route ports apply to every container of the shipment.
	var moves []milestone
	for _, e := range cs.Events {
		if e.Type != boxwatch.EventTransport || e.Classifier != boxwatch.ClassifierActual {
			continue
		}
		r := role[e.LOCODE]
		var name string
		switch {
		case e.Code == "DEPA" && r == boxwatch.RolePOL:
			name = VesselDeparted
		case e.Code == "ARRI" && r == boxwatch.RoleTS:
			name = TransshipmentArrived
		case e.Code == "DEPA" && r == boxwatch.RoleTS:
			name = TransshipmentDeparted
		case e.Code == "ARRI" && r == boxwatch.RolePOD:
			name = VesselArrived
		default:
			continue
		}
		v, imo := voyage(e, e.Code == "DEPA")
		moves = append(moves, milestone{event: name, at: e.Time, locode: e.LOCODE, voyage: v, vessel: imo, eventID: e.ID})
	}

	for _, e := range cs.Events {
		if e.Type != boxwatch.EventEquipment || e.Classifier != boxwatch.ClassifierActual || e.EquipmentReference == "" {
			continue
		}
		f := add(e.EquipmentReference)
		empty := e.Empty != nil && *e.Empty
		r := role[e.LOCODE]
		var name string
		switch {
		case e.Code == "GTOT" && empty && !f.has(VesselDischarged):
			name = EmptyOut
		case e.Code == "GTIN" && !empty && !f.has(VesselLoaded):
			name = FullIn
		case e.Code == "LOAD" && r == boxwatch.RolePOL:
			name = VesselLoaded
		case e.Code == "LOAD" && r == boxwatch.RoleTS:
			name = TransshipmentLoaded
		case e.Code == "DISC" && r == boxwatch.RoleTS:
			name = TransshipmentDisch
		case e.Code == "DISC" && r == boxwatch.RolePOD:
			name = VesselDischarged
		case e.Code == "GTOT" && !empty:
			name = FullOut
		case e.Code == "GTIN" && empty && f.has(FullOut):
			name = EmptyIn
		default:
			continue
		}
		v, imo := voyage(e, e.Code == "LOAD")
		f.milestones = append(f.milestones, milestone{event: name, at: e.Time, locode: e.LOCODE, voyage: v, vessel: imo, eventID: e.ID})
	}
	for i := range facts {
		f := &facts[i]
		for _, m := range moves {
			// A container rides the vessel once it is loaded; with no equipment events at all,
			// the carrier reports only the voyage, which then stands for every container.
			if len(f.milestones) == 0 || f.has(VesselLoaded) || m.event != VesselDeparted {
				f.milestones = append(f.milestones, m)
			}
		}
		sort.SliceStable(f.milestones, func(a, b int) bool { return f.milestones[a].at.Before(f.milestones[b].at) })
	}
	return facts
}

func (f *containerFacts) has(event string) bool {
	for _, m := range f.milestones {
		if m.event == event {
			return true
		}
	}
	return false
}

func (f *containerFacts) at(event string) time.Time {
	for _, m := range f.milestones {
		if m.event == event {
			return m.at.UTC()
		}
	}
	return time.Time{}
}

// applyFacts sets a container's milestone times and status from what the carrier reports.
func applyFacts(c *boxwatch.Container, f containerFacts) {
	c.ISOCode = firstNonEmpty(f.isoCode, c.ISOCode)
	c.SealNumber = firstNonEmpty(f.seal, c.SealNumber)
	c.EmptyOutAt = f.at(EmptyOut)
	c.FullInAt = f.at(FullIn)
	c.LoadedAt = f.at(VesselLoaded)
	c.DepartedAt = f.at(VesselDeparted)
	c.PODArrivedAt = f.at(VesselArrived)
	c.PODDischargedAt = f.at(VesselDischarged)
	// The terminal's gate records stand until the carrier reports its own.
	c.PODFullOutAt = firstTime(f.at(FullOut), c.TerminalFullOutAt)
	c.EmptyTerminatedAt = firstTime(f.at(EmptyIn), c.TerminalEmptyInAt)
	boxwatch.DescribeEquipment(c)
	// Whether a discharged box can be picked up is the terminal's to say (applyReport; a carrier's
	// answer says nothing of holds): unknown until it does, as the reference's availability_known
	// says, and its word stands until the box leaves. A box that left full can no longer be.
	switch {
	case !c.PODFullOutAt.IsZero():
		no := false
		c.AvailableForPickup = &no
	case !c.TerminalCheckedAt.IsZero():
	default:
		c.AvailableForPickup = nil
	}
	c.CurrentStatus = boxwatch.ContainerStatus(*c)
}
