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
	FeederLoaded          = "container.transport.feeder_loaded"
	FeederDeparted        = "container.transport.feeder_departed"
	FeederArrived         = "container.transport.feeder_arrived"
	FeederDischarged      = "container.transport.feeder_discharged"
	RailLoaded            = "container.transport.rail_loaded"
	RailDeparted          = "container.transport.rail_departed"
	RailArrived           = "container.transport.rail_arrived"
	ArrivedInland         = "container.transport.arrived_at_inland_destination"
	RailUnloaded          = "container.transport.rail_unloaded"
	EmptyIn               = "container.transport.empty_in"

	// EstimatedInlandArrival announces a new expected arrival at the inland destination.
	EstimatedInlandArrival = "container.transport.estimated.arrived_at_inland_destination"
	// EstimatedVesselDeparted announces a new expected departure of the vessel from the port of
	// lading, EstimatedVesselArrived a new expected arrival at the port of discharge.
	EstimatedVesselDeparted = "container.transport.estimated.vessel_departed"
	EstimatedVesselArrived  = "container.transport.estimated.vessel_arrived"
)

// Modes of transport of a call (DCSA's modeOfTransport).
const (
	modeVessel = "VESSEL"
	modeRail   = "RAIL"
)

// byVessel reports whether a call's mode is the vessel's: VESSEL, or unsaid (carriers that omit
// the mode report ocean calls).
func byVessel(c boxwatch.TransportCall) bool { return c.Mode == "" || c.Mode == modeVessel }

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
		if c.Mode == modeVessel && c.LOCODE != "" {
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

// deriveDestination finds where the journey goes on to past the port of discharge: the place of
// the last rail, truck or barge call the carrier reports after the last vessel call at the port
// of discharge, elsewhere than there, that the laden box makes (an empty's return to a depot is
// not one). It returns nil when there is none (the journey ends at the
// quay, or the route is not known yet). The expected arrival is the latest the carrier gives for
// the first arrival there; OriginalETA keeps the first known value, carried over from previous.
func deriveDestination(cs boxwatch.CarrierShipment, route []boxwatch.RouteStop, previous *boxwatch.Destination) *boxwatch.Destination {
	if len(route) == 0 {
		return nil
	}
	pod := route[len(route)-1].LOCODE
	calls := make([]boxwatch.TransportCall, 0, len(cs.Calls))
	for _, c := range cs.Calls {
		if c.LOCODE != "" {
			calls = append(calls, c)
		}
	}
	calls = orderCalls(calls, cs.Events)
	lastAtPOD := -1
	for i, c := range calls {
		if byVessel(c) && c.LOCODE == pod {
			lastAtPOD = i
		}
	}
	if lastAtPOD < 0 {
		return nil
	}
	// A call the laden box makes: one with a transport event, or a laden equipment event. An
	// empty's return to a depot near the port is not a leg of the journey.
	made := map[string]bool{}
	for _, e := range cs.Events {
		if e.Type == boxwatch.EventTransport || e.Type == boxwatch.EventEquipment && (e.Empty == nil || !*e.Empty) {
			made[e.TransportCallID] = true
		}
	}
	var inland []boxwatch.TransportCall
	for _, c := range calls[lastAtPOD+1:] {
		if !byVessel(c) && c.LOCODE != pod && made[c.ID] {
			inland = append(inland, c)
		}
	}
	if len(inland) == 0 {
		return nil
	}
	last := inland[len(inland)-1]
	d := &boxwatch.Destination{LOCODE: last.LOCODE, Mode: last.Mode}
	for _, c := range inland {
		if c.LOCODE != d.LOCODE {
			continue
		}
		if c.Mode == modeRail || d.Mode != modeRail {
			d.Mode = c.Mode
		}
		d.Name = cmp.Or(d.Name, c.FacilityName)
		if d.FacilityCode == "" && c.FacilityCode != "" {
			d.FacilityCode, d.FacilityCodeList = c.FacilityCode, c.FacilityCodeList
		}
		d.FacilityType = cmp.Or(d.FacilityType, c.FacilityType)
		if d.ETA.IsZero() {
			d.ETA = estimate(c.Arrival)
		}
		if d.OriginalETA.IsZero() {
			d.OriginalETA = firstTime(c.Arrival.Planned, c.Arrival.Estimated)
		}
		if d.ATA.IsZero() {
			d.ATA = c.Arrival.Actual
		}
	}
	if previous != nil && previous.LOCODE == d.LOCODE && !previous.OriginalETA.IsZero() {
		d.OriginalETA = previous.OriginalETA
	}
	return d
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
	// finalOut is when the full box left its inland destination; zero until then.
	finalOut time.Time
}

// deriveContainers lists every container the carrier reports with its milestones, in journey
// order. Equipment events give what happens to the box; the vessel's actual departures and
// arrivals at the ports of the route give the rest.
//
// Past the port of discharge (dest names the inland destination, nil when there is none), rail
// calls give rail_loaded and rail_unloaded (equipment LOAD and DISC by rail), rail_departed and
// rail_arrived (the train's DEPA and ARRI), and the first arrival at the destination, by any
// inland mode, arrived_at_inland_destination; the full box's gate-out there is finalOut.
func deriveContainers(cs boxwatch.CarrierShipment, route []boxwatch.RouteStop, dest *boxwatch.Destination) []containerFacts {
	role := map[string]string{} // LOCODE → role on the route
	for _, s := range route {
		role[s.LOCODE] = s.Role
	}
	destLOCODE := ""
	if dest != nil {
		destLOCODE = dest.LOCODE
	}
	callByID := map[string]boxwatch.TransportCall{}
	for _, c := range cs.Calls {
		callByID[c.ID] = c
	}
	// mode is the mode of transport of an event's call, "" when it has none or the carrier does
	// not say.
	mode := func(e boxwatch.CarrierEvent) string {
		if c, ok := callByID[e.TransportCallID]; ok && c.Mode != modeVessel {
			return c.Mode
		}
		return ""
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
		if m := mode(e); m != "" {
			// A train, truck or barge.
			switch {
			case e.Code == "DEPA" && m == modeRail:
				moves = append(moves, milestone{event: RailDeparted, at: e.Time, locode: e.LOCODE, eventID: e.ID})
			case e.Code == "ARRI" && m == modeRail:
				moves = append(moves, milestone{event: RailArrived, at: e.Time, locode: e.LOCODE, eventID: e.ID})
			}
			if e.Code == "ARRI" && e.LOCODE == destLOCODE && !slices.ContainsFunc(moves, func(m milestone) bool { return m.event == ArrivedInland }) {
				moves = append(moves, milestone{event: ArrivedInland, at: e.Time, locode: e.LOCODE, eventID: e.ID})
			}
			continue
		}
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
		m := mode(e)
		var name string
		switch {
		case e.Code == "LOAD" && m == modeRail:
			name = RailLoaded
		case e.Code == "DISC" && m == modeRail:
			name = RailUnloaded
		case (e.Code == "LOAD" || e.Code == "DISC") && m != "":
			// On or off a truck or barge: no milestone of the reference.
			continue
		case e.Code == "GTOT" && !empty && destLOCODE != "" && e.LOCODE == destLOCODE:
			if f.finalOut.IsZero() || e.Time.Before(f.finalOut) {
				f.finalOut = e.Time
			}
			continue
		case e.Code == "GTOT" && !empty && m == modeRail:
			// Out of the port's gate onto the train: the rail milestones tell it.
			continue
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
		case e.Code == "GTIN" && empty && (f.has(FullOut) || !f.finalOut.IsZero()):
			name = EmptyIn
		default:
			continue
		}
		v, imo := voyage(e, e.Code == "LOAD")
		if m != "" {
			v, imo = "", ""
		}
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
		f.milestones = withFeeder(f.milestones, route)
		sort.SliceStable(f.milestones, func(a, b int) bool { return f.milestones[a].at.Before(f.milestones[b].at) })
	}
	return facts
}

// feederTwin names, for each vessel milestone, its feeder event and whether it happens at the
// start of a leg (loading, departure) rather than at its end (arrival, discharge).
var feederTwin = map[string]struct {
	event string
	start bool
}{
	VesselLoaded: {FeederLoaded, true}, VesselDeparted: {FeederDeparted, true},
	TransshipmentLoaded: {FeederLoaded, true}, TransshipmentDeparted: {FeederDeparted, true},
	TransshipmentArrived: {FeederArrived, false}, TransshipmentDisch: {FeederDischarged, false},
	VesselArrived: {FeederArrived, false}, VesselDischarged: {FeederDischarged, false},
}

// withFeeder adds, after each vessel milestone of a feeder leg (feederLegs), the feeder event of
// the reference: feeder_loaded and feeder_departed where the leg starts, feeder_arrived and
// feeder_discharged where it ends. The vessel and transshipment milestones stay: the feeder's
// departure from the port of lading is still the box's departure from there.
func withFeeder(ms []milestone, route []boxwatch.RouteStop) []milestone {
	feeder := feederLegs(route)
	if len(feeder) == 0 {
		return ms
	}
	stop := map[string]int{}
	for i, s := range route {
		if _, ok := stop[s.LOCODE]; !ok {
			stop[s.LOCODE] = i
		}
	}
	out := make([]milestone, 0, len(ms)+4)
	for _, m := range ms {
		out = append(out, m)
		twin, ok := feederTwin[m.event]
		i, at := stop[m.locode]
		if !ok || !at {
			continue
		}
		leg := i - 1 // the leg that ends at the stop
		if twin.start {
			leg = i
		}
		if feeder[leg] {
			m.event = twin.event
			out = append(out, m)
		}
	}
	return out
}

// feederLegs returns the feeder legs of a route, by index (leg i sails from stop i to stop
// i+1). A leg is a feeder leg when the journey changes vessel on the way (three stops or more),
// the leg is its first or its last, the mother vessel's leg (the longest at sea, by the
// carrier's first schedule, else its latest times) is another vessel's, and the leg takes at
// most half as long at sea as the mother vessel's: a short hop from a small port to the hub, or
// on from it.
func feederLegs(route []boxwatch.RouteStop) map[int]bool {
	n := len(route) - 1 // legs
	if n < 2 {
		return nil
	}
	sailing := make([]time.Duration, n)
	mother := -1
	for i := range n {
		// The schedule, so that a leg stays a feeder leg from its loading to its discharge
		// whatever the delays; the latest times where there is none, or where it makes no sense.
		dep, arr := route[i].OriginalETD, route[i+1].OriginalETA
		if dep.IsZero() || arr.IsZero() || !arr.After(dep) {
			dep = firstTime(route[i].ATD, route[i].ETD)
			arr = firstTime(route[i+1].ATA, route[i+1].ETA)
		}
		if dep.IsZero() || arr.IsZero() || !arr.After(dep) {
			return nil // a leg of unknown length: no leg can be called short
		}
		sailing[i] = arr.Sub(dep)
		if mother < 0 || sailing[i] > sailing[mother] {
			mother = i
		}
	}
	vessel := func(i int) string { return cmp.Or(route[i].OutboundVesselIMO, route[i+1].InboundVesselIMO) }
	feeder := map[int]bool{}
	for _, i := range []int{0, n - 1} {
		if i != mother && vessel(i) != "" && vessel(mother) != "" && vessel(i) != vessel(mother) && 2*sailing[i] <= sailing[mother] {
			feeder[i] = true
		}
	}
	return feeder
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

// atPlace is the time of the first event of the name at a place, zero when there is none.
func (f *containerFacts) atPlace(event, locode string) time.Time {
	for _, m := range f.milestones {
		if m.event == event && m.locode == locode {
			return m.at.UTC()
		}
	}
	return time.Time{}
}

// railCarriers returns the SCACs of the railways that carry the box from the port of discharge
// pod and to its inland destination dest, named by the rail calls there: DCSA gives a rail call
// no operator (the only operator code of a transport call is its vessel's), so the railway is
// the one the carrier names in the rail terminal's name, as carriers do ("BNSF Logistics Park
// Chicago"). Each is "" when there is no rail call there or its name names no railway of rs.
func railCarriers(cs boxwatch.CarrierShipment, pod string, dest *boxwatch.Destination, rs *boxwatch.Railways) (podRail, indRail string) {
	if dest == nil || pod == "" {
		return "", ""
	}
	for _, c := range cs.Calls {
		if c.Mode != modeRail {
			continue
		}
		r, ok := rs.Named(c.FacilityName)
		if !ok {
			continue
		}
		switch c.LOCODE {
		case pod:
			podRail = cmp.Or(podRail, r.SCAC)
		case dest.LOCODE:
			indRail = r.SCAC
		}
	}
	return podRail, indRail
}

// applyFacts sets a container's milestone times and status from what the carrier reports, pod
// being the port of discharge ("" while unknown) and dest the inland destination (nil if none).
func applyFacts(c *boxwatch.Container, f containerFacts, pod string, dest *boxwatch.Destination) {
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
	c.Inland = boxwatch.ContainerInland{}
	if dest != nil {
		in := &c.Inland
		in.DestinationLOCODE = dest.LOCODE
		in.PODRailLoadedAt, in.PODRailDepartedAt = f.atPlace(RailLoaded, pod), f.atPlace(RailDeparted, pod)
		in.IndETAAt, in.IndATAAt = dest.ETA.UTC(), f.atPlace(ArrivedInland, dest.LOCODE)
		if in.IndATAAt.IsZero() && !dest.ATA.IsZero() {
			in.IndATAAt = dest.ATA.UTC()
		}
		if dest.ETA.IsZero() {
			in.IndETAAt = time.Time{}
		}
		in.IndRailUnloadedAt = f.atPlace(RailUnloaded, dest.LOCODE)
		if !f.finalOut.IsZero() {
			in.FinalDestinationFullOutAt = f.finalOut.UTC()
		}
	}
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
