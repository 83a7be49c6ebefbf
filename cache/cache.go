// Package cache is the one in-memory cache of boxwatch: a least-recently-used map bounded by the
// bytes its entries weigh, not by their count, so that a cache of small route keys and one of
// megabyte map bodies are held to the same kind of limit. Every cache has a name and reports its
// size, bound, hits, misses and evictions through Stats, which the admin listener exports as
// metrics. It knows nothing of what it holds: callers weigh their entries.
package cache

import (
	"container/list"
	"sync"
)

// LRU is a map bounded by weight: adding past MaxBytes drops the least recently used entries until
// the total fits. An entry heavier than the bound on its own is not kept. It is safe for concurrent
// use. A nil *LRU holds nothing: Get misses and Add keeps nothing, so "no cache" needs no branch.
type LRU[K comparable, V any] struct {
	name    string
	max     int64
	weigh   func(K, V) int64
	release func(K, V) // nil, or told of every value let go
	mu      sync.Mutex
	items   map[K]*list.Element
	order   list.List // of *entry[K, V], most recently used first
	bytes   int64
	counts  Stats
}

type entry[K comparable, V any] struct {
	key    K
	value  V
	weight int64
}

// Stats is what a cache reports: its name, how many entries it holds and their weight, its bound,
// and since it was made how many lookups hit and missed and how many entries the bound dropped.
type Stats struct {
	Name                    string
	Entries                 int
	Bytes, MaxBytes         int64
	Hits, Misses, Evictions uint64
}

// Overhead is what every entry weighs beyond its key and value as callers count them: the list
// element, the map slot and the entry itself, rounded up.
const Overhead = 128

// New returns an empty cache named name (the label its metrics carry) holding at most maxBytes,
// each entry weighing Overhead plus what weigh says of its key and value. weigh must be cheap and
// return the same for the same entry. A maxBytes of zero or less makes a cache that keeps nothing
// but still counts its misses.
func New[K comparable, V any](name string, maxBytes int64, weigh func(K, V) int64) *LRU[K, V] {
	return &LRU[K, V]{name: name, max: maxBytes, weigh: weigh, items: map[K]*list.Element{}}
}

// NewReleasing is New for values that hold something to give back (a prepared statement): release
// is called with every value the cache lets go, whether the bound dropped it, a newer value
// replaced it, Remove or Purge dropped it, or Add could not keep it. It is called after the
// cache's lock is released, by the goroutine whose call let the value go, and may block it.
func NewReleasing[K comparable, V any](name string, maxBytes int64, weigh func(K, V) int64, release func(K, V)) *LRU[K, V] {
	c := New(name, maxBytes, weigh)
	c.release = release
	return c
}

// let calls release with the entries let go, after mu is unlocked.
func (c *LRU[K, V]) let(gone []*entry[K, V]) {
	if c.release == nil {
		return
	}
	for _, e := range gone {
		c.release(e.key, e.value)
	}
}

// Get returns the value kept for key and marks it recently used.
func (c *LRU[K, V]) Get(key K) (V, bool) {
	var zero V
	if c == nil {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		c.counts.Misses++
		return zero, false
	}
	c.counts.Hits++
	c.order.MoveToFront(el)
	return el.Value.(*entry[K, V]).value, true
}

// Add keeps value for key, replacing what was kept, and drops the least recently used entries
// until the cache is within its bound. It reports whether value is kept: an entry heavier than the
// whole bound is not (and an older value of key is dropped, never served stale).
func (c *LRU[K, V]) Add(key K, value V) bool {
	if c == nil {
		return false
	}
	w := Overhead + c.weigh(key, value)
	var gone []*entry[K, V]
	defer func() { c.let(gone) }()
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		gone = append(gone, c.remove(el))
	}
	if w > c.max {
		gone = append(gone, &entry[K, V]{key: key, value: value})
		return false
	}
	c.items[key] = c.order.PushFront(&entry[K, V]{key: key, value: value, weight: w})
	c.bytes += w
	for c.bytes > c.max {
		gone = append(gone, c.remove(c.order.Back()))
		c.counts.Evictions++
	}
	return true
}

// Remove drops the entry of key, if any.
func (c *LRU[K, V]) Remove(key K) {
	if c == nil {
		return
	}
	var gone []*entry[K, V]
	defer func() { c.let(gone) }()
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		gone = append(gone, c.remove(el))
	}
}

// Purge drops every entry. Counts since the cache was made stay.
func (c *LRU[K, V]) Purge() {
	if c == nil {
		return
	}
	var gone []*entry[K, V]
	defer func() { c.let(gone) }()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.release != nil {
		for el := c.order.Front(); el != nil; el = el.Next() {
			gone = append(gone, el.Value.(*entry[K, V]))
		}
	}
	clear(c.items)
	c.order.Init()
	c.bytes = 0
}

// Len returns how many entries the cache holds.
func (c *LRU[K, V]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Stats reports the cache's size and counts; a nil cache reports zeros.
func (c *LRU[K, V]) Stats() Stats {
	if c == nil {
		return Stats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.counts
	s.Name, s.Entries, s.Bytes, s.MaxBytes = c.name, len(c.items), c.bytes, c.max
	return s
}

// remove unlinks el and returns its entry; the caller holds mu.
func (c *LRU[K, V]) remove(el *list.Element) *entry[K, V] {
	e := c.order.Remove(el).(*entry[K, V])
	delete(c.items, e.key)
	c.bytes -= e.weight
	return e
}
