package store

import (
	"bytes"
	"fmt"
	"testing"
)

// TestRenderedStamps: a rendered document is answered only while the stamp of the rows it was
// rendered from holds: an eviction of any of them (a write through this store, or another's
// notification), a commit holding one, the listener's loss and a flush all end it, and one
// rendered from rows evicted meanwhile is not kept at all.
func TestRenderedStamps(t *testing.T) {
	db := &DB{cache: newReadCache(1 << 20)}
	c := db.cache
	if s := db.StampReads(ShipmentRead("A")); s.ok {
		t.Fatal("a stamp holds before the listener is connected")
	}
	c.reset(true)
	doc := Render{Parts: [][]byte{[]byte(`{"data":`), []byte(`}`)}}
	kept := func(key, account string) bool {
		t.Helper()
		got, ok := db.CachedRender(key, account)
		if ok && (len(got.Parts) != len(doc.Parts) || !bytes.Equal(got.Parts[0], doc.Parts[0])) {
			t.Fatalf("CachedRender = %q", got)
		}
		return ok
	}
	render := func(key string, keys ...ReadKey) {
		db.StoreRender(db.StampReads(keys...), key, "acct", doc)
	}

	render("s1", ShipmentRead("A"), ShipmentContainersRead("a"))
	if !kept("s1", "acct") || kept("s1", "other") || kept("s2", "acct") {
		t.Fatal("kept for the wrong key or account")
	}
	c.evict(shipmentContainersKey("a")) // as a notification evicts: ids in lower case
	if kept("s1", "acct") {
		t.Fatal("answered after an eviction of one of its rows")
	}

	// Evicted between the stamp and the store: not kept.
	stamp := db.StampReads(ContainerRead("c"))
	c.evict(containerKey("c"))
	db.StoreRender(stamp, "c1", "acct", doc)
	if kept("c1", "acct") {
		t.Fatal("kept a document rendered from a row evicted while it was read")
	}

	// Extended after a change to the first rows: holds for nothing.
	stamp = db.StampReads(TrackingRequestRead("t"))
	c.evict(trackingRequestKey("t"))
	if db.ExtendStamp(stamp, ShipmentRead("s")).ok {
		t.Fatal("a stamp extended after its first rows changed holds")
	}
	if db.ExtendStamp(ReadStamp{}, ShipmentRead("s")).ok {
		t.Fatal("the zero stamp extended holds")
	}

	// A commit under way: no stamp while it holds its rows, no document after.
	render("e1", ContainerEventsRead("e"))
	c.hold(containerEventsKey("e"))
	if kept("e1", "acct") || db.StampReads(ContainerEventsRead("e")).ok {
		t.Fatal("answered or stamped while a commit holds the row")
	}
	c.release(containerEventsKey("e"))
	if kept("e1", "acct") {
		t.Fatal("answered after the commit")
	}

	// The listener lost, then back: nothing rendered before is answered.
	render("t1", TrackingRequestRead("t"))
	if !kept("t1", "acct") {
		t.Fatal("not kept")
	}
	c.reset(false)
	if kept("t1", "acct") {
		t.Fatal("answered while the listener is lost")
	}
	c.reset(true)
	if kept("t1", "acct") {
		t.Fatal("answered after the listener came back")
	}
	render("t1", TrackingRequestRead("t"))
	c.dropAll()
	if kept("t1", "acct") {
		t.Fatal("answered after a flush")
	}

	// Without a read cache (SQLite, or turned off): nothing is kept.
	none := &DB{}
	none.StoreRender(none.StampReads(ShipmentRead("A")), "s1", "acct", doc)
	if _, ok := none.CachedRender("s1", "acct"); ok {
		t.Fatal("kept without a read cache")
	}
}

// TestRenderedBound: rendered documents weigh in the read cache's bound with the rows: filled
// past it, the cache evicts the least recently used and never reports more bytes than its bound;
// a document heavier than the bound is not kept.
func TestRenderedBound(t *testing.T) {
	const max = 64 << 10
	db := &DB{cache: newReadCache(max)}
	c := db.cache
	c.reset(true)
	body := bytes.Repeat([]byte("x"), 1000)
	for i := range 200 { // about 200 KB
		key := fmt.Sprint(i)
		db.StoreRender(db.StampReads(ShipmentRead(key)), key, "acct", Render{Parts: [][]byte{body}})
		if s := c.stats(); s.Bytes > max {
			t.Fatalf("after %d documents: %d bytes, bound %d", i+1, s.Bytes, max)
		}
	}
	s := c.stats()
	if s.Evictions == 0 || s.Entries >= 200 || s.Entries < 40 {
		t.Fatalf("stats %+v: want the bound to keep about 60 documents of 1 KB", s)
	}
	if _, ok := db.CachedRender("0", "acct"); ok {
		t.Error("the least recently used document was kept")
	}
	if _, ok := db.CachedRender("199", "acct"); !ok {
		t.Error("the last document was not kept")
	}
	db.StoreRender(db.StampReads(ShipmentRead("huge")), "huge", "acct", Render{Parts: [][]byte{bytes.Repeat([]byte("x"), max)}})
	if _, ok := db.CachedRender("huge", "acct"); ok {
		t.Error("a document heavier than the bound was kept")
	}
}
