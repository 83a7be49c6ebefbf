package store

import "testing"

// A key written by a commit under way is neither served nor stored until the commit's release,
// and a read that started before the release stores nothing after it.
func TestReadCacheHold(t *testing.T) {
	c := newReadCache(1 << 20)
	c.reset(true)
	key := shipmentContainersKey("s1")
	c.put(c.begin(key), key, "acct", "before")
	if _, ok := c.get(key, "acct"); !ok {
		t.Fatal("the entry stored before any write is not served")
	}

	c.hold(key)
	if _, ok := c.get(key, "acct"); ok {
		t.Fatal("a held key is served")
	}
	during := c.begin(key)
	c.put(during, key, "acct", "read during the commit")
	if _, ok := c.get(key, "acct"); ok {
		t.Fatal("a held key stored what a read fetched")
	}
	c.hold(key) // a second transaction writing the same row
	c.release(key)
	if _, ok := c.get(key, "acct"); ok {
		t.Fatal("a key still held by another commit is served")
	}
	c.release(key)
	c.put(during, key, "acct", "read during the commit")
	if _, ok := c.get(key, "acct"); ok {
		t.Fatal("a read that began during the commit stored its row after the release")
	}
	c.put(c.begin(key), key, "acct", "after")
	if v, ok := c.get(key, "acct"); !ok || v != "after" {
		t.Fatalf("after the release: %v %v, want the new read's entry", v, ok)
	}
	if len(c.held) != 0 {
		t.Fatalf("holds left: %v", c.held)
	}
}

// Holding a shipment's key holds the key of the shipment with its snapshot too.
func TestReadCacheHoldFullShipment(t *testing.T) {
	c := newReadCache(1 << 20)
	c.reset(true)
	full := fullShipmentKey("s1")
	c.put(c.begin(full), full, "acct", "before")
	c.hold(shipmentKey("s1"))
	if _, ok := c.get(full, "acct"); ok {
		t.Fatal("the full shipment is served while its shipment is held")
	}
	c.release(shipmentKey("s1"))
	if len(c.held) != 0 {
		t.Fatalf("holds left: %v", c.held)
	}
}
