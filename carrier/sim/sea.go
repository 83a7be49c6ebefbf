package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/boxwatch/boxwatch/geo"
)

// The simulated world runs late as the liner trades do. Every vessel arrival (at the port of
// lading, the hub and the port of discharge) is either on schedule (within a day of it, as
// Sea-Intelligence counts "on time") or disrupted, and a disruption has a cause the journey's
// positions and times show: a wait at anchorage for a berth (port congestion, by port and
// season), a queue at the Suez or Panama canal, heavy weather that slows the passage for a few
// days, or a late departure from the previous call (the call slips). How often a line's
// arrivals are disrupted is calibrated so that its on-time share matches Sea-Intelligence's
// Global Liner Performance report for September 2025; how long a disruption lasts, so that late
// arrivals average its 4.88 days (see docs/carriers.md, "A world that runs late").

// onTime is the share of a line's vessel arrivals within a day of schedule in September 2025
// (Sea-Intelligence, Global Liner Performance issue 170). Maersk, Hapag-Lloyd and Wan Hai are
// published figures; the report places five more top-13 carriers between 60 and 70 % and five
// between 50 and 60 % without naming each one's figure here, so those take the middle of their
// band; every other line takes the industry's 65.2 %.
var onTime = map[string]float64{
	"MAEU": 0.770, "HLCU": 0.736, "WHLC": 0.479,
	// 60–70 %: the middle of the band.
	"MSCU": 0.65, "CMDU": 0.65, "COSU": 0.65, "OOLU": 0.65, "EGLV": 0.65,
	// 50–60 %: the middle of the band.
	"ONEY": 0.55, "YMLU": 0.55, "HDMU": 0.55, "ZIMU": 0.55, "PCIU": 0.55,
}

// industryOnTime is the on-time share of every vessel arrival in September 2025.
const industryOnTime = 0.652

// earlyShare is the share of arrivals more than a day ahead of schedule: not on time either.
const earlyShare = 0.02

// disruptedShare is how often the vessel arrivals of a punctuality class (see classOf) are late: disrupted, or after a late
// departure the passage cannot make up (see drawArrival).
func disruptedShare(class string) float64 {
	return max(0, 1-earlyShare-classOnTime(class))
}

// cause is what made a vessel arrival late.
type cause int

const (
	onSchedule   cause = iota
	congestion         // waited at anchorage for a berth
	canalQueue         // queued at a canal
	heavyWeather       // slowed by weather at sea
	slipped            // left the previous call late
)

// causeReasons are the delay reasons the carrier gives for each cause (SMDG's code where there is one).
var causeReasons = map[cause]delayReason{
	congestion:   {"", "Port congestion"},
	canalQueue:   {"", "Canal transit delay"},
	heavyWeather: {"WEA", "Adverse weather"},
	slipped:      {"", "Delay on the previous port call"},
}

// congested is how long, in days, a vessel that misses its berth window waits at anchorage at
// ports that were congested through 2025 (press reports of berth waits at North European hubs,
// Chittagong, Lagos, Karachi, Durban-class bottlenecks); every other port is worth a day and a half.
var congested = map[string]float64{
	"NLRTM": 3.5, "DEHAM": 4, "BEANR": 3.5, "DEBRV": 3, "GBFXT": 2.5,
	"BDCGP": 4.5, "NGAPP": 4.5, "PKKHI": 4, "GHTEM": 3.5, "CIABJ": 3, "SNDKR": 3, "TGLFW": 3,
	"INNSA": 3, "AUSYD": 3, "AUMEL": 3, "NZAKL": 3, "USNYC": 2.5, "USSAV": 2.5, "USLAX": 2, "USLGB": 2,
	"CNSHA": 2, "CNNGB": 2, "SGSIN": 2.5, "LKCMB": 3, "MAPTM": 3, "PAMIT": 2.5,
}

const defaultCongestion = 1.5

// queueDays is the waiting time at anchorage at a port around an absolute time: the port's level,
// higher in its peak season, and a slow weekly swing the same for every vessel there, so that
// the waits just seen at a port tell what the next vessel will wait.
func queueDays(locode string, lat float64, at time.Time) float64 {
	base, ok := congested[locode]
	if !ok {
		base = defaultCongestion
	}
	// Peak season: the northern hemisphere's late summer and autumn, the southern's late summer.
	m := float64(at.YearDay()) / 365.25
	peak := 0.7
	if lat < 0 {
		peak = 0.15
	}
	season := 1 + 0.3*math.Cos(2*math.Pi*(m-peak))
	// A weekly level drawn per port, interpolated between weeks.
	week := at.Unix() / int64(7*24*3600)
	f := float64(at.Unix()%int64(7*24*3600)) / (7 * 24 * 3600)
	d := dice("port/" + locode)
	lvl := func(w int64) float64 { return 0.5 + d.frac(fmt.Sprint("queue/", w)) }
	swing := lvl(week)*(1-f) + lvl(week+1)*f
	return base * season * swing
}

// canal is a canal a passage can queue at: the box its approaches lie in, how long a transit
// is planned to take, and how long queues last when they form.
type canal struct {
	name                   string
	minLon, minLat         float64
	maxLon, maxLat         float64
	planned, queue         time.Duration
	drySeason, largeVessel float64 // multipliers of the queue (Panama's draft limits)
}

var canals = []canal{
	{name: "Suez", minLon: 32.0, minLat: 29.8, maxLon: 32.8, maxLat: 31.5, planned: 14 * hour, queue: 3 * day, drySeason: 1, largeVessel: 1},
	{name: "Panama", minLon: -80.2, minLat: 8.7, maxLon: -79.3, maxLat: 9.5, planned: 18 * hour, queue: 3 * day, drySeason: 1.6, largeVessel: 1.4},
}

func (c canal) contains(p geo.Point) bool {
	return p.Lon >= c.minLon && p.Lon <= c.maxLon && p.Lat >= c.minLat && p.Lat <= c.maxLat
}

// canalOn returns the canal a path transits and how far along it (in nm) the vessel reaches its
// approaches; ok is false for a path through no canal (a great circle never is). A path from or
// to a port within a canal's approaches (Manzanillo, Panama) does not queue there.
func canalOn(path []geo.Point, cum []float64) (canal, float64, bool) {
	for _, c := range canals {
		if c.contains(path[0]) || c.contains(path[len(path)-1]) {
			continue
		}
		for i, p := range path {
			if c.contains(p) {
				return c, cum[i], true
			}
		}
	}
	return canal{}, 0, false
}

// Sailing speeds: the planned service speed, the fastest a vessel steams to make up time, the
// slowest it sails before it would rather wait at anchorage.
const (
	minServiceKnots = 17.0
	maxServiceKnots = 19.0
	maxKnots        = 22.5
	minKnots        = 11.0
	// anchorageNM is how far out from the berth vessels wait.
	anchorageNM = 6.0
)

// passage is what a vessel does on an ocean leg of the journey, from its departure to its berth:
// it sails (its speed changes every day with the weather), may queue at a canal on the way, and
// may wait at the anchorage off the port before berthing.
type passage struct {
	from, to  int // the calls it departs from and arrives at
	path      []geo.Point
	cum       []float64 // nm along path to each point
	nm        float64   // the sea distance sailed: path's length, or more without a router
	depart    time.Duration
	pace      pacing
	canal     canal
	canalNM   float64       // where the vessel queues; 0 without a canal
	canalFrom time.Duration // the queue at the canal, or 0, 0 without
	canalTo   time.Duration
	anchor    time.Duration // reaches the anchorage
	berth     time.Duration // berths: the actual arrival
}

// pacing is how fast a vessel sails on each day of a passage, relative to the others.
type pacing []float64

// progress is the share of the distance sailed after sailing for s out of total.
func (p pacing) progress(s, total time.Duration) float64 {
	if total <= 0 {
		return 1
	}
	done, all := 0.0, 0.0
	for i, w := range p {
		lo, hi := time.Duration(i)*day, min(time.Duration(i+1)*day, total)
		if hi <= lo {
			break
		}
		all += w * float64(hi-lo)
		if s > lo {
			done += w * float64(min(s, hi)-lo)
		}
	}
	if all == 0 {
		return 1
	}
	return min(1, done/all)
}

// rate is the speed at sailing time s relative to the average over a sailing lasting total.
func (p pacing) rate(s, total time.Duration) float64 {
	if len(p) == 0 || total <= 0 {
		return 1
	}
	all := 0.0
	for i, w := range p {
		lo, hi := time.Duration(i)*day, min(time.Duration(i+1)*day, total)
		if hi > lo {
			all += w * float64(hi-lo)
		}
	}
	if all == 0 {
		return 1
	}
	return p[min(max(int(s/day), 0), len(p)-1)] * float64(total) / all
}

// sailTime is the sailing time at which a share f of the distance is done.
func (p pacing) sailTime(f float64, total time.Duration) time.Duration {
	lo, hi := time.Duration(0), total
	for hi-lo > time.Minute {
		mid := (lo + hi) / 2
		if p.progress(mid, total) < f {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// newPacing draws the relative speed of each day of a sailing lasting total: a few percent up or
// down day by day, and for heavy weather a storm of two to four days at half speed.
func newPacing(d dice, label string, total time.Duration, storm bool) pacing {
	days := int(total/day) + 1
	p := make(pacing, days)
	for i := range p {
		p[i] = 0.93 + 0.14*d.frac(fmt.Sprint(label, "/day/", i))
	}
	if storm && days > 2 {
		from := d.intn(label+"/storm", days-1)
		for i := from; i < min(days, from+2+d.intn(label+"/storm-days", 3)); i++ {
			p[i] *= 0.45 + 0.15*d.frac(fmt.Sprint(label, "/storm/", i))
		}
	}
	return p
}

// tailScale sets the mean delay of late arrivals to September 2025's 4.88 days.
const tailScale = 1.48

// arrivalDraw is how a vessel arrival goes: its cause and how late it is (negative when early).
type arrivalDraw struct {
	cause cause
	delay time.Duration
}

// mix is a cause of disruption with its weight and the mean of its delay's tail, in days.
type mix struct {
	cause  cause
	weight int
	mean   float64
}

// causes are the disruptions that may befall a vessel arriving at port at the absolute time
// when, through canal c (nil for none) for a large vessel or not.
func causes(port place, when time.Time, c *canal, large bool) []mix {
	queue := queueDays(port.LOCODE, port.point.Lat, when)
	out := []mix{{congestion, int(10 * queue), queue}, {heavyWeather, 12, 2.2}, {slipped, 10, 3.2}}
	if c != nil {
		w, mean := 12.0, float64(c.queue)/float64(day)
		if c.drySeason > 1 && when.Month() >= time.January && when.Month() <= time.May {
			w *= c.drySeason
		}
		if large {
			mean *= c.largeVessel
		}
		out = append(out, mix{canalQueue, int(w), mean})
	}
	return out
}

// lateBase is the least delay of a disrupted arrival, before its tail: a day and a bit.
const lateBase = 26 * hour

// forcedLate is the chance that a disrupted arrival of the mix is later than threshold.
func forcedLate(m []mix, threshold time.Duration) float64 {
	total, p := 0, 0.0
	x := max(0, (threshold-lateBase-6*hour).Hours()/24)
	for _, c := range m {
		total += c.weight
		p += float64(c.weight) * math.Exp(-x/(c.mean*tailScale))
	}
	if total == 0 {
		return 0
	}
	return p / float64(total)
}

// drawArrival draws a vessel arrival at port at the absolute time when, for line scac, through
// canal c (nil for none). forced is the chance that the arrival is late whatever is drawn, after
// a late departure it cannot make up: the draw's own disruptions are that much rarer, so that
// the line's arrivals stay as punctual as its figure.
func drawArrival(d dice, label, scac string, port place, when time.Time, c *canal, large bool, forced float64) arrivalDraw {
	u := d.frac(label + "/disrupted")
	p := disruptedShare(scac)
	if forced > 0 {
		p = max(0, (p-forced)/(1-forced))
	}
	switch {
	case u < earlyShare:
		return arrivalDraw{onSchedule, -d.between(label+"/early", 26*hour, 50*hour)}
	case u >= earlyShare+p:
		return arrivalDraw{onSchedule, d.between(label+"/on-time", -18*hour, 22*hour)}
	}
	m := causes(port, when, c, large)
	weights := make([]weighted[mix], len(m))
	for i, x := range m {
		weights[i] = weighted[mix]{x, x.weight}
	}
	k := pick(d, label+"/cause", weights)
	// Late by more than a day: a day and a bit, then a long tail (exponential, capped at three
	// times its mean).
	mean := k.mean * tailScale
	tail := time.Duration(min(-math.Log(1-0.999*d.frac(label+"/tail"))*mean, 3*mean) * float64(day))
	late := lateBase + d.between(label+"/late", 0, 12*hour) + tail
	return arrivalDraw{k.cause, late.Truncate(time.Minute)}
}

// sail lays out a passage from port from (the vessel leaving at depart) to port to, nm away,
// planned to berth at plannedBerth, with the arrival's draw. A slipped call moves its departure.
func (w *world) sail(d dice, label string, from, to place, nm float64, depart, plannedBerth time.Duration, a arrivalDraw) passage {
	p := passage{depart: depart, nm: nm}
	p.path, p.cum = w.seaPath(from, to)
	if a.cause == slipped {
		p.depart = max(p.depart, plannedBerth+a.delay-time.Duration(nm/maxServiceKnots*float64(hour)))
	}
	target := plannedBerth + a.delay
	anchorWait := d.between(label+"/berth-wait", 0, 5*hour)
	if a.cause == congestion {
		anchorWait = a.delay - d.between(label+"/congestion-early", 0, 14*hour)
	}
	var canalWait time.Duration
	if c, at, ok := canalOn(p.path, p.cum); ok {
		p.canal, p.canalNM = c, at
		canalWait = c.planned/2 + d.between(label+"/canal", 0, c.planned)
		if a.cause == canalQueue {
			canalWait = a.delay
		}
	}
	sailing := target - anchorWait - canalWait - p.depart
	fastest := time.Duration(nm / maxKnots * float64(hour))
	slowest := time.Duration(nm / minKnots * float64(hour))
	if sailing < fastest {
		sailing = fastest
	}
	if sailing > slowest {
		anchorWait += sailing - slowest
		sailing = slowest
	}
	sailing = sailing.Truncate(time.Minute)
	p.pace = newPacing(d, label, sailing, a.cause == heavyWeather)
	if canalWait > 0 {
		length := p.cum[len(p.cum)-1]
		p.canalFrom = p.depart + p.pace.sailTime(p.canalNM/max(length-anchorageNM, length*0.9), sailing)
		p.canalTo = p.canalFrom + canalWait
	}
	p.anchor = p.depart + sailing + canalWait
	p.berth = (p.anchor + anchorWait).Truncate(time.Minute)
	return p
}

// shifted is the passage with its times moved by off and its calls set.
func (p passage) shifted(off time.Duration, from, to int) passage {
	p.from, p.to = from, to
	p.depart += off
	p.anchor += off
	p.berth += off
	if p.canalTo > p.canalFrom {
		p.canalFrom += off
		p.canalTo += off
	}
	return p
}

// sailed returns the sailing time at offset t of the passage: the time under way, without the
// canal queue.
func (p passage) sailed(t time.Duration) time.Duration {
	s := t - p.depart
	if p.canalTo > p.canalFrom && t > p.canalFrom {
		s -= min(t, p.canalTo) - p.canalFrom
	}
	return max(0, s)
}

// sailing is the passage's time under way.
func (p passage) sailing() time.Duration { return p.sailed(p.anchor) }
