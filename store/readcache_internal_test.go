package store

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/cache"
)

// TestDeepCopy: a copy shares nothing a caller could change, nested slices, maps and pointers
// included, and equals the original.
func TestDeepCopy(t *testing.T) {
	n := 3
	type inner struct {
		List []string
		Map  map[string][]int
	}
	type outer struct {
		Name  string
		When  time.Time
		Ptr   *int
		Inner inner
		Many  []inner
		Any   any
		Ship  boxwatch.Shipment
	}
	orig := outer{Name: "a", When: time.Now(), Ptr: &n, Inner: inner{List: []string{"x"}, Map: map[string][]int{"k": {1}}},
		Many: []inner{{List: []string{"y"}}}, Any: []string{"z"},
		Ship: boxwatch.Shipment{Tags: []string{"t"}, Route: []boxwatch.RouteStop{{LOCODE: "CNSHA"}}}}
	c := deepCopy(orig)
	if !reflect.DeepEqual(c, orig) {
		t.Fatalf("the copy differs: %+v", c)
	}
	*c.Ptr = 4
	c.Inner.List[0] = "changed"
	c.Inner.Map["k"][0] = 2
	c.Inner.Map["new"] = nil
	c.Many[0].List[0] = "changed"
	c.Any.([]string)[0] = "changed"
	c.Ship.Tags[0] = "changed"
	c.Ship.Route[0].LOCODE = "changed"
	if n != 3 || orig.Inner.List[0] != "x" || orig.Inner.Map["k"][0] != 1 || len(orig.Inner.Map) != 1 || orig.Many[0].List[0] != "y" ||
		orig.Any.([]string)[0] != "z" || orig.Ship.Tags[0] != "t" || orig.Ship.Route[0].LOCODE != "CNSHA" {
		t.Fatalf("changing the copy changed the original: %+v", orig)
	}
}

// TestReadCacheBounds: the cache holds at most its bound in bytes, dropping the least recently
// used; an entry answers only its account; nothing answers while the cache is not live.
func TestReadCacheBounds(t *testing.T) {
	small := cache.Overhead + int64(len("0")+len("acct")) + sizeOf("0") // what each entry below weighs
	c := newReadCache(3 * small)
	put := func(key string) { c.put(c.begin(key), key, "acct", key) }
	put("a") // not live yet: nothing stored
	if _, ok := c.get("a", "acct"); ok {
		t.Fatal("a cache not live answered")
	}
	c.reset(true)
	for i := range 3 {
		put(fmt.Sprint(i))
	}
	c.get("0", "acct") // 1 is now the least recently used
	put("3")
	for key, want := range map[string]bool{"0": true, "1": false, "2": true, "3": true} {
		if _, ok := c.get(key, "acct"); ok != want {
			t.Errorf("entry %s present: %v, want %v", key, ok, want)
		}
	}
	if _, ok := c.get("0", "other"); ok {
		t.Error("an entry answered another account")
	}
	tok := c.begin("4")
	c.evict("4")
	c.put(tok, "4", "acct", "stale")
	if _, ok := c.get("4", "acct"); ok {
		t.Error("a read begun before an eviction of its key stored its answer")
	}
	c.reset(false)
	if _, ok := c.get("0", "acct"); ok {
		t.Error("entries survived the listener's loss")
	}
}

// TestReadCacheBoundInBytes: what bounds the cache is what its objects weigh, not their count: a
// shipment's containers with their many events evict several small objects, one heavier than the
// bound is not kept, and the bytes reported never pass the bound.
func TestReadCacheBoundInBytes(t *testing.T) {
	const max = 64 << 10
	c := newReadCache(max)
	c.reset(true)
	events := func(n int) []boxwatch.TransportEvent {
		list := make([]boxwatch.TransportEvent, n)
		for i := range list {
			list[i] = boxwatch.TransportEvent{ID: fmt.Sprintf("%036d", i), Event: "container.transport.vessel_departed", LOCODE: "CNSHA"}
		}
		return list
	}
	put := func(i int) {
		key := containerEventsKey(fmt.Sprint(i))
		c.put(c.begin(key), key, "acct", events(1))
	}
	put(0)
	small := c.stats().Bytes
	fill := int(max * 9 / 10 / small) // nine tenths of the bound
	for i := 1; i < fill; i++ {
		put(i)
	}
	before := c.stats()
	if before.Entries != fill || before.Evictions != 0 {
		t.Fatalf("%d small entries of %d bytes: %+v, want all kept", fill, small, before)
	}
	// One weighing a third of the bound: small ones go, least recently used first.
	big := events(1)
	for sizeOf(big) < max/3 {
		big = events(2 * len(big))
	}
	c.put(c.begin("big"), "big", "acct", big)
	after := c.stats()
	if _, ok := c.get("big", "acct"); !ok || after.Bytes > max || after.Evictions == 0 {
		t.Fatalf("after a heavy entry: %+v (kept %v), want it kept and small ones evicted within %d bytes", after, ok, max)
	}
	if _, ok := c.get(containerEventsKey("0"), "acct"); ok {
		t.Error("the least recently used small entry was kept")
	}
	// Heavier than the bound on its own: not kept.
	for sizeOf(big) <= max {
		big = events(2 * len(big))
	}
	c.put(c.begin("huge"), "huge", "acct", big)
	if _, ok := c.get("huge", "acct"); ok {
		t.Error("an entry heavier than the bound was kept")
	}
	if s := c.stats(); s.Bytes > s.MaxBytes || s.MaxBytes != max || s.Name != "read" {
		t.Errorf("stats %+v", s)
	}
}

// sizeOf counts what values point to: strings by their bytes, slices by their capacity and
// elements, pointers and maps by what they hold, and never a time's shared location.
func TestSizeOf(t *testing.T) {
	type inner struct {
		S string
		P *int
	}
	type outer struct {
		A  int
		S  string
		L  []inner
		M  map[string]int
		At time.Time
		u  string // unexported: not followed
	}
	n := 7
	v := outer{S: "12345", L: make([]inner, 2, 4), M: map[string]int{"ab": 1}, At: time.Now().In(time.Local), u: "ignored"}
	v.L[0] = inner{S: "xyz", P: &n}
	size := func(x any) int64 { return int64(reflect.TypeOf(x).Size()) }
	want := size(v) + 5 + 4*size(inner{}) + 3 + size(n) + 2*(size("")+size(0)) + 2
	if got := sizeOf(v); got != want {
		t.Errorf("sizeOf = %d, want %d", got, want)
	}
	if got := sizeOf(&v); got != size(&v)+want {
		t.Errorf("sizeOf(pointer) = %d, want %d", got, size(&v)+want)
	}
	if sizeOf(nil) != 0 || sizeOf(42) != 8 {
		t.Errorf("sizeOf(nil) = %d, sizeOf(42) = %d", sizeOf(nil), sizeOf(42))
	}
}
