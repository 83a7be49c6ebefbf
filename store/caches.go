package store

import (
	"reflect"
	"sync"

	"github.com/boxwatch/boxwatch/cache"
)

// The store's in-memory caches, each an LRU bounded in bytes (Options, and serve's
// --statement-cache-bytes, --read-cache-bytes and --key-cache-bytes), reported by CacheStats.
const (
	// DefaultStatementCacheBytes bounds the statements kept: on SQLite each pool's prepared
	// statements, on PostgreSQL each statement's rewrite to $n placeholders. The store runs a
	// few hundred distinct statements: the bound holds them all with room to spare.
	DefaultStatementCacheBytes = 8 << 20
	// DefaultReadCacheBytes bounds PostgreSQL's read cache of hot single objects (readcache.go).
	DefaultReadCacheBytes = 16 << 20
	// DefaultKeyCacheBytes bounds the API key records verified in the last KeyCacheTTL (about
	// 3,000 of them).
	DefaultKeyCacheBytes = 1 << 20
)

// The caches' names, the cache label of their metrics.
const (
	statementCacheName = "statements"
	readCacheName      = "read"
	keyCacheName       = "api_keys"
)

// bound is the bound an option asks for: def for 0, none (0) for a negative one.
func bound(v, def int64) int64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// CacheStats returns a function per in-memory cache of the store that reports its size, bound
// and counts, for the admin listener's metrics: the statements, the API keys, and on PostgreSQL
// the read cache while it is on. The functions take a lock for a moment and run no query.
func (db *DB) CacheStats() []func() cache.Stats {
	out := []func() cache.Stats{db.statements, db.keys.lru.Stats}
	if db.cache != nil {
		out = append(out, db.cache.stats)
	}
	return out
}

// sizeOf is what a value occupies in bytes: its own size and, through its exported fields, what
// it points to: strings' bytes, slices' arrays (by capacity), maps' entries, pointed-to values.
// Unexported fields are not followed: those of the values cached here (a time.Time's location)
// point to memory every value shares.
func sizeOf(v any) int64 {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return 0
	}
	return int64(rv.Type().Size()) + heapOf(rv)
}

// heapOf is what v points to, beyond its own size.
func heapOf(v reflect.Value) int64 {
	t := v.Type()
	if !pointsOut(t) {
		return 0
	}
	switch t.Kind() {
	case reflect.String:
		return int64(v.Len())
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		return int64(t.Elem().Size()) + heapOf(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		return int64(v.Elem().Type().Size()) + heapOf(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			return 0
		}
		n := int64(v.Cap()) * int64(t.Elem().Size())
		if pointsOut(t.Elem()) {
			for i := range v.Len() {
				n += heapOf(v.Index(i))
			}
		}
		return n
	case reflect.Map:
		// A map's buckets hold a key and a value per slot, at most 7/8 full: twice the pairs
		// is a fair count.
		n := 2 * int64(v.Len()) * int64(t.Key().Size()+t.Elem().Size())
		for it := v.MapRange(); it.Next(); {
			n += heapOf(it.Key()) + heapOf(it.Value())
		}
		return n
	case reflect.Array:
		var n int64
		for i := range v.Len() {
			n += heapOf(v.Index(i))
		}
		return n
	case reflect.Struct:
		var n int64
		for _, i := range fieldsPointingOut(t) {
			n += heapOf(v.Field(i))
		}
		return n
	}
	return 0
}

var pointsOutMemo sync.Map // reflect.Type → bool

// pointsOut reports whether values of t reach memory beyond their own size through what sizeOf
// follows.
func pointsOut(t reflect.Type) bool {
	if b, ok := pointsOutMemo.Load(t); ok {
		return b.(bool)
	}
	pointsOutMemo.Store(t, true) // recursive types: assume so while looking
	b := false
	switch t.Kind() {
	case reflect.String, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		b = true
	case reflect.Array:
		b = pointsOut(t.Elem())
	case reflect.Struct:
		b = len(fieldsPointingOut(t)) > 0
	}
	pointsOutMemo.Store(t, b)
	return b
}

var fieldsPointingOutMemo sync.Map // reflect.Type → []int

// fieldsPointingOut lists the exported fields of struct type t that point out.
func fieldsPointingOut(t reflect.Type) []int {
	if fs, ok := fieldsPointingOutMemo.Load(t); ok {
		return fs.([]int)
	}
	var fs []int
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && (f.Type == t || pointsOut(f.Type)) {
			fs = append(fs, i)
		}
	}
	fieldsPointingOutMemo.Store(t, fs)
	return fs
}
