package sim

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch/cache"
	"github.com/boxwatch/boxwatch/data"
)

// TestJourneysFromTheCache: a journey the world's cache returns answers every query as one built
// afresh for the same number and first lookup, a journey of another first lookup is not taken
// for it, and the cache keeps to its bound.
func TestJourneysFromTheCache(t *testing.T) {
	t.Parallel()
	w := lateWorld(t)
	const bound = 64 << 10
	w.journeys = cache.New("sim_journeys", bound, journeyBytes)
	anchor := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	for i := range 120 {
		line, _ := data.Carriers().BySCAC([]string{"MSCU", "MAEU", "CMDU", "HLCU"}[i%4])
		// Eight numbers, each first looked up at fifteen times: the cache holds the journeys of a
		// number's earlier first lookups when a later one is asked.
		number := fmt.Sprintf("JC%s%06d", line.SCAC[:2], i%8)
		at := anchor.Add(time.Duration(i/8) * (151*time.Hour + 13*time.Minute + 17*time.Second))
		w.newJourney(line, number, at) // into the cache, or from it
		got, fresh := w.newJourney(line, number, at), w.buildJourney(line, number, at)
		asOf := at.Add(20 * day)
		if a, b := got.events(at, asOf), fresh.events(at, asOf); !reflect.DeepEqual(a, b) {
			t.Fatalf("%s first looked up at %v: the cached journey's %d events differ from a fresh one's %d", number, at, len(a), len(b))
		}

		if st := w.journeys.Stats(); st.Bytes > bound {
			t.Fatalf("the journey cache weighs %d bytes, over its bound of %d", st.Bytes, bound)
		}
	}
	st := w.journeys.Stats()
	if st.Hits == 0 || st.Evictions == 0 {
		t.Errorf("cache %+v: the test should both hit and evict", st)
	}
}
