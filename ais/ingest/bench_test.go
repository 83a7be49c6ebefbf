package ingest_test

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/ais"
	"github.com/boxwatch/boxwatch/ais/ingest"
	"github.com/boxwatch/boxwatch/geo"
	"github.com/boxwatch/boxwatch/store"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// benchVessels is how many vessels are on active legs of tracked shipments; as many again are
// heard but tracked by no one.
const benchVessels = 1000

// BenchmarkIngest measures end-to-end ingest (decode, dedupe, filter, decimate, store) of a feed
// of b.N position reports from 2,000 vessels, half of them on active legs, each reporting every
// 10 seconds, beside decoding alone ("baseline") in the same run. Run it with a fixed count
// (-benchtime 300000x): the feed is made before the clock starts.
func BenchmarkIngest(b *testing.B) {
	for _, backend := range storetest.Backends {
		b.Run(backend.Name, func(b *testing.B) {
			if backend.Name == "postgres" {
				storetest.RequirePostgres(b)
			}
			db := backend.Open(b)
			seedActiveLegs(b, db)
			b.Run("baseline", func(b *testing.B) {
				feed := benchFeed(b, b.N)
				var d ais.Decoder
				var m ais.Message
				lines := bytes.Split(feed, []byte("\n"))
				b.ResetTimer()
				n := 0
				for _, line := range lines {
					if ok, _ := d.Decode(line, &m); ok {
						n++
					}
				}
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "reports/s")
			})
			b.Run("store", func(b *testing.B) {
				feed := benchFeed(b, b.N)
				in, err := ingest.New(ingest.Config{Store: db})
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				if err := in.Start(ctx); err != nil {
					b.Fatal(err)
				}
				if err := in.Feed(ctx, bytes.NewReader(feed)); err != nil {
					b.Fatal(err)
				}
				if err := in.Stop(ctx); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				st := in.Stats()
				// The first run, of one report (b.N = 1), may store nothing.
				if st.Positions != int64(b.N) || st.Errors != 0 || st.Stored == 0 && b.N > 1 {
					b.Fatalf("stats %+v for %d reports", st, b.N)
				}
				b.ReportMetric(float64(st.Positions)/b.Elapsed().Seconds(), "reports/s")
				b.ReportMetric(float64(st.Stored), "stored")
			})
		})
	}
}

// benchMMSI is the MMSI of the i-th vessel of the benchmark; the first benchVessels are tracked.
func benchMMSI(i int) uint32 { return 200000000 + uint32(i) }

// benchIMO is a valid IMO number for the i-th vessel.
func benchIMO(i int) string {
	six := fmt.Sprintf("%06d", 100000+i)
	sum := 0
	for k := range 6 {
		sum += int(six[k]-'0') * (7 - k)
	}
	return fmt.Sprintf("%s%d", six, sum%10)
}

// seedActiveLegs stores benchVessels shipments, each on a leg of its own vessel not arrived yet,
// with the vessels' MMSIs known.
func seedActiveLegs(b *testing.B, db *store.DB) {
	b.Helper()
	a := storetest.MustCreateAccount(b, db, "bench")
	var ids []boxwatch.VesselIdentity
	err := db.InTx(ctx, func(tx boxwatch.Tx) error {
		for i := range benchVessels {
			imo := benchIMO(i)
			created := start.Add(time.Duration(i) * time.Millisecond)
			tr := boxwatch.TrackingRequest{ID: boxwatch.NewID(created), AccountID: a.ID, RequestType: boxwatch.RequestBillOfLading,
				RequestNumber: "BENCH" + imo, SCAC: "MAEU", RefNumbers: []string{}, ShipmentTags: []string{}, Status: boxwatch.StatusCreated,
				CreatedAt: created, UpdatedAt: created}
			s := boxwatch.Shipment{ID: boxwatch.NewID(created), AccountID: a.ID, TrackingRequestID: tr.ID, SCAC: "MAEU",
				BillOfLading: tr.RequestNumber, NormalizedNumber: tr.RequestNumber, RefNumbers: []string{}, Tags: []string{},
				Reference: boxwatch.CarrierReference{Type: tr.RequestType, Number: tr.RequestNumber, SCAC: "MAEU"},
				Route: []boxwatch.RouteStop{
					{Sequence: 1, LOCODE: "CNSHA", Role: boxwatch.RolePOL, ATD: start, OutboundVesselIMO: imo},
					{Sequence: 2, LOCODE: "NLRTM", Role: boxwatch.RolePOD, InboundVesselIMO: imo},
				},
				NextRefreshAt: start.Add(time.Hour), CreatedAt: created, UpdatedAt: created}
			tr.ShipmentID = s.ID
			if err := tx.CreateTrackingRequest(ctx, tr); err != nil {
				return err
			}
			if err := tx.InsertShipment(ctx, s); err != nil {
				return err
			}
			ids = append(ids, boxwatch.VesselIdentity{MMSI: fmt.Sprintf("%09d", benchMMSI(i)), IMO: imo})
		}
		return nil
	})
	if err == nil {
		err = db.SaveVesselIdentities(ctx, ids, start)
	}
	if err != nil {
		b.Fatal(err)
	}
}

// benchRuns counts the feeds made, so that each run's reports are later than the last run's:
// the benchmark runs more than once over one database.
var benchRuns atomic.Int64

// benchFeed encodes n position reports, round-robin over 2×benchVessels vessels, 10 seconds apart
// for each vessel, with tag-block times after every earlier feed's.
func benchFeed(b *testing.B, n int) []byte {
	b.Helper()
	first := start.Add(time.Duration(benchRuns.Add(1)) * 1000 * time.Hour)
	var e ais.Encoder
	out := make([]byte, 0, n*70)
	fleet := 2 * benchVessels
	for k := range n {
		i, round := k%fleet, k/fleet
		m := ais.Message{Type: 1, MMSI: benchMMSI(i), Time: first.Add(time.Duration(round) * 10 * time.Second),
			Position:    geo.Point{Lat: -30 + float64(i)*0.03, Lon: -170 + float64(round)*0.001},
			HasPosition: true, Speed: 15, HasSpeed: true, Course: 90, HasCourse: true, Heading: 90, HasHeading: true}
		var err error
		if out, err = e.Append(out, &m); err != nil {
			b.Fatal(err)
		}
	}
	return out
}
