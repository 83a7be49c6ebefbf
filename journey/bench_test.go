package journey_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/journey"
	"github.com/boxwatch/boxwatch/journey/journeytest"
	"github.com/boxwatch/boxwatch/store/storetest"
)

// BenchmarkContainerMap draws the map of a container on the third leg of its journey, its
// vessels' tracks 20,000 stored positions in all (one a minute), on SQLite, from parallel
// goroutines. Its baseline reads the container and its shipment, the two reads every map starts
// with, so make bench prints each map's throughput, and its CPU cost, as a share of that. map_cache is the engine as
// serve runs it (a map drawn is reused for 10 s); map_nocache draws every map afresh (the track
// and route caches on); map_nocache_notrack also reads the legs' whole tracks from the database
// for every map.
func BenchmarkContainerMap(b *testing.B) {
	db := storetest.SQLite.Open(b)
	acme, id, clock := journeytest.SeedThreeLegs(b, db)
	b.Run("baseline", func(b *testing.B) {
		parallel(b, func() error {
			c, err := db.Container(b.Context(), acme, id)
			if err != nil {
				return err
			}
			_, err = db.Shipment(b.Context(), acme, c.ShipmentID)
			return err
		})
	})
	for _, v := range []struct {
		name                 string
		mapBytes, trackBytes int64
	}{
		{"map_cache", journey.DefaultMapCacheBytes, journey.DefaultTrackCacheBytes},
		{"map_nocache", 0, journey.DefaultTrackCacheBytes},
		{"map_nocache_notrack", 0, 0},
	} {
		cfg := journeytest.Config(db, clock.Now)
		cfg.MapCacheBytes, cfg.TrackCacheBytes = v.mapBytes, v.trackBytes
		maps, err := journey.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		m, err := maps.ContainerMap(b.Context(), acme, id, false)
		if err != nil {
			b.Fatal(err)
		}
		if doc := checkMap(b, m.Body); len(doc.Features) < 7 {
			b.Fatalf("the map has %d features", len(doc.Features))
		}
		b.Run(v.name, func(b *testing.B) {
			parallel(b, func() error {
				_, err := maps.ContainerMap(b.Context(), acme, id, false)
				return err
			})
		})
	}
}

// parallel runs op b.N times from parallel goroutines and reports the CPU time each cost
// (cpu-ns/op, the process's, SQLite's included): on the shared machines the benchmarks run on it
// holds steady where throughput follows the neighbours' load.
func parallel(b *testing.B, op func() error) {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	b.ReportAllocs()
	before := cpu()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := op(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(cpu()-before)/float64(b.N), "cpu-ns/op")
}
