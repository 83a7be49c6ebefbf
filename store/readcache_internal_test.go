package store

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/boxwatch/boxwatch"
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

// TestReadCacheBounds: the cache holds at most its size, dropping the least recently used; an
// entry answers only its account; nothing answers while the cache is not live.
func TestReadCacheBounds(t *testing.T) {
	c := newReadCache(3)
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
