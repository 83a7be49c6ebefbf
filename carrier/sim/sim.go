// Package sim is a simulated carrier network: a deterministic world of real ports, trade lanes
// and vessels in which every bill of lading, booking and container number has a journey, served
// as DCSA Track & Trace 2.2 or 3.0 over HTTP, one base URL per SCAC, in the spec's shape or in
// the shapes real carriers answer in (see Dialect). It lets the whole service run on a
// fresh machine and gives tests numbers with known outcomes (see Network).
//
// The service must reach it over HTTP through its DCSA client, like any carrier, never by
// calling into this package; the package must not import the engine or the store.
package sim

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // event times are local to each port, the same on every machine

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/cache"
	"github.com/boxwatch/boxwatch/carrier/dcsa"
	"github.com/boxwatch/boxwatch/data"
)

// Options configure a Network. The zero value simulates every line of the shipped registry
// with the shipped ports and fleet, in real time, with an in-memory State.
type Options struct {
	// Carriers is the registry the simulated lines come from; data.Carriers when nil.
	Carriers *boxwatch.Carriers
	// SCACs are the lines to simulate (primary or alternative SCACs); every SCAC of Carriers when
	// empty. An alternative SCAC answers as its line.
	SCACs []string
	// Ports and Fleet are the world's reference data; data.Ports and data.Fleet when nil.
	// Every port of the simulator's lanes must be in Ports with coordinates.
	Ports *boxwatch.Ports
	Fleet []boxwatch.Vessel
	// Terminals are the listed terminals whose operating systems the simulator runs at their
	// ports (a port without any runs two simulated ones); data.Terminals when nil.
	Terminals []boxwatch.Terminal
	// State remembers first lookups and attempts; a MemoryState when nil.
	State State
	// Clock is the real time; time.Now when nil.
	Clock func() time.Time
	// Speed is how many times faster than real time the simulated world runs after a number's
	// first lookup; 1 when zero.
	Speed float64
	// Latency delays every answer, as a remote carrier would.
	Latency time.Duration
	// RetryAfter is the Retry-After of the unreachable numbers' 503 answers; 30 s when zero.
	RetryAfter time.Duration
	// Log receives failures of State; nothing is logged when nil.
	Log *slog.Logger
	// SailingCacheBytes bounds the sailings the world keeps laid out (DefaultSailingCacheBytes
	// when zero); an evicted sailing is laid out again, the same, when it is needed.
	SailingCacheBytes int64
	// Dialect is how answers are written; the zero value is Track & Trace 2.2 by the spec.
	Dialect Dialect
	// Router gives the sea paths vessels sail, and the sea distances that time their passages;
	// without one, a lane's distance is its great circle times a detour factor, and vessels
	// broadcast positions along the great circle.
	Router Router
}

// Network is the simulated carrier network. It is an http.Handler serving
// GET /{SCAC}/v2/events (GET /{SCAC}/v3/events in Track & Trace 3.0) for every simulated SCAC,
// and the terminal operating systems of the ports it calls at (see terminal.go); Start serves it
// on a listener.
//
// Every number has a journey, the same on every run and every replica sharing a State, except
// these documented test numbers:
//   - A test line (TestLine in the registry, boxwatch's TEST): TEST-TR-SUCCEEDED has a journey;
//     TEST-TR-FAILED is unknown.
//   - A number ending in 0000 is unknown: the answer is an empty list.
//   - A number ending in 9999 gets 503 with Retry-After on its first two lookups, then a journey
//     placed by the digit before the 9999.
//   - A number ending in 4100 gets 410 Gone: its data is no longer served.
//   - A number ending in 5030 is answered at its first lookup, placed by the digit before the
//     5030; every later lookup gets 503 with Retry-After.
//   - A bill or booking ending in 7710 is a booking cancelled (shipment event CANC) before its
//     first lookup, before any empty was picked up; one ending in 7720 is looked up while booked
//     and cancelled a few hours later.
//   - A number ending in 7730 was picked up at the port of discharge 30 days (to two headways
//     more) before its first lookup, and its empties are never returned; one ending in 7740
//     arrived there 60 days (or a little more) before, and its boxes are never picked up.
//   - Otherwise the last digit fixes where the journey stands at the number's first lookup:
//     0 booked, empty not yet picked up; 1 full at the port of lading, awaiting the next sailing;
//     2–4 at sea on the first ocean leg; 5 at the transshipment port (at sea on a direct lane); 6
//     at sea on the last leg; 7 at sea, its vessel the next to arrive at the port of discharge; 8
//     discharged, available for pickup; 9 delivered and the empty returned. A number
//     ending in a letter goes by the last digit in it, or stands at 3 when it has none.
//
// A valid ISO 6346 container number, whichever parameter carries it, is a journey of that one
// container with no booking or bill known. Any other number is a booking whose bill of lading
// has the same number (when it fits DCSA's 20 characters), with one to four containers of the
// line's own owner prefixes. Its boxes sail voyages every journey aboard shares (vessels keep
// rotations: see rotation.go). Simulated time starts at the first lookup and runs Speed times
// faster from there.
type Network struct {
	world      *world
	lines      map[string]boxwatch.ShippingLine // by every served SCAC
	state      State
	clock      func() time.Time
	speed      float64
	latency    time.Duration
	retryAfter time.Duration
	log        *slog.Logger
	dialect    Dialect
	mux        *http.ServeMux

	mu        sync.Mutex
	server    *http.Server
	serving   sync.WaitGroup // the server's goroutine
	root      string         // "http://host:port" once started
	broadcast *broadcaster   // the AIS feed, once StartAIS was called
}

// Markers end the numbers whose answers or journeys depart from the usual (see Network). Each
// ends in 0 or 9, digits that numbers generated for load tests and benchmarks do not end in.
const (
	// retryMarker: the first lookups find the carrier unreachable.
	retryMarker = "9999"
	// goneMarker: the carrier no longer serves the number's data (410 Gone).
	goneMarker = "4100"
	// silentMarker: the first lookup is answered, every later one finds the carrier unreachable.
	silentMarker = "5030"
	// cancelledMarker and cancelsMarker: the booking was cancelled before the first lookup, or is
	// a few hours after it.
	cancelledMarker = "7710"
	cancelsMarker   = "7720"
	// unreturnedMarker: the boxes were picked up 30 days before the first lookup and their
	// empties are never returned; abandonedMarker: the vessel arrived 60 days before it and the
	// boxes are never picked up.
	unreturnedMarker = "7730"
	abandonedMarker  = "7740"
	// inlandMarker: the boxes go on by rail from a North American port of discharge to an inland
	// ramp (where the port has rail service); the digit before it places the journey.
	inlandMarker = "7750"
	// euInlandMarker: the boxes go on by barge or rail from a North European port of discharge
	// (Rotterdam, Antwerp, Hamburg, Bremerhaven) to an inland terminal; the digit before it
	// places the journey.
	euInlandMarker = "7790"
)

// unreachableAttempts is how many lookups of a number ending in 9999 fail.
const unreachableAttempts = 2

// APIVersion and APIVersionV3 are the API-Version headers of the network's answers in Track &
// Trace 2.2 and 3.0.
const (
	APIVersion   = "2.2.0"
	APIVersionV3 = "3.0.0"
)

// New builds a network. It fails on invalid options: a negative or non-finite Speed, a negative
// Latency or RetryAfter, an SCAC missing from Carriers, a lane port missing from Ports, a Fleet
// of fewer than two vessels, or an unknown Dialect version.
func New(o Options) (*Network, error) {
	if err := o.Dialect.validate(); err != nil {
		return nil, err
	}
	if o.Carriers == nil {
		o.Carriers = data.Carriers()
	}
	if o.Ports == nil {
		o.Ports = data.Ports()
	}
	if o.Fleet == nil {
		o.Fleet = data.Fleet()
	}
	if o.Terminals == nil {
		o.Terminals = data.Terminals()
	}
	if o.State == nil {
		o.State = NewMemoryState()
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Speed == 0 {
		o.Speed = 1
	}
	if o.Speed < 0 || math.IsNaN(o.Speed) || math.IsInf(o.Speed, 0) {
		return nil, fmt.Errorf("sim: speed %v is not a positive number", o.Speed)
	}
	if o.Latency < 0 || o.RetryAfter < 0 {
		return nil, errors.New("sim: latency and retry-after must not be negative")
	}
	if o.RetryAfter == 0 {
		o.RetryAfter = 30 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	w, err := newWorld(o.Carriers, o.Ports, o.Fleet, o.Router)
	if err != nil {
		return nil, err
	}
	if o.SailingCacheBytes < 0 {
		return nil, errors.New("sim: the sailing cache's bound must not be negative")
	}
	if o.SailingCacheBytes > 0 {
		w.sailings = cache.New("sim_sailings", o.SailingCacheBytes, sailingBytes)
	}
	w.setTerminals(o.Terminals)
	n := &Network{world: w, lines: map[string]boxwatch.ShippingLine{}, state: o.State, clock: o.Clock,
		speed: o.Speed, latency: o.Latency, retryAfter: o.RetryAfter, log: o.Log, dialect: o.Dialect}
	scacs := o.SCACs
	if len(scacs) == 0 {
		for _, l := range o.Carriers.All() {
			scacs = append(scacs, l.SCAC)
			scacs = append(scacs, l.AlternativeSCACs...)
		}
	}
	for _, s := range scacs {
		line, ok := o.Carriers.BySCAC(s)
		if !ok {
			return nil, fmt.Errorf("sim: SCAC %q is not in the carrier registry", s)
		}
		n.lines[s] = line
	}
	n.mux = http.NewServeMux()
	n.mux.HandleFunc(n.eventsPath("{scac}"), n.serveEvents)
	n.mux.HandleFunc("/terminals/{locode}/{terminal}/v1/containers/{number}", n.serveTerminal)
	n.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		n.fail(w, r, http.StatusNotFound, "notFound", "no such resource: the simulated carriers serve "+n.eventsPath("{SCAC}"))
	})
	return n, nil
}

// eventsPath is the path of scac's events.
func (n *Network) eventsPath(scac string) string {
	if n.dialect.v3() {
		return "/" + scac + "/v3/events"
	}
	return "/" + scac + "/v2/events"
}

// CacheStats reports the world's caches (laid-out sailings, built journeys), for
// admin.CacheCollector.
func (n *Network) CacheStats() []func() cache.Stats {
	return []func() cache.Stats{n.world.sailings.Stats, n.world.journeys.Stats}
}

// Version is the Track & Trace version the network speaks, dcsa.Version22 or dcsa.Version30.
func (n *Network) Version() string {
	if n.dialect.v3() {
		return dcsa.Version30
	}
	return dcsa.Version22
}

// SCACs returns the simulated SCACs, sorted.
func (n *Network) SCACs() []string {
	out := make([]string, 0, len(n.lines))
	for s := range n.lines {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// Start serves the network on ln in the background until Close. It fails when already started.
func (n *Network) Start(ln net.Listener) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.server != nil {
		return errors.New("sim: already started")
	}
	n.server = &http.Server{Handler: n, ReadHeaderTimeout: 10 * time.Second}
	n.root = "http://" + ln.Addr().String()
	n.serving.Go(func() { n.server.Serve(ln) }) //nolint:errcheck // Serve returns ErrServerClosed once Close is called
	return nil
}

// Close stops serving, closes the listener given to Start and returns once the server's
// goroutine has ended.
func (n *Network) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.broadcast != nil {
		n.broadcast.close()
		n.broadcast = nil
	}
	if n.server == nil {
		return nil
	}
	err := n.server.Close()
	n.serving.Wait()
	return err
}

// BaseURL returns the DCSA base URL of a simulated SCAC once Start was called: GET
// BaseURL + "/v2/events" ("/v3/events" in 3.0) queries it. ok is false for an SCAC the network
// does not simulate or before Start. Served by another server, the base URL is that server's
// root followed by "/" + SCAC.
func (n *Network) BaseURL(scac string) (url string, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, simulated := n.lines[scac]; !simulated || n.root == "" {
		return "", false
	}
	return n.root + "/" + scac, true
}

// ServeHTTP implements http.Handler.
func (n *Network) ServeHTTP(w http.ResponseWriter, r *http.Request) { n.mux.ServeHTTP(w, r) }

// errUnreachable is the answer to the first lookups of a number ending in 9999, and to the later
// ones of a number ending in 5030; errGone to every lookup of a number ending in 4100.
var (
	errUnreachable = errors.New("carrier unreachable")
	errGone        = errors.New("data gone")
)

func (n *Network) serveEvents(w http.ResponseWriter, r *http.Request) {
	scac := strings.ToUpper(r.PathValue("scac"))
	line, ok := n.lines[scac]
	if !ok {
		n.fail(w, r, http.StatusNotFound, "notFound", fmt.Sprintf("SCAC %q is not simulated here", scac))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		n.fail(w, r, http.StatusMethodNotAllowed, "methodNotAllowed", "only GET is supported")
		return
	}
	if !n.wait(r.Context()) {
		return
	}
	major := n.Version()[:1] // "2" or "3"
	if v := r.Header.Get(dcsa.HeaderAPIVersion); v != "" && v != major && !strings.HasPrefix(v, major+".") {
		n.fail(w, r, http.StatusBadRequest, "invalidHeader", fmt.Sprintf("API-Version %q: this server speaks version %s", v, major))
		return
	}
	q, err := parseQuery(r.URL.Query())
	if err != nil {
		n.fail(w, r, http.StatusBadRequest, "invalidQuery", err.Error())
		return
	}
	events, err := n.lookup(r.Context(), line, &q)
	switch {
	case errors.Is(err, errUnreachable):
		w.Header().Set("Retry-After", fmt.Sprint(int(math.Ceil(n.retryAfter.Seconds()))))
		n.fail(w, r, http.StatusServiceUnavailable, "serviceUnavailable", "the carrier's system is unavailable; try again later")
		return
	case errors.Is(err, errGone):
		n.fail(w, r, http.StatusGone, "gone", "the shipment's data is no longer available")
		return
	case err != nil:
		n.log.Error("sim: state", "scac", line.SCAC, "err", err)
		n.fail(w, r, http.StatusInternalServerError, "internalError", "the simulation's state is unavailable")
		return
	}

	total := len(events)
	from := min(q.Offset, total)
	to := min(from+q.Limit, total)
	page := make([]dcsa.Event, 0, to-from)
	for _, e := range events[from:to] {
		page = append(page, e.Event)
	}
	body, err := n.dialect.render(page, from == 0)
	if err != nil {
		n.fail(w, r, http.StatusInternalServerError, "internalError", "cannot encode the events")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set(dcsa.HeaderAPIVersion, n.apiVersion())
	if !n.dialect.v3() {
		h.Set(dcsa.HeaderCurrentPage, n.pageLink(r, scac, q))
	}
	if to < total {
		next := q
		next.Offset = to
		if n.dialect.v3() {
			h.Set(dcsa.HeaderNextPageCursor, next.cursor())
		} else {
			h.Set(dcsa.HeaderNextPage, n.pageLink(r, scac, next))
		}
	}
	w.Write(body) //nolint:errcheck // the client went away
}

// lookup returns the events that answer q, sorted, with q's world pinned (Anchor and AsOf set)
// for the page links. It returns errUnreachable for the first lookups of a number ending in
// 9999 and the later ones of a number ending in 5030, errGone for a number ending in 4100, and
// the State's errors.
func (n *Network) lookup(ctx context.Context, line boxwatch.ShippingLine, q *query) ([]event, error) {
	number := cmp.Or(q.Bill, q.Booking, q.Equipment)
	if q.Bill != "" && q.Booking != "" && q.Bill != q.Booking {
		return nil, nil // the simulated lines give a booking's bill of lading the booking's number
	}
	if unknown(line, number) {
		return nil, nil
	}
	byContainer := boxwatch.ContainerNumberProblem(number) == ""
	if number == q.Equipment && !byContainer {
		return nil, nil // no container has that number
	}
	if strings.HasSuffix(number, goneMarker) {
		return nil, errGone
	}
	key := line.SCAC + "/" + number
	if q.AsOf.IsZero() {
		retry, silent := strings.HasSuffix(number, retryMarker), strings.HasSuffix(number, silentMarker)
		if retry || silent {
			attempt, err := n.state.Increment(ctx, key)
			if err != nil {
				return nil, err
			}
			if retry && attempt <= unreachableAttempts || silent && attempt > 1 {
				return nil, errUnreachable
			}
		}
		now := n.clock()
		anchor, err := n.state.FirstSeen(ctx, key, now)
		if err != nil {
			return nil, err
		}
		q.Anchor, q.AsOf = anchor, n.simTime(anchor, now)
	}
	j := n.world.newJourney(line, number, q.Anchor)
	if q.Equipment != "" && !slices.ContainsFunc(j.equipment, func(e equipment) bool { return e.ref == q.Equipment }) {
		return nil, nil
	}
	if b := n.aisFeed(); b != nil {
		b.register(j, q.Anchor)
	}
	all := j.events(q.Anchor, q.AsOf)
	n.dialect.shape(j.key, all)
	events := all[:0]
	for _, e := range all {
		if q.match(e) {
			events = append(events, e)
		}
	}
	q.sort(events)
	return events, nil
}

// aisFeed returns the AIS broadcaster, nil when StartAIS was not called.
func (n *Network) aisFeed() *broadcaster {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.broadcast
}

// unknown reports whether number is one of the documented numbers line does not know.
func unknown(line boxwatch.ShippingLine, number string) bool {
	return strings.HasSuffix(number, "0000") || line.TestLine && number == "TEST-TR-FAILED"
}

// simTime is the simulated time at real time now for a journey first looked up at anchor.
func (n *Network) simTime(anchor, now time.Time) time.Time {
	elapsed := float64(max(now.Sub(anchor), 0)) * n.speed
	return anchor.Add(time.Duration(min(elapsed, float64(maxElapsed))))
}

// wait holds the answer for the configured latency; it returns false when the client gives up.
func (n *Network) wait(ctx context.Context) bool {
	if n.latency <= 0 {
		return true
	}
	t := time.NewTimer(n.latency)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// apiVersion is the API-Version header of the network's answers.
func (n *Network) apiVersion() string {
	if n.dialect.v3() {
		return APIVersionV3
	}
	return APIVersion
}

// pageLink is the absolute URL of a page of the result q describes.
func (n *Network) pageLink(r *http.Request, scac string, q query) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	u := url.URL{Scheme: scheme, Host: r.Host, Path: n.eventsPath(scac),
		RawQuery: url.Values{dcsa.ParamCursor: {q.cursor()}}.Encode()}
	return u.String()
}

// fail answers with DCSA's error body.
func (n *Network) fail(w http.ResponseWriter, r *http.Request, status int, reason, message string) {
	type subError struct {
		Reason  string `json:"reason"`
		Message string `json:"message"`
	}
	body, _ := json.Marshal(struct {
		HTTPMethod     string     `json:"httpMethod"`
		RequestURI     string     `json:"requestUri"`
		StatusCode     int        `json:"statusCode"`
		StatusCodeText string     `json:"statusCodeText"`
		ErrorDateTime  string     `json:"errorDateTime"`
		Errors         []subError `json:"errors"`
	}{r.Method, r.URL.RequestURI(), status, http.StatusText(status), n.clock().UTC().Format(time.RFC3339),
		[]subError{{reason, message}}})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set(dcsa.HeaderAPIVersion, n.apiVersion())
	w.WriteHeader(status)
	w.Write(body) //nolint:errcheck // the client went away
}
