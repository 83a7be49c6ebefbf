// Package ingest feeds AIS into the store: it reads NMEA lines from receivers and aggregators
// (TCP, UDP, files), decodes them with package ais, keeps each report once however many sources
// heard it, and writes what boxwatch keeps of vessels: the MMSI↔IMO links of static reports, the
// last position of every vessel heard, and a decimated track of the vessels on legs of tracked
// shipments, which the container map draws. Deleting old tracks is the tracking engine's
// retention job (one replica at a time, in batches).
//
// Ingest holds no state that must survive a restart: the store is the record, and several
// processes may ingest the same feed at once (the store keeps a position of a vessel at a time
// once).
package ingest

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"math"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/ais"
	"github.com/boxwatch/boxwatch/cache"
)

// newIdentityCache weighs an identity as its fields hold it.
func newIdentityCache(maxBytes int64) *cache.LRU[uint32, boxwatch.VesselIdentity] {
	switch {
	case maxBytes == 0:
		maxBytes = DefaultIdentityCacheBytes
	case maxBytes < 0:
		maxBytes = 0
	}
	return cache.New("ais_identities", maxBytes, func(_ uint32, id boxwatch.VesselIdentity) int64 {
		return int64(unsafe.Sizeof(id)) + int64(len(id.MMSI)+len(id.IMO)+len(id.Name)+len(id.CallSign)) + 4
	})
}

// CacheStats reports the identity cache, for the admin listener's metrics.
func (in *Ingest) CacheStats() cache.Stats { return in.identities.Stats() }

// Defaults of Config.
const (
	DefaultInterval    = 5 * time.Minute
	DefaultFlushEvery  = 250 * time.Millisecond
	DefaultActiveEvery = 30 * time.Second
)

// A track keeps a position between the decimation interval's when the vessel turns by this much
// or more, or starts or stops (crosses stoppedKnots), so the drawn path keeps its corners.
const (
	turnDegrees  = 30
	stoppedKnots = 0.5
)

// recentPerVessel bounds the track a vessel on no active leg keeps in memory, for the moment a
// shipment starts using it (see Ingest.recent).
const recentPerVessel = 10000

// dedupeWindow is how long a report's payload is remembered to drop the copies other sources
// hear: the same transmission reaches every receiver within a second or two.
const dedupeWindow = time.Minute

// dedupeCap bounds the payloads one generation of the dedupe memory holds. A feed that sends
// more distinct reports than this within a window has its window shortened instead of growing
// memory without bound (about 16 MiB a generation).
const dedupeCap = 1 << 19

// Config says where AIS comes from and what is kept of it.
type Config struct {
	// Store receives identities and positions; required.
	Store boxwatch.PositionStore
	// Sources are feeds as URLs: tcp://host:port (a client that reconnects), udp://addr:port (a
	// listener) or file:///path (read once).
	Sources []string
	// Interval is the longest gap kept between two stored positions of a vessel; positions in
	// between are kept only at turns, stops and starts. Default DefaultInterval.
	Interval time.Duration
	// FlushEvery is how often what was heard is written; default DefaultFlushEvery.
	FlushEvery time.Duration
	// ActiveEvery is the least time between the starts of two lookups of the vessels of active
	// legs, and the time from the end of one to the next when no route changed meanwhile;
	// default DefaultActiveEvery.
	ActiveEvery time.Duration
	// Clock times reports that carry no tag-block time; default the system clock.
	Clock  boxwatch.Clock
	Logger *slog.Logger
	// Metrics receives the ingest's counts (boxwatch_ais_*), read at every scrape; nil
	// registers none.
	Metrics prometheus.Registerer
	// IdentityCacheBytes bounds the identities static reports gave that are kept to tell a
	// report that changes one from a repeat (a vessel evicted is written once more when next
	// heard). 0 takes DefaultIdentityCacheBytes; a negative bound keeps none.
	IdentityCacheBytes int64
}

// DefaultIdentityCacheBytes holds the identities of about 40,000 vessels, as many as a global
// feed hears in a few hours.
const DefaultIdentityCacheBytes = 8 << 20

// Stats counts what an Ingest has seen since it was made.
type Stats struct {
	Lines       int64 // lines read from every source
	Messages    int64 // messages decoded
	Errors      int64 // lines skipped as malformed
	Duplicates  int64 // reports dropped because another source had already given them
	Positions   int64 // position reports taken (valid position, not a duplicate)
	Stored      int64 // positions written to vessels' tracks
	Identities  int64 // static reports that changed what is known of a vessel
	Reconnects  int64 // TCP connections made again after a drop
	FlushErrors int64 // writes that failed (their reports are kept for the next flush)
}

// SourceStats counts what one configured source gave since the Ingest was made.
type SourceStats struct {
	Source      string // as configured, e.g. tcp://host:port
	Lines       int64
	Messages    int64 // decoded
	Errors      int64 // lines skipped as malformed
	Reconnects  int64
	LastMessage time.Time // when a message was last decoded from it; zero if never
}

// Ingest runs the feeds. Start and Stop are safe in any order and idempotent.
type Ingest struct {
	cfg     Config
	sources []source
	// perSource holds each source's stats, in the order of Config.Sources; guarded by mu.
	perSource []*SourceStats

	mu        sync.Mutex
	stats     Stats
	seed      maphash.Seed
	seen      dedupe
	active    map[uint32]bool // MMSIs of vessels on active legs
	tracks    map[uint32]*track
	last      map[uint32]boxwatch.VesselPosition // newest position per vessel, not yet written
	positions []boxwatch.VesselPosition          // decimated positions not yet written
	// recent holds the decimated track of vessels on no active leg, heard since the last two
	// lookups of the active legs: a shipment tracked meanwhile (whose lookup answered while its
	// vessel's reports, or a backlog of them, arrived) gets its vessel's track from it.
	recent     map[uint32][]boxwatch.VesselPosition
	recentOld  map[uint32][]boxwatch.VesselPosition
	wake       chan struct{}                               // a route changed: holds at most one request, however many were made
	identities *cache.LRU[uint32, boxwatch.VesselIdentity] // what static reports said, per vessel heard lately
	idPending  map[uint32]boxwatch.VesselIdentity          // identities changed and not yet written
	listening  []net.Addr                                  // the UDP sources' addresses

	// looking is held by a lookup of the vessels of active legs: one at a time, whoever asks.
	looking sync.Mutex

	life    sync.Mutex
	cancel  context.CancelFunc
	running sync.WaitGroup
}

// track is what decimation remembers of a vessel: its last position kept. A vessel not heard
// for an interval is forgotten (its next report is kept anyway), so tracks holds only the
// vessels heard lately.
type track struct {
	at     time.Time
	course float64
	moving bool
	heard  time.Time // when, by the clock, its last report arrived
}

// New checks cfg and returns an Ingest that does nothing until Start.
func New(cfg Config) (*Ingest, error) {
	if cfg.Store == nil {
		return nil, errors.New("ingest: Store is required")
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = DefaultFlushEvery
	}
	if cfg.ActiveEvery <= 0 {
		cfg.ActiveEvery = DefaultActiveEvery
	}
	if cfg.Clock == nil {
		cfg.Clock = boxwatch.SystemClock
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	in := &Ingest{cfg: cfg, seed: maphash.MakeSeed(), active: map[uint32]bool{},
		tracks: map[uint32]*track{}, last: map[uint32]boxwatch.VesselPosition{},
		identities: newIdentityCache(cfg.IdentityCacheBytes), idPending: map[uint32]boxwatch.VesselIdentity{},
		recent: map[uint32][]boxwatch.VesselPosition{}, recentOld: map[uint32][]boxwatch.VesselPosition{}, wake: make(chan struct{}, 1)}
	for _, raw := range cfg.Sources {
		s, err := parseSource(raw)
		if err != nil {
			return nil, err
		}
		st := &SourceStats{Source: s.String()}
		for _, seen := range in.perSource {
			if seen.Source == st.Source {
				st = seen // the same source twice counts once
			}
		}
		in.sources = append(in.sources, s)
		in.perSource = append(in.perSource, st)
	}
	if err := in.register(cfg.Metrics); err != nil {
		return nil, err
	}
	return in, nil
}

// Start runs every source, the writer and the lookups of the vessels of active legs until
// Stop. It fails if a UDP source cannot listen. It does not wait for the first
// lookup: until it answers, every vessel heard counts as on no active leg, and a vessel it finds
// active gets the track it was heard to sail meanwhile (see RefreshActive).
func (in *Ingest) Start(ctx context.Context) error {
	in.life.Lock()
	defer in.life.Unlock()
	if in.cancel != nil {
		return nil
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var started []func()
	for _, s := range in.sources {
		run, err := s.open(runCtx, in)
		if err != nil {
			cancel()
			return err
		}
		started = append(started, run)
	}
	in.cancel = cancel
	for _, run := range started {
		in.running.Go(run)
	}
	in.running.Go(func() { in.every(runCtx, in.cfg.FlushEvery, in.Flush) })
	in.running.Go(func() { in.lookUpActive(runCtx) })
	return nil
}

// Stop ends the sources, waits for them, and writes what was heard, within ctx.
func (in *Ingest) Stop(ctx context.Context) error {
	in.life.Lock()
	defer in.life.Unlock()
	if in.cancel == nil {
		return nil
	}
	in.cancel()
	in.running.Wait()
	in.cancel = nil
	return in.Flush(ctx)
}

// lookUpActive runs RefreshActive until ctx ends: at once, then ActiveEvery after the end of
// each lookup, or, when a route changed (Wake), ActiveEvery after its start. A database that takes
// long to answer is never asked twice at once nor again and again.
func (in *Ingest) lookUpActive(ctx context.Context) {
	wait := time.NewTimer(0)
	defer wait.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-wait.C:
		}
		select {
		case <-in.wake: // this lookup sees the change
		default:
		}
		started := time.Now()
		if err := in.RefreshActive(ctx); err != nil && ctx.Err() == nil {
			in.cfg.Logger.Warn("ais ingest", "error", err.Error())
		}
		wait.Reset(in.cfg.ActiveEvery)
		select {
		case <-ctx.Done():
			return
		case <-wait.C:
			wait.Reset(0)
		case <-in.wake:
			wait.Reset(time.Until(started.Add(in.cfg.ActiveEvery)))
		}
	}
}

// every runs fn each period until ctx ends, logging its errors.
func (in *Ingest) every(ctx context.Context, period time.Duration, fn func(context.Context) error) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := fn(ctx); err != nil && ctx.Err() == nil {
				in.cfg.Logger.Warn("ais ingest", "error", err.Error())
			}
		}
	}
}

// Stats returns the counts so far.
func (in *Ingest) Stats() Stats {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.stats
}

// SourceStats returns each configured source's counts so far, in configuration order.
func (in *Ingest) SourceStats() []SourceStats {
	in.mu.Lock()
	defer in.mu.Unlock()
	var out []SourceStats
	for i, s := range in.perSource {
		if i == 0 || !slices.Contains(in.perSource[:i], s) {
			out = append(out, *s)
		}
	}
	return out
}

// sourceStats returns the stats of a configured source.
func (in *Ingest) sourceStats(s source) *SourceStats {
	for i, c := range in.sources {
		if c == s {
			return in.perSource[i]
		}
	}
	return nil
}

// Wake asks for the vessels of active legs to be looked up again soon, as when a shipment's
// route changed: ActiveEvery after the start of the last lookup, or after the one running ends.
// Requests made meanwhile are one. It never blocks.
func (in *Ingest) Wake() {
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

// RefreshActive looks up again which vessels are on legs of tracked shipments: only their
// positions are kept as tracks. A vessel that became active gets what it was heard to do since
// the lookup before the last. Lookups run one at a time: a call waits for the one running.
func (in *Ingest) RefreshActive(ctx context.Context) error {
	in.looking.Lock()
	defer in.looking.Unlock()
	vessels, err := in.cfg.Store.ActiveLegVessels(ctx)
	if err != nil {
		return fmt.Errorf("ais ingest: vessels of active legs: %w", err)
	}
	active := make(map[uint32]bool, len(vessels))
	for mmsi := range vessels {
		if n, err := strconv.ParseUint(mmsi, 10, 32); err == nil {
			active[uint32(n)] = true
		}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.active = active
	now := in.cfg.Clock()
	for mmsi, t := range in.tracks {
		if now.Sub(t.heard) > in.cfg.Interval {
			delete(in.tracks, mmsi) // its next report passes decimation whatever it remembered
		}
	}
	for _, buffer := range []map[uint32][]boxwatch.VesselPosition{in.recentOld, in.recent} {
		for mmsi, track := range buffer {
			if active[mmsi] {
				in.positions = append(in.positions, track...)
				delete(buffer, mmsi)
			}
		}
	}
	in.recentOld, in.recent = in.recent, in.recentOld
	clear(in.recent)
	return nil
}

// Flush writes what was heard since the last flush. What fails to be written is kept for the
// next one.
func (in *Ingest) Flush(ctx context.Context) error {
	in.mu.Lock()
	positions := in.positions
	in.positions = nil
	last := make([]boxwatch.VesselPosition, 0, len(in.last))
	for _, p := range in.last {
		last = append(last, p)
	}
	clear(in.last)
	ids := make([]boxwatch.VesselIdentity, 0, len(in.idPending))
	for _, id := range in.idPending {
		ids = append(ids, id)
	}
	clear(in.idPending)
	in.mu.Unlock()

	var errs []error
	if len(ids) > 0 {
		if err := in.cfg.Store.SaveVesselIdentities(ctx, ids, in.cfg.Clock()); err != nil {
			errs = append(errs, err)
			in.requeue(nil, nil, ids)
		}
	}
	if len(positions) > 0 {
		n, err := in.cfg.Store.SavePositions(ctx, positions)
		if err != nil {
			errs = append(errs, err)
			in.requeue(positions, nil, nil)
		}
		in.mu.Lock()
		in.stats.Stored += int64(n)
		in.mu.Unlock()
	}
	if len(last) > 0 {
		if err := in.cfg.Store.SaveLastPositions(ctx, last); err != nil {
			errs = append(errs, err)
			in.requeue(nil, last, nil)
		}
	}
	if err := errors.Join(errs...); err != nil {
		in.mu.Lock()
		in.stats.FlushErrors++
		in.mu.Unlock()
		return fmt.Errorf("ais ingest: writing: %w", err)
	}
	return nil
}

// requeue puts back what a failed flush did not write, under what arrived meanwhile.
func (in *Ingest) requeue(positions, last []boxwatch.VesselPosition, ids []boxwatch.VesselIdentity) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.positions = append(positions, in.positions...)
	for _, p := range last {
		mmsi := parseMMSI(p.MMSI)
		if newer, ok := in.last[mmsi]; !ok || p.Timestamp.After(newer.Timestamp) {
			in.last[mmsi] = p
		}
	}
	for _, id := range ids {
		if _, newer := in.idPending[parseMMSI(id.MMSI)]; !newer {
			in.idPending[parseMMSI(id.MMSI)] = id
		}
	}
}

func parseMMSI(s string) uint32 {
	n, _ := strconv.ParseUint(s, 10, 32)
	return uint32(n)
}

func formatMMSI(n uint32) string { return fmt.Sprintf("%09d", n) }

// ListenAddrs returns the addresses the UDP sources listen on, once started (a port given as 0
// is chosen by the system).
func (in *Ingest) ListenAddrs() []net.Addr {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]net.Addr(nil), in.listening...)
}

// feeder decodes the lines of one source; each source has its own, since multi-sentence
// messages are joined per feed.
type feeder struct {
	in  *Ingest
	src *SourceStats // nil for Feed
	dec ais.Decoder
	msg ais.Message
}

// count adds a line to the source's stats; called with in.mu held.
func (f *feeder) count(decoded, malformed bool, now time.Time) {
	if f.src == nil {
		return
	}
	f.src.Lines++
	if decoded {
		f.src.Messages++
		f.src.LastMessage = now
	}
	if malformed {
		f.src.Errors++
	}
}

// malformed counts a line too long to be a sentence.
func (f *feeder) malformed() {
	f.in.mu.Lock()
	f.in.stats.Lines++
	f.in.stats.Errors++
	f.count(false, true, time.Time{})
	f.in.mu.Unlock()
}

// line takes one NMEA line (without or with its line ending).
func (f *feeder) line(b []byte) {
	ok, err := f.dec.Decode(b, &f.msg)
	in := f.in
	if !ok {
		in.mu.Lock()
		in.stats.Lines++
		if err != nil {
			in.stats.Errors++
		}
		f.count(false, err != nil, time.Time{})
		in.mu.Unlock()
		return
	}
	now := in.cfg.Clock()
	in.mu.Lock()
	defer in.mu.Unlock()
	in.stats.Lines++
	in.stats.Messages++
	f.count(true, false, now)
	m := &f.msg
	switch m.Type {
	case 1, 2, 3, 18, 19, 27:
		if in.duplicate(b, now) {
			in.stats.Duplicates++
			return
		}
		in.position(m, now)
		if m.Type == 19 {
			in.identity(m)
		}
	case 5, 24:
		in.identity(m)
	}
}

// duplicate reports whether the sentence's payload was heard in the last dedupeWindow, and
// remembers it.
func (in *Ingest) duplicate(line []byte, now time.Time) bool {
	payload := payloadOf(line)
	if payload == nil {
		return false
	}
	return in.seen.heard(maphash.Bytes(in.seed, payload), now)
}

// dedupe remembers payload hashes in two generations, each started at most dedupeWindow after
// the one before: a hash is found for at least a window after it was heard (unless a flood
// filled a generation early), and dropping the older generation at once gives its memory back,
// where deleting from one map would keep it at its largest size.
type dedupe struct {
	cur, prev map[uint64]int64 // hash → when heard, in Unix nanoseconds
	started   time.Time        // when cur began
}

// heard reports whether h was heard within dedupeWindow before now, and records it at now.
func (d *dedupe) heard(h uint64, now time.Time) bool {
	if d.cur == nil || now.Sub(d.started) >= dedupeWindow || len(d.cur) >= dedupeCap {
		d.prev, d.cur, d.started = d.cur, make(map[uint64]int64), now
	}
	at, ok := d.cur[h]
	if !ok {
		at, ok = d.prev[h]
	}
	if ok && now.Sub(time.Unix(0, at)) <= dedupeWindow {
		return true // a copy: the window runs from the first hearing, not the last
	}
	d.cur[h] = now.UnixNano()
	return false
}

// payloadOf returns the armoured payload of a one-sentence message's line: the sixth field of
// the sentence after any tag block. Receivers differ in tag blocks, channels and talkers, never
// in the payload of the same transmission.
func payloadOf(line []byte) []byte {
	if i := lastIndexByte(line, '\\'); i >= 0 {
		line = line[i+1:]
	}
	field := 0
	start := -1
	for i, c := range line {
		if c != ',' {
			continue
		}
		field++
		switch field {
		case 5:
			start = i + 1
		case 6:
			return line[start:i]
		}
	}
	return nil
}

func lastIndexByte(b []byte, c byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// position takes a position report: the vessel's last position and, when the report passes
// decimation, its track (to be written when the vessel is on an active leg, held in recent when
// not). Called with in.mu held.
func (in *Ingest) position(m *ais.Message, now time.Time) {
	if !m.HasPosition || (m.Position.Lat == 0 && m.Position.Lon == 0) || m.MMSI == 0 {
		return
	}
	in.stats.Positions++
	at := m.Time
	if at.IsZero() {
		// Without a tag block the time is when it was heard, to the second: replicas hearing the
		// same feed then agree on it, and the store keeps the position once.
		at = now.Truncate(time.Second)
	}
	p := boxwatch.VesselPosition{Latitude: m.Position.Lat, Longitude: m.Position.Lon, Timestamp: at.UTC()}
	if m.HasSpeed {
		p.SpeedKnots = ptr(m.Speed)
	}
	if m.HasCourse {
		p.CourseDegrees = ptr(m.Course)
	}
	if m.HasHeading {
		p.HeadingDegrees = ptr(float64(m.Heading))
	}
	if prev, ok := in.last[m.MMSI]; !ok || at.After(prev.Timestamp) {
		p.MMSI = formatMMSI(m.MMSI)
		in.last[m.MMSI] = p
	}
	moving := m.HasSpeed && m.Speed >= stoppedKnots
	t := in.tracks[m.MMSI]
	if t != nil {
		if !at.After(t.at) {
			return // older than what the track holds: a late copy
		}
		turned := m.HasCourse && moving && t.moving && angleBetween(m.Course, t.course) >= turnDegrees
		if at.Sub(t.at) < in.cfg.Interval && !turned && moving == t.moving {
			return
		}
	} else {
		t = &track{}
		in.tracks[m.MMSI] = t
	}
	t.at, t.moving, t.heard = at, moving, now
	if m.HasCourse {
		t.course = m.Course
	}
	if p.MMSI == "" {
		p.MMSI = formatMMSI(m.MMSI)
	}
	if in.active[m.MMSI] {
		in.positions = append(in.positions, p)
		return
	}
	if r := in.recent[m.MMSI]; len(r) < recentPerVessel {
		in.recent[m.MMSI] = append(r, p)
	}
}

// identity takes a static report: the MMSI's IMO number, name and call sign. Called with in.mu
// held.
func (in *Ingest) identity(m *ais.Message) {
	if m.MMSI == 0 {
		return
	}
	id, pending := in.idPending[m.MMSI]
	if !pending {
		id, _ = in.identities.Get(m.MMSI)
	}
	next := id
	next.MMSI = formatMMSI(m.MMSI)
	if m.IMO != 0 {
		if imo := fmt.Sprintf("%07d", m.IMO); boxwatch.ValidIMO(imo) {
			next.IMO = imo
		}
	}
	if name := m.Name.String(); name != "" {
		next.Name = name
	}
	if cs := m.CallSign.String(); cs != "" {
		next.CallSign = cs
	}
	if next != id {
		in.identities.Add(m.MMSI, next)
		in.idPending[m.MMSI] = next
		in.stats.Identities++
	}
}

func ptr(f float64) *float64 { return &f }

// angleBetween is the smaller angle between two courses, 0 to 180 degrees.
func angleBetween(a, b float64) float64 {
	d := math.Mod(math.Abs(a-b), 360)
	return math.Min(d, 360-d)
}
