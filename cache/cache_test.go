package cache

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

func byLen(_ string, v string) int64 { return int64(len(v)) }

func TestLRUEvictsLeastRecentlyUsed(t *testing.T) {
	c := New("test", 3*(Overhead+10), byLen)
	for _, k := range []string{"a", "b", "c"} {
		if !c.Add(k, "0123456789") {
			t.Fatalf("Add(%s) kept nothing", k)
		}
	}
	if _, ok := c.Get("a"); !ok { // a is now the most recently used
		t.Fatal("a missing before the bound was reached")
	}
	c.Add("d", "0123456789")
	if _, ok := c.Get("b"); ok {
		t.Error("b, the least recently used, was kept past the bound")
	}
	for _, k := range []string{"a", "c", "d"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%s was dropped; only b should have been", k)
		}
	}
	s := c.Stats()
	want := Stats{Name: "test", Entries: 3, Bytes: 3 * (Overhead + 10), MaxBytes: 3 * (Overhead + 10), Hits: 4, Misses: 1, Evictions: 1}
	if s != want {
		t.Errorf("Stats = %+v, want %+v", s, want)
	}
}

func TestLRUHeavierThanBoundNotKept(t *testing.T) {
	c := New("test", Overhead+4, byLen)
	if !c.Add("k", "1234") {
		t.Fatal("an entry of exactly the bound was not kept")
	}
	if c.Add("k", "12345") {
		t.Error("an entry heavier than the bound was kept")
	}
	if _, ok := c.Get("k"); ok {
		t.Error("the older value of a key whose new value was too heavy is still served")
	}
	if s := c.Stats(); s.Bytes != 0 || s.Entries != 0 {
		t.Errorf("Stats = %+v, want an empty cache", s)
	}
}

func TestLRUReplaceReweighs(t *testing.T) {
	c := New("test", 1<<20, byLen)
	c.Add("k", "short")
	c.Add("k", "a longer value")
	if v, _ := c.Get("k"); v != "a longer value" {
		t.Errorf("Get = %q, want the newer value", v)
	}
	if s := c.Stats(); s.Entries != 1 || s.Bytes != Overhead+int64(len("a longer value")) {
		t.Errorf("Stats = %+v, want one entry of the newer value's weight", s)
	}
	c.Remove("k")
	c.Remove("absent")
	if s := c.Stats(); s.Entries != 0 || s.Bytes != 0 {
		t.Errorf("after Remove: %+v", s)
	}
}

func TestLRUZeroBoundKeepsNothing(t *testing.T) {
	c := New("off", 0, byLen)
	if c.Add("k", "") {
		t.Error("a cache bounded at zero kept an entry")
	}
	c.Get("k")
	if s := c.Stats(); s.Misses != 1 || s.Entries != 0 {
		t.Errorf("Stats = %+v, want one miss and nothing kept", s)
	}
}

func TestNilLRUHoldsNothing(t *testing.T) {
	var c *LRU[string, string]
	if c.Add("k", "v") {
		t.Error("a nil cache kept an entry")
	}
	if _, ok := c.Get("k"); ok {
		t.Error("a nil cache answered")
	}
	c.Remove("k")
	c.Purge()
	if c.Len() != 0 || c.Stats() != (Stats{}) {
		t.Error("a nil cache reports something")
	}
}

// The bound holds after any sequence of adds, replaces and removes, and the weight it reports is
// the sum of what it holds.
func TestLRUBoundHoldsUnderRandomUse(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	const max = 20 * Overhead
	c := New("random", max, byLen)
	for i := range 20_000 {
		k := fmt.Sprint(r.IntN(64))
		switch r.IntN(4) {
		case 0:
			c.Remove(k)
		case 1:
			c.Get(k)
		default:
			c.Add(k, string(make([]byte, r.IntN(3*Overhead))))
		}
		c.mu.Lock()
		var sum int64
		for el := c.order.Front(); el != nil; el = el.Next() {
			sum += el.Value.(*entry[string, string]).weight
		}
		bytes, n, listed := c.bytes, len(c.items), c.order.Len()
		c.mu.Unlock()
		if bytes > max || sum != bytes || n != listed {
			t.Fatalf("step %d: bytes %d (bound %d), sum of entries %d, %d keys, %d listed", i, bytes, max, sum, n, listed)
		}
	}
}

func TestLRUConcurrentUse(t *testing.T) {
	c := New("concurrent", 50*Overhead, byLen)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				k := fmt.Sprint((g * i) % 97)
				c.Add(k, k)
				c.Get(k)
				if i%10 == 0 {
					c.Remove(k)
				}
				if i%500 == 0 {
					c.Purge()
				}
			}
		})
	}
	wg.Wait()
	if s := c.Stats(); s.Bytes > s.MaxBytes || s.Hits+s.Misses != 8*2000 {
		t.Errorf("Stats = %+v: over the bound, or lookups lost", s)
	}
}

// Every value added is, at any moment, either held or released exactly once: whether the bound
// dropped it, a newer value replaced it, Remove or Purge dropped it, or it was too heavy to keep.
func TestLRUReleasesEveryValueLetGoOnce(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	type value struct {
		id   int
		size int
	}
	released := map[int]int{}
	c := NewReleasing("releasing", 10*Overhead, func(_ string, v *value) int64 { return int64(v.size) },
		func(_ string, v *value) { released[v.id]++ })
	added := 0
	for i := range 20_000 {
		k := fmt.Sprint(r.IntN(32))
		switch r.IntN(10) {
		case 0:
			c.Remove(k)
		case 1:
			if r.IntN(50) == 0 {
				c.Purge()
			}
		default:
			c.Add(k, &value{id: added, size: r.IntN(12 * Overhead)})
			added++
		}
		if i%1000 == 0 || i == 19_999 {
			held := map[int]bool{}
			c.mu.Lock()
			for el := c.order.Front(); el != nil; el = el.Next() {
				held[el.Value.(*entry[string, *value]).value.id] = true
			}
			c.mu.Unlock()
			for id := range added {
				if n := released[id]; n > 1 || n == 1 && held[id] || n == 0 && !held[id] {
					t.Fatalf("step %d: value %d released %d times, held %v", i, id, n, held[id])
				}
			}
		}
	}
	if c.Stats().Evictions == 0 {
		t.Error("the bound never dropped an entry: the test did not reach it")
	}
}
