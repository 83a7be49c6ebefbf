package store

import (
	"strings"
)

// Rendered documents. The API renders a single object from rows the read cache holds (a tracking
// request with its shipment, a shipment with its containers, a container with its shipment and
// events) and may keep the bytes, so that the next read of the object neither copies the rows out
// of the cache nor renders and encodes them again. The bytes are kept in the read cache itself,
// under the same byte bound and in the same metrics, with a stamp: the cache's state for every
// row the rendering read, taken before it read them. A rendered document is served only while
// its stamp holds, i.e. while no eviction of any of those rows (nor a flush, nor the listener's
// loss) has happened since, and none of them is held by a commit under way: exactly when the
// cache would still answer every one of those rows itself. So a rendered document is never
// staler than the objects the cache serves: a write through this store invalidates it before the
// write returns, one through another replica when its notification arrives (readcache.go).

// ReadKey names a row, or a set of rows, a rendering read through the read cache.
type ReadKey string

// TrackingRequestRead is the key of a tracking request (Store.TrackingRequest).
func TrackingRequestRead(id string) ReadKey { return ReadKey(trackingRequestKey(strings.ToLower(id))) }

// ShipmentRead is the key of a shipment (Store.Shipment, Store.ShipmentsByID).
func ShipmentRead(id string) ReadKey { return ReadKey(shipmentKey(strings.ToLower(id))) }

// ShipmentContainersRead is the key of a shipment's containers (Store.ShipmentContainers,
// Store.ContainersOfShipments).
func ShipmentContainersRead(id string) ReadKey {
	return ReadKey(shipmentContainersKey(strings.ToLower(id)))
}

// ContainerRead is the key of a container (Store.Container).
func ContainerRead(id string) ReadKey { return ReadKey(containerKey(strings.ToLower(id))) }

// ContainerEventsRead is the key of a container's transport events
// (Store.TransportEventsOfContainers).
func ContainerEventsRead(id string) ReadKey { return ReadKey(containerEventsKey(strings.ToLower(id))) }

// ReadStamp is the read cache's state for some keys when a read of their rows began. The zero
// ReadStamp holds for nothing.
type ReadStamp struct {
	epoch uint64
	keys  []string
	gens  []uint64
	ok    bool
}

// StampReads returns the stamp of keys, which must be taken before their rows are read. It holds
// for nothing when the store has no live read cache or a key is held by a commit under way.
func (db *DB) StampReads(keys ...ReadKey) ReadStamp {
	return db.extendStamp(ReadStamp{ok: true}, keys)
}

// ExtendStamp returns prev extended with keys, taken before their rows are read: it holds while
// both prev and the new keys' state do.
func (db *DB) ExtendStamp(prev ReadStamp, keys ...ReadKey) ReadStamp {
	return db.extendStamp(prev, keys)
}

func (db *DB) extendStamp(prev ReadStamp, keys []ReadKey) ReadStamp {
	c := db.cache
	if c == nil || !prev.ok {
		return ReadStamp{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.answering() || len(prev.keys) > 0 && !c.holds(prev) {
		return ReadStamp{}
	}
	s := ReadStamp{epoch: c.epoch, ok: true,
		keys: append(make([]string, 0, len(prev.keys)+len(keys)), prev.keys...),
		gens: append(make([]uint64, 0, len(prev.keys)+len(keys)), prev.gens...)}
	for _, k := range keys {
		if c.held[string(k)] > 0 {
			return ReadStamp{}
		}
		s.keys = append(s.keys, string(k))
		s.gens = append(s.gens, c.gens[c.slot(string(k))])
	}
	return s
}

// holds says whether s still holds; c.mu is held.
func (c *readCache) holds(s ReadStamp) bool {
	if !s.ok || !c.live || s.epoch != c.epoch || len(s.keys) == 0 {
		return false
	}
	for i, k := range s.keys {
		if c.gens[c.slot(k)] != s.gens[i] || c.held[k] > 0 {
			return false
		}
	}
	return true
}

// Render is a document the API rendered: its bytes, in parts it joins around values it computes
// on every read, and what it computes them from. Neither is ever changed once stored: Value is
// shared by every read that gets it.
type Render struct {
	Parts [][]byte
	Value any
}

type renderEntry struct {
	stamp ReadStamp
	parts Render
}

// renderKey keeps rendered documents apart from the rows' keys, which notifications name.
func renderKey(key string) string { return "rendered:" + key }

// CachedRender returns the document stored for key and account, if its stamp still holds.
func (db *DB) CachedRender(key, account string) (Render, bool) {
	c := db.cache
	if c == nil {
		return Render{}, false
	}
	c.mu.Lock()
	var e *cacheEntry
	ok := false
	if c.answering() {
		e, ok = c.lru.Get(renderKey(key))
	}
	var r *renderEntry
	if ok {
		r, ok = e.value.(*renderEntry)
	}
	if !ok || e.account != account || !c.holds(r.stamp) {
		c.mu.Unlock()
		c.misses.Add(1)
		return Render{}, false
	}
	c.mu.Unlock()
	c.hits.Add(1)
	return r.parts, true
}

// CachedRenders is CachedRender for each of keys at once: the document stored for each key and
// account whose stamp still holds, and a Render without parts for the others.
func (db *DB) CachedRenders(keys []string, account string) []Render {
	out := make([]Render, len(keys))
	c := db.cache
	if c == nil {
		return out
	}
	hits := 0
	c.mu.Lock()
	if c.answering() {
		for i, k := range keys {
			if e, ok := c.lru.Get(renderKey(k)); ok && e.account == account {
				if r, ok := e.value.(*renderEntry); ok && c.holds(r.stamp) {
					out[i] = r.parts
					hits++
				}
			}
		}
	}
	c.mu.Unlock()
	c.hits.Add(int64(hits))
	c.misses.Add(int64(len(keys) - hits))
	return out
}

// StoreRender keeps parts as the document for key and account, rendered from rows read after
// stamp was taken, unless the stamp no longer holds. The caller gives up parts: it must not
// change them.
func (db *DB) StoreRender(stamp ReadStamp, key, account string, parts Render) {
	c := db.cache
	if c == nil || !stamp.ok {
		return
	}
	weight := int64(len(account)) + int64(sizeOfRender(stamp, parts))
	k := renderKey(key)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.holds(stamp) {
		return
	}
	c.lru.Add(k, &cacheEntry{account: account, value: &renderEntry{stamp: stamp, parts: parts}, weight: weight})
}

// sizeOfRender is what an entry's stamp and parts occupy.
func sizeOfRender(stamp ReadStamp, parts Render) int {
	n := 64 + 24*len(parts.Parts) + 24*len(stamp.keys) + 8*len(stamp.gens) + int(sizeOf(parts.Value))
	for _, k := range stamp.keys {
		n += len(k)
	}
	for _, p := range parts.Parts {
		n += cap(p)
	}
	return n
}
