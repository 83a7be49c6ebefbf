package ingest_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/ais"
	"github.com/boxwatch/boxwatch/ais/ingest"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
	"github.com/boxwatch/boxwatch/tracking/trackingtest"
)

var ctx = context.Background()

// The vessel the tests follow: a real container ship's IMO number and MMSI.
const (
	imo  = "9321483"
	mmsi = 220417000
)

var start = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)

// report is a class A position report of the test vessel sailing east along the equator at 12
// knots, d after start, with a tag-block time.
func report(d time.Duration, course float64) ais.Message {
	return ais.Message{Type: 1, MMSI: mmsi, Time: start.Add(d), Position: geo.Point{Lat: 1, Lon: 100 + d.Hours()*12/60},
		HasPosition: true, Speed: 12, HasSpeed: true, Course: course, HasCourse: true, Heading: int(course), HasHeading: true}
}

// static is the test vessel's static and voyage report.
func static() ais.Message {
	return ais.Message{Type: 5, MMSI: mmsi, IMO: 9321483, Name: ais.TextOf("EMMA MAERSK"), CallSign: ais.TextOf("OYGR2")}
}

// nmea encodes messages as NMEA lines.
func nmea(t testing.TB, ms ...ais.Message) []byte {
	t.Helper()
	var e ais.Encoder
	var out []byte
	for i := range ms {
		var err error
		if out, err = e.Append(out, &ms[i]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// trackVessel stores a tracked shipment whose first leg, not arrived yet, is on the vessel imo.
func trackVessel(t testing.TB, db *store.DB, imo string) {
	t.Helper()
	a := storetest.MustCreateAccount(t, db, "acme-"+imo)
	tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(start), AccountID: a.ID, RequestType: boxwatch.RequestBillOfLading,
		RequestNumber: "BL" + imo, SCAC: "MAEU", RefNumbers: []string{}, ShipmentTags: []string{}, Status: boxwatch.StatusCreated,
		CreatedAt: start, UpdatedAt: start}
	s := boxwatch.Shipment{ID: boxwatch.NewID(start), AccountID: a.ID, TrackingRequestID: tr.ID, SCAC: "MAEU", BillOfLading: tr.RequestNumber,
		NormalizedNumber: tr.RequestNumber, RefNumbers: []string{}, Tags: []string{},
		Reference: boxwatch.CarrierReference{Type: tr.RequestType, Number: tr.RequestNumber, SCAC: "MAEU"},
		Route: []boxwatch.RouteStop{
			{Sequence: 1, LOCODE: "SGSIN", Role: boxwatch.RolePOL, ATD: start, OutboundVesselIMO: imo},
			{Sequence: 2, LOCODE: "LKCMB", Role: boxwatch.RolePOD, InboundVesselIMO: imo},
		},
		NextRefreshAt: start.Add(time.Hour), CreatedAt: start, UpdatedAt: start}
	tr.ShipmentID = s.ID
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
			return err
		}
		if err := tx.InsertShipment(ctx, s); err != nil {
			return err
		}
		return tx.SaveVessel(ctx, boxwatch.Vessel{ID: boxwatch.VesselID(imo), IMO: imo, Name: "EMMA MAERSK"}, start)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func newIngest(t testing.TB, db *store.DB, cfg ingest.Config) *ingest.Ingest {
	t.Helper()
	cfg.Store = db
	if cfg.Clock == nil {
		cfg.Clock = func() time.Time { return start.Add(24 * time.Hour) }
	}
	in, err := ingest.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func track(t testing.TB, db *store.DB) []boxwatch.VesselPosition {
	t.Helper()
	ps, err := db.VesselPositions(ctx, fmt.Sprint(mmsi), start.Add(-time.Hour), start.Add(1000*time.Hour), 100000)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestDecimation feeds a day of reports every 10 seconds, with one turn: the track keeps one per
// interval plus the turn, and the vessel learns its MMSI and last position.
func TestDecimation(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.Open(t)
		trackVessel(t, db, imo)
		var ms []ais.Message
		ms = append(ms, static())
		for s := 0; s < 6*3600; s += 10 {
			course := 90.0
			if s >= 3*3600+5 { // turns south-east 3 hours and 5 seconds in
				course = 135
			}
			ms = append(ms, report(time.Duration(s)*time.Second, course))
		}
		in := newIngest(t, db, ingest.Config{})
		if err := in.RefreshActive(ctx); err != nil {
			t.Fatal(err)
		}
		// The static report comes first: until it, the vessel's MMSI is not known to be active.
		if err := in.Feed(ctx, bytes.NewReader(nmea(t, ms[0]))); err != nil {
			t.Fatal(err)
		}
		if err := in.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if err := in.RefreshActive(ctx); err != nil {
			t.Fatal(err)
		}
		if err := in.Feed(ctx, bytes.NewReader(nmea(t, ms[1:]...))); err != nil {
			t.Fatal(err)
		}
		if err := in.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		got := track(t, db)
		// Every 5 minutes over 6 hours (72), plus the turn between two of them.
		if len(got) != 73 {
			t.Fatalf("%d positions kept, want 73 (one per 5 minutes and the turn)", len(got))
		}
		turn := got[37]
		if !turn.Timestamp.Equal(start.Add(3*time.Hour+10*time.Second)) || *turn.CourseDegrees != 135 {
			t.Fatalf("the turn is kept as %+v", turn)
		}
		v, err := db.Vessel(ctx, imo)
		if err != nil || v.MMSI != "220417000" || v.Position == nil || !v.Position.Timestamp.Equal(start.Add(6*time.Hour-10*time.Second)) {
			t.Fatalf("vessel %+v, %v", v, err)
		}
		st := in.Stats()
		if st.Positions != int64(len(ms)-1) || st.Stored != 73 || st.Identities != 1 || st.Errors != 0 {
			t.Fatalf("stats %+v", st)
		}
	})
}

// TestInactiveVessels: a vessel on no active leg has no stored track, only its last position; a
// shipment tracked soon after gets the track heard meanwhile, and one tracked later does not.
func TestInactiveVessels(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		refreshes int // lookups of the active legs between the reports and the tracking
		want      int
	}{
		{"TrackedSoonAfter", 1, 2},
		{"TrackedLater", 2, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := storetest.SQLite.Open(t)
			in := newIngest(t, db, ingest.Config{})
			if err := in.Feed(ctx, bytes.NewReader(nmea(t, static(), report(0, 90), report(time.Hour, 90)))); err != nil {
				t.Fatal(err)
			}
			if err := in.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if got := track(t, db); len(got) != 0 {
				t.Fatalf("a vessel on no active leg has a track of %d", len(got))
			}
			for range tt.refreshes {
				if err := in.RefreshActive(ctx); err != nil {
					t.Fatal(err)
				}
			}
			// The vessel is not one any carrier named yet: its last position waits under its MMSI.
			trackVessel(t, db, imo)
			v, err := db.Vessel(ctx, imo)
			if err != nil || v.MMSI != "220417000" || v.Position == nil || !v.Position.Timestamp.Equal(start.Add(time.Hour)) {
				t.Fatalf("vessel %+v, %v", v, err)
			}
			if err := in.RefreshActive(ctx); err != nil {
				t.Fatal(err)
			}
			if err := in.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if got := track(t, db); len(got) != tt.want {
				t.Fatalf("track of %d positions once tracked, want %d", len(got), tt.want)
			}
		})
	}
}

// TestSameReportFromTwoSources keeps a report heard by two receivers once.
func TestSameReportFromTwoSources(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite.Open(t)
	trackVessel(t, db, imo)
	if err := db.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{{MMSI: "220417000", IMO: imo}}, start); err != nil {
		t.Fatal(err)
	}
	in := newIngest(t, db, ingest.Config{Interval: time.Second})
	if err := in.RefreshActive(ctx); err != nil {
		t.Fatal(err)
	}
	var ms []ais.Message
	for i := range 20 {
		ms = append(ms, report(time.Duration(i)*time.Minute, 90))
	}
	lines := nmea(t, ms...)
	// The second receiver tags its lines with its own source and time.
	second := strings.ReplaceAll(string(lines), `\c:`, `\s:rx2,c:`)
	second = fixTagChecksums(t, second)
	var wg sync.WaitGroup
	for _, feed := range []string{string(lines), second} {
		wg.Go(func() {
			if err := in.Feed(ctx, strings.NewReader(feed)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := in.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got, st := track(t, db), in.Stats(); len(got) != 20 || st.Duplicates != 20 || st.Errors != 0 {
		t.Fatalf("%d positions stored, stats %+v; want 20 and 20 duplicates", len(got), st)
	}
}

// fixTagChecksums recomputes the checksum of every tag block in lines.
func fixTagChecksums(t testing.TB, lines string) string {
	t.Helper()
	var out []string
	for line := range strings.SplitSeq(strings.TrimSpace(lines), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, `\`) {
			end := strings.Index(line[1:], `\`) + 1
			body, _, _ := strings.Cut(line[1:end], "*")
			var sum byte
			for i := 0; i < len(body); i++ {
				sum ^= body[i]
			}
			line = fmt.Sprintf(`\%s*%02X%s`, body, sum, line[end:])
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n") + "\n"
}

// TestTCPFeedReconnects: a feed that drops and comes back loses nothing it sent after.
func TestTCPFeedReconnects(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite.Open(t)
	trackVessel(t, db, imo)
	if err := db.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{{MMSI: "220417000", IMO: imo}}, start); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var ms []ais.Message
	for i := range 40 {
		ms = append(ms, report(time.Duration(i)*time.Minute, 90))
	}
	first, second := nmea(t, ms[:20]...), nmea(t, ms[20:]...)
	served := make(chan struct{})
	go func() {
		defer close(served)
		for _, part := range [][]byte{first, second} {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write(part)
			c.Close() // the feed drops
		}
	}()
	in := newIngest(t, db, ingest.Config{Interval: time.Second, FlushEvery: 20 * time.Millisecond,
		Sources: []string{"tcp://" + ln.Addr().String()}})
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Stop(ctx) })
	trackingtest.Eventually(t, 20*time.Second, "the reports sent after the reconnection never arrived", func() bool {
		return len(track(t, db)) == 40
	})
	<-served
	if st := in.Stats(); st.Reconnects < 1 || st.Positions != 40 {
		t.Fatalf("stats %+v", st)
	}
}

// TestUDPFloodOfGarbage: valid reports get through a flood of garbage, which is counted.
func TestUDPFloodOfGarbage(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite.Open(t)
	trackVessel(t, db, imo)
	in := newIngest(t, db, ingest.Config{FlushEvery: 20 * time.Millisecond, Sources: []string{"udp://127.0.0.1:0"}})
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Stop(ctx) })
	addrs := in.ListenAddrs()
	if len(addrs) != 1 {
		t.Fatalf("listening on %v", addrs)
	}
	conn, err := net.Dial("udp", addrs[0].String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	garbage := [][]byte{
		[]byte("!AIVDM,1,1,,A,13HOI:0P0000VOHLCnHQKwvL05Ip,0*00\n"), // bad checksum
		bytes.Repeat([]byte("x"), 4000),                             // one long line
		[]byte("\x00\xff\\\\!!,,,,,,*\n$GPGGA,1,2,3*11\n"),
		[]byte("!AIVDM,9,9,9,Z,~~~~,7*5C\n"),
	}
	for i := range 5000 {
		conn.Write(garbage[i%len(garbage)])
	}
	valid := nmea(t, static(), report(time.Hour, 90))
	trackingtest.Eventually(t, 20*time.Second, "no valid report got through the garbage", func() bool {
		conn.Write(garbage[0])
		conn.Write(valid)
		v, err := db.Vessel(ctx, imo)
		return err == nil && v.Position != nil
	})
	if st := in.Stats(); st.Errors < 100 {
		t.Fatalf("garbage not counted: %+v", st)
	}
}

// TestFileSource: a file is replayed once. (Positions past their retention are the tracking
// engine's retention job's: tracking's TestRetentionJob.)
func TestFileSource(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite.Open(t)
	trackVessel(t, db, imo)
	path := filepath.Join(t.TempDir(), "feed.nmea")
	if err := os.WriteFile(path, nmea(t, static(), report(0, 90)), 0o600); err != nil {
		t.Fatal(err)
	}
	in := newIngest(t, db, ingest.Config{FlushEvery: 20 * time.Millisecond, Sources: []string{"file://" + path}})
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	trackingtest.Eventually(t, 10*time.Second, "the file's position never arrived", func() bool {
		v, err := db.Vessel(ctx, imo)
		return err == nil && v.Position != nil
	})
	if err := in.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestParseSources(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite.Open(t)
	for _, tt := range []struct {
		source string
		ok     bool
	}{
		{"tcp://127.0.0.1:5631", true},
		{"udp://0.0.0.0:10110", true},
		{"file:///var/lib/ais/feed.nmea", true},
		{"tcp://127.0.0.1", false},
		{"udp://:10110/path", false},
		{"file://relative/feed.nmea", false},
		{"http://example.com/feed", false},
		{"", false},
		{"::::", false},
	} {
		_, err := ingest.New(ingest.Config{Store: db, Sources: []string{tt.source}})
		if (err == nil) != tt.ok {
			t.Errorf("%q: err = %v, want ok %v", tt.source, err, tt.ok)
		}
	}
	if _, err := ingest.New(ingest.Config{}); err == nil {
		t.Error("no store: no error")
	}
}

func TestStartStopAnyOrder(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite.Open(t)
	in := newIngest(t, db, ingest.Config{Sources: []string{"udp://127.0.0.1:0"}})
	if err := in.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := in.Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if err := in.Stop(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReplicasStoreOnce: two processes ingesting the same feed into one database store each
// position once, with tag-block times and without (the time heard, to the second).
func TestReplicasStoreOnce(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		for _, tagged := range []bool{true, false} {
			db := b.Open(t)
			trackVessel(t, db, imo)
			if err := db.SaveVesselIdentities(ctx, []boxwatch.VesselIdentity{{MMSI: "220417000", IMO: imo}}, start); err != nil {
				t.Fatal(err)
			}
			var ms []ais.Message
			for i := range 30 {
				m := report(time.Duration(i)*time.Minute, 90)
				if !tagged {
					m.Time = time.Time{}
				}
				ms = append(ms, m)
			}
			lines := nmea(t, ms...)
			var replicas []*ingest.Ingest
			var wg sync.WaitGroup
			for range 2 {
				// Each replica hears the feed at its own moment within the same second.
				in := newIngest(t, db, ingest.Config{Interval: time.Second})
				if err := in.RefreshActive(ctx); err != nil {
					t.Fatal(err)
				}
				replicas = append(replicas, in)
				wg.Go(func() {
					if err := in.Feed(ctx, bytes.NewReader(lines)); err != nil {
						t.Error(err)
					}
					if err := in.Flush(ctx); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			got := track(t, db)
			want := 30
			if !tagged {
				want = 1 // without times, every report is heard in the same second: one position
			}
			stored := replicas[0].Stats().Stored + replicas[1].Stats().Stored
			if len(got) != want || stored != int64(want) {
				t.Fatalf("tagged %v: %d positions in the store, %d written by the replicas; want %d", tagged, len(got), stored, want)
			}
		}
	})
}

// validIMO returns the IMO number of six digits n with its check digit.
func validIMO(n int) string {
	s := fmt.Sprintf("%06d", n)
	sum := 0
	for i, c := range s {
		sum += int(c-'0') * (7 - i)
	}
	return fmt.Sprintf("%s%d", s, sum%10)
}

// TestIdentitiesBoundedInBytes: the identities static reports gave are kept within their byte
// bound, and an identity evicted before its flush is still written.
func TestIdentitiesBoundedInBytes(t *testing.T) {
	t.Parallel()
	storetest.ForEach(t, func(t *testing.T, b storetest.Backend) {
		db := b.Open(t)
		const vessels, max = 500, 8 << 10
		tracked := []int{0, 1, vessels / 2}
		for _, i := range tracked {
			trackVessel(t, db, validIMO(100000+i))
		}
		in := newIngest(t, db, ingest.Config{IdentityCacheBytes: max})
		var ms []ais.Message
		for i := range vessels {
			ms = append(ms, ais.Message{Type: 5, MMSI: uint32(300000000 + i), IMO: uint32(100000+i)*10 + uint32(validIMO(100000 + i)[6]-'0'),
				Name: ais.TextOf(fmt.Sprintf("VESSEL %d", i)), CallSign: ais.TextOf("CALL")})
		}
		if err := in.Feed(ctx, bytes.NewReader(nmea(t, ms...))); err != nil {
			t.Fatal(err)
		}
		st := in.CacheStats()
		if st.Name != "ais_identities" || st.Bytes > max || st.MaxBytes != max || st.Evictions == 0 || st.Entries >= vessels {
			t.Fatalf("identities after %d vessels: %+v, want evictions within %d bytes", vessels, st, max)
		}
		if err := in.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := db.ActiveLegVessels(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range tracked {
			if imo := got[fmt.Sprint(300000000+i)]; imo != validIMO(100000+i) {
				t.Errorf("vessel %d: active legs found MMSI → IMO %q, want %s: its identity, evicted before the flush, was not written", i, imo, validIMO(100000+i))
			}
		}
		if n := in.Stats().Identities; n != vessels {
			t.Errorf("%d identities counted, want %d", n, vessels)
		}
	})
}

// gatedStore is a real store whose lookups of active legs count how many run at once and, while
// gate is open (not closed), wait for it.
type gatedStore struct {
	*store.DB
	gate chan struct{}

	mu            sync.Mutex
	running, most int
	lookups       int
}

func (s *gatedStore) ActiveLegVessels(ctx context.Context) (map[string]string, error) {
	s.mu.Lock()
	s.running++
	s.lookups++
	s.most = max(s.most, s.running)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running--
		s.mu.Unlock()
	}()
	select {
	case <-s.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	time.Sleep(time.Millisecond) // long enough for a second lookup to overlap, were one allowed
	return s.DB.ActiveLegVessels(ctx)
}

func (s *gatedStore) counts() (lookups, most int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lookups, s.most
}

// TestStartDoesNotWaitForActiveLegs: Start returns while the first lookup of active legs has not
// answered, and the positions heard meanwhile are kept once it does.
func TestStartDoesNotWaitForActiveLegs(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite.Open(t)
	trackVessel(t, db, imo)
	gated := &gatedStore{DB: db, gate: make(chan struct{})}
	in, err := ingest.New(ingest.Config{Store: gated, FlushEvery: 20 * time.Millisecond, Sources: []string{"udp://127.0.0.1:0"},
		Clock: func() time.Time { return start.Add(24 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Stop(ctx) })
	c, err := net.Dial("udp", in.ListenAddrs()[0].String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	trackingtest.Eventually(t, 20*time.Second, "the report was never heard", func() bool {
		c.Write(nmea(t, static(), report(0, 90)))
		v, err := db.Vessel(ctx, imo)
		return in.Stats().Positions > 0 && err == nil && v.MMSI != ""
	})
	if got := track(t, db); len(got) != 0 {
		t.Fatalf("a track before the vessel was known active: %v", got)
	}
	close(gated.gate)
	trackingtest.Eventually(t, 20*time.Second, "the report heard before the first lookup was not kept", func() bool {
		return len(track(t, db)) == 1
	})
}

// TestActiveLegLookupsOneAtATime: however many route changes wake it and callers ask, the
// lookups of active legs never overlap.
func TestActiveLegLookupsOneAtATime(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite.Open(t)
	trackVessel(t, db, imo)
	gated := &gatedStore{DB: db, gate: make(chan struct{})}
	close(gated.gate)
	in, err := ingest.New(ingest.Config{Store: gated, ActiveEvery: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Stop(ctx) })
	var callers sync.WaitGroup
	for range 4 {
		callers.Go(func() {
			for range 10 {
				in.Wake()
				if err := in.RefreshActive(ctx); err != nil {
					t.Error(err)
				}
			}
		})
	}
	callers.Wait()
	if lookups, most := gated.counts(); most != 1 || lookups < 40 {
		t.Fatalf("%d lookups, up to %d at once", lookups, most)
	}
}
