package sim

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/cache"
	"github.com/boxwatch/boxwatch/geo"
)

// lane is a trade the simulated carriers sell: cargo from one of the origins to one of the
// destinations, direct or through a hub where it changes vessel. Shipments run it either way.
type lane struct {
	code         string // stem of its service codes (at most 3 characters)
	name         string
	origins      []string
	hub          string // UN/LOCODE of the transshipment port, or "" for a direct service
	destinations []string
	// detour is the sea distance over the great-circle distance of each leg (origin to hub or
	// destination, then hub to destination): canals, straits and capes make it more than 1.
	detour [2]float64
}

// lanes are the simulated world's trades between real container ports. The detour factors
// were set so that the busiest pair of each lane gets its usual sea distance (Shanghai–Rotterdam
// through Suez is about 10,500 nautical miles against 4,820 on the great circle).
var lanes = []lane{
	{code: "AE", name: "Asia–North Europe", origins: []string{"CNSHA", "CNNGB", "CNXMN", "CNTAO", "KRPUS", "HKHKG"},
		destinations: []string{"NLRTM", "DEHAM", "BEANR", "GBFXT", "FRLEH"}, detour: [2]float64{2.15}},
	{code: "AS", name: "Southeast Asia–North Europe via Singapore", origins: []string{"THLCH", "VNCLI", "VNHPH", "IDJKT", "PHMNL"},
		hub: "SGSIN", destinations: []string{"NLRTM", "DEHAM", "BEANR", "GBFXT", "DEBRV"}, detour: [2]float64{1.15, 1.46}},
	{code: "AM", name: "Asia–Mediterranean", origins: []string{"CNSHA", "CNNGB", "CNXMN", "KRPUS", "HKHKG"},
		destinations: []string{"ITGOA", "ESVLC", "ESBCN", "GRPIR", "FRFOS"}, detour: [2]float64{1.75}},
	{code: "AT", name: "Southeast Asia–Mediterranean via Tanjung Pelepas", origins: []string{"THLCH", "VNCLI", "IDJKT", "PHMNL"},
		hub: "MYTPP", destinations: []string{"ITGOA", "ESVLC", "GRPIR", "ITSPE"}, detour: [2]float64{1.12, 1.37}},
	{code: "TP", name: "Transpacific", origins: []string{"CNSHA", "CNNGB", "CNXMN", "KRPUS", "HKHKG", "TWKHH", "JPTYO"},
		destinations: []string{"USLAX", "USLGB", "USSEA", "USTIW", "CAVAN", "CAPRR"}, detour: [2]float64{1.03}},
	{code: "TB", name: "North China–US West Coast via Busan", origins: []string{"CNTAO", "CNDLC", "CNTXG"},
		hub: "KRPUS", destinations: []string{"USLAX", "USLGB", "USSEA", "CAVAN"}, detour: [2]float64{1.3, 1.02}},
	{code: "AU", name: "Asia–US East Coast via Panama", origins: []string{"CNSHA", "CNNGB", "CNXMN", "KRPUS"},
		destinations: []string{"USNYC", "USSAV", "USCHS", "USORF", "USBAL"}, detour: [2]float64{1.62}},
	{code: "AC", name: "Asia–Caribbean via Manzanillo", origins: []string{"CNSHA", "CNNGB", "KRPUS", "HKHKG"},
		hub: "PAMIT", destinations: []string{"COCTG", "DOCAU", "JMKIN", "CRLIO"}, detour: [2]float64{1.05, 1.2}},
	{code: "TA", name: "Transatlantic", origins: []string{"NLRTM", "DEHAM", "BEANR", "DEBRV", "GBFXT", "FRLEH"},
		destinations: []string{"USNYC", "USSAV", "USCHS", "USORF", "USBAL", "CAHAL", "CAMTR"}, detour: [2]float64{1.1}},
	{code: "IC", name: "Bay of Bengal–North Europe via Colombo", origins: []string{"BDCGP", "INMAA", "INTUT"},
		hub: "LKCMB", destinations: []string{"NLRTM", "DEHAM", "BEANR", "GBFXT"}, detour: [2]float64{1.1, 1.39}},
	{code: "WA", name: "North Europe–West Africa via Tanger Med", origins: []string{"NLRTM", "BEANR", "DEHAM", "FRLEH", "GBFXT"},
		hub: "MAPTM", destinations: []string{"GHTEM", "NGAPP", "CIABJ", "SNDKR", "TGLFW"}, detour: [2]float64{1.31, 1.35}},
	{code: "IA", name: "Intra-Asia", origins: []string{"CNSHA", "CNNGB", "CNXMN", "KRPUS", "JPTYO", "JPYOK", "HKHKG", "TWKHH"},
		destinations: []string{"SGSIN", "THLCH", "VNCLI", "MYPKG", "IDJKT", "PHMNL"}, detour: [2]float64{1.12}},
	{code: "ME", name: "Asia–Middle East and India", origins: []string{"CNSHA", "CNNGB", "HKHKG", "KRPUS", "SGSIN"},
		destinations: []string{"AEJEA", "INNSA", "INMUN", "PKKHI", "OMSLL"}, detour: [2]float64{1.42}},
	{code: "OC", name: "Asia–Oceania", origins: []string{"CNSHA", "CNNGB", "KRPUS", "HKHKG", "SGSIN"},
		destinations: []string{"AUSYD", "AUMEL", "AUBNE", "NZAKL"}, detour: [2]float64{1.1}},
	{code: "SA", name: "Europe–East Coast South America", origins: []string{"NLRTM", "DEHAM", "BEANR", "ESALG", "FRLEH"},
		destinations: []string{"BRSSZ", "BRRIG", "ARBUE", "UYMVD"}, detour: [2]float64{1.03}},
	{code: "CB", name: "US–Caribbean and Central America", origins: []string{"USMIA", "USPEF", "USJAX", "USHOU"},
		destinations: []string{"JMKIN", "DOCAU", "HNPCR", "GTSTC", "CRLIO", "COCTG"}, detour: [2]float64{1.25}},
}

// carrierLanes lists the lanes of the regional carriers; every other carrier serves all lanes.
var carrierLanes = map[string][]string{
	"SITC": {"IA"}, "KMTU": {"IA", "ME"}, "SKLU": {"IA"}, "TXZJ": {"IA"}, "CULU": {"IA"}, "SQQY": {"IA", "ME"},
	"WHLC": {"IA", "ME", "TP"}, "PCIU": {"IA", "ME", "OC"}, "GOSU": {"IA", "OC"}, "SMLM": {"TP", "IA"},
	"ESPU": {"ME", "IA"}, "MATS": {"TP"}, "SSBF": {"TP"}, "CHVW": {"OC"}, "ANNU": {"OC", "IA"},
	"APLU": {"TP", "IA", "AU", "ME"}, "ACLU": {"TA"}, "IILU": {"TA"}, "TRKU": {"TA"}, "ARKU": {"WA"},
	"CLAM": {"CB"}, "SMLU": {"CB"}, "SEAU": {"CB", "TA"}, "SUDU": {"SA", "TA", "CB"}, "SAFM": {"WA", "SA"},
}

// brands are how container lines name their ships, judged from the names in the fleet data:
// a vessel whose name starts with one of the prefixes (or ends with " MAERSK") is operated by
// that SCAC's line.
var brands = []struct {
	scac     string
	prefixes []string
}{
	{"MSCU", []string{"MSC "}},
	{"MAEU", []string{"MAERSK ", "A.P. MOELLER"}},
	{"SAFM", []string{"SAFMARINE "}},
	{"CMDU", []string{"CMA CGM ", "CMA-CGM "}},
	{"APLU", []string{"APL "}},
	{"ANNU", []string{"ANL "}},
	{"COSU", []string{"COSCO "}},
	{"OOLU", []string{"OOCL "}},
	{"HLCU", []string{"HAPAG ", "CSAV "}},
	{"EGLV", []string{"EVER ", "ITAL ", "LT "}},
	{"ONEY", []string{"ONE ", "MOL ", "NYK "}},
	{"HDMU", []string{"HYUNDAI ", "HMM "}},
	{"YMLU", []string{"YM "}},
	{"ZIMU", []string{"ZIM "}},
	{"WHLC", []string{"WAN HAI "}},
	{"PCIU", []string{"KOTA "}},
	{"SUDU", []string{"CAP ", "SANTA "}},
}

// operatorOf returns the SCAC of the line that operates a vessel, judged by its name, or "".
func operatorOf(name string) string {
	if strings.HasSuffix(name, " MAERSK") {
		return "MAEU"
	}
	for _, b := range brands {
		for _, p := range b.prefixes {
			if strings.HasPrefix(name, p) {
				return b.scac
			}
		}
	}
	return ""
}

// place is a port of the simulated world with its position and time zone.
type place struct {
	boxwatch.Port
	point geo.Point
	loc   *time.Location
}

// service is a carrier's service on a lane: its codes and the loops that sail each leg of it.
type service struct {
	lane *lane
	// codes and loops are per leg of the lane (one leg when it has no hub).
	codes [2]string
	loops [2][]*loop
}

// world is the static part of the simulation: ports, lanes and each carrier's services.
type world struct {
	carriers *boxwatch.Carriers
	places   map[string]place
	services map[string][]service // by primary SCAC
	loops    map[string][]*loop   // by lane, leg and class (see loopKey)
	router   Router               // nil: vessels sail great circles
	// terminals are the terminals of every place, by UN/LOCODE, by path key (see setTerminals).
	terminals map[string][]terminalSpot
	// waterways are the barge routes inland (data.Waterways).
	waterways *boxwatch.Waterways

	mu     sync.Mutex
	routes map[[2]string]seaRoute // by port pair

	// sailings are the loops' sailings laid out, bounded in bytes (DefaultSailingCacheBytes);
	// layMu lets one goroutine at a time lay out sailings, so a vessel's are laid out once.
	sailings *cache.LRU[sailingKey, *sailing]
	layMu    sync.Mutex
	// journeys are the journeys built, bounded in bytes (DefaultJourneyCacheBytes).
	journeys *cache.LRU[journeyKey, *journey]
}

// seaRoute is the path of a vessel between two ports, the distance along it to each point, and
// its length.
type seaRoute struct {
	points []geo.Point
	cum    []float64
	nm     float64
}

// route returns the sea path between two ports and its length.
func (w *world) route(from, to place) ([]geo.Point, float64) {
	r := w.seaRoute(from, to)
	return r.points, r.nm
}

// seaRoute returns the router's path between two ports, computed once per pair (the pairs are the
// lanes' ports: a fixed set), or the great circle without a router or when it finds no path.
func (w *world) seaRoute(from, to place) seaRoute {
	key := [2]string{from.LOCODE, to.LOCODE}
	w.mu.Lock()
	r, ok := w.routes[key]
	w.mu.Unlock()
	if ok {
		return r
	}
	points, nm := []geo.Point{from.point, to.point}, geo.DistanceNM(from.point, to.point)
	if w.router != nil {
		if p, n, err := w.router(from.point, to.point); err == nil && len(p) >= 2 {
			points, nm = p, n
		}
	}
	r = seaRoute{points: points, cum: make([]float64, len(points)), nm: nm}
	for i := 1; i < len(points); i++ {
		r.cum[i] = r.cum[i-1] + geo.DistanceNM(points[i-1], points[i])
	}
	w.mu.Lock()
	w.routes[key] = r
	w.mu.Unlock()
	return r
}

func newWorld(carriers *boxwatch.Carriers, ports *boxwatch.Ports, fleet []boxwatch.Vessel, router Router) (*world, error) {
	if len(fleet) < 2 {
		return nil, fmt.Errorf("sim: the fleet has %d vessels; at least 2 are needed", len(fleet))
	}
	w := &world{carriers: carriers, places: map[string]place{}, services: map[string][]service{}, router: router,
		sailings: cache.New("sim_sailings", DefaultSailingCacheBytes, sailingBytes),
		journeys: cache.New("sim_journeys", DefaultJourneyCacheBytes, journeyBytes),
		routes:   map[[2]string]seaRoute{}}
	for _, l := range lanes {
		codes := slices.Concat(l.origins, l.destinations)
		if l.hub != "" {
			codes = append(codes, l.hub)
		}
		for _, code := range codes {
			if _, done := w.places[code]; done {
				continue
			}
			p, ok := ports.ByLOCODE(code)
			if !ok || !p.HasCoordinates {
				return nil, fmt.Errorf("sim: lane %s needs port %s with coordinates", l.code, code)
			}
			loc, err := time.LoadLocation(p.TimeZone)
			if err != nil || p.TimeZone == "" {
				loc = time.UTC
			}
			w.places[code] = place{Port: p, point: geo.Point{Lat: p.Latitude, Lon: p.Longitude}, loc: loc}
		}
	}
	if err := w.addInlandPlaces(ports); err != nil {
		return nil, err
	}
	fleet = slices.Clone(fleet)
	slices.SortFunc(fleet, func(a, b boxwatch.Vessel) int { return cmp.Compare(a.IMO, b.IMO) })
	w.buildLoops(carriers.All(), fleet)
	for _, line := range carriers.All() {
		w.services[line.SCAC] = w.carrierServices(line)
	}
	return w, nil
}

// carrierServices gives a line one service per lane it serves, sailed by the loops of its
// punctuality class, under its own service codes.
func (w *world) carrierServices(line boxwatch.ShippingLine) []service {
	d := dice("line/" + line.SCAC)
	served := servedLanes(line)
	var out []service
	for i := range lanes {
		l := &lanes[i]
		if !slices.Contains(served, l.code) {
			continue
		}
		s := service{lane: l}
		code := fmt.Sprintf("%s%d", l.code, 1+d.intn("service/"+l.code, 9))
		for leg := range legs(l) {
			s.codes[leg] = code
			if l.hub != "" && leg == w.feederLeg(l) {
				s.codes[leg] = code + "F"
			}
			s.loops[leg] = w.loops[loopKey(l.code, leg, classOf(line.SCAC))]
		}
		out = append(out, s)
	}
	return out
}

func parentSCAC(line boxwatch.ShippingLine) string {
	var parent string
	if raw, ok := line.Extra["parent_scac"]; ok {
		_ = json.Unmarshal(raw, &parent) // a malformed parent just means no parent fleet
	}
	return parent
}

// legs is the number of ocean legs of a lane: two through a hub, one direct.
func legs(l *lane) int {
	if l.hub == "" {
		return 1
	}
	return 2
}

// feederLeg is the shorter leg of a hub lane, sailed by a feeder service.
func (w *world) feederLeg(l *lane) int {
	first := l.detour[0] * geo.DistanceNM(w.places[l.origins[0]].point, w.places[l.hub].point)
	second := l.detour[1] * geo.DistanceNM(w.places[l.hub].point, w.places[l.destinations[0]].point)
	if first < second {
		return 0
	}
	return 1
}
