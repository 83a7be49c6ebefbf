package store

import (
	"context"
	"errors"
	"hash/maphash"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/boxwatch/boxwatch/cache"
)

// The read cache spares PostgreSQL deployments a round trip for the single objects clients poll
// most: a tracking request, a shipment, a container, a shipment's containers and a container's
// transport events; for what their documents and the catalogue show: terminals (by id and by
// port) and custom field definitions and options (by id and each definition's list); and the
// account's webhooks, parties and custom field values by id; vessels with their last positions,
// and webhook notifications with the events they report. SQLite has the same cache, kept
// fresh by the writer's hooks and the write-ahead log's counter instead of notifications
// (readcache_sqlite.go).
//
// Every replica keeps its own cache and PostgreSQL tells all of them what changed: triggers on
// the cached tables (migration 0011) send the key of every row written on the channel
// boxwatch_cache when its transaction commits, whichever process or statement wrote it, and a
// listener on a connection of its own evicts those keys. A replica therefore serves a row changed
// by another for as long as the notification takes to arrive (milliseconds: the conformance test
// ReadCacheAcrossStores logs it); writes through a replica evict its own entries before they
// return. Channels belong to a database, not a schema: deployments in several schemas of one
// database evict each other's keys too, which costs reads, never freshness.
//
// The cache answers only while the listener is connected: when the connection drops, every entry
// is dropped and reads go to the database until LISTEN is back, and then the cache starts empty.

// cacheChannel is the channel the triggers notify.
const cacheChannel = "boxwatch_cache"

// Keys of the read cache, the payloads the triggers send: "<kind>:<id>".
func trackingRequestKey(id string) string { return "tracking_requests:" + id }
func shipmentKey(id string) string        { return "shipments:" + id }

// fullShipmentKey holds a shipment with its carrier snapshot, which its own key leaves out: no
// trigger names it, evict drops it with the shipment's key.
func fullShipmentKey(id string) string { return "full_shipments:" + id }

// Terminals are shared reference data: cached for every account (account ""), by id and as the
// list at each port (by UN/LOCODE), evicted by migration 0017's trigger.
func terminalKey(id string) string          { return "terminals:" + id }
func portTerminalsKey(locode string) string { return "port_terminals:" + locode }

// Custom field definitions and their options by id, evicted by migration 0017's triggers.
func definitionKey(id string) string { return "custom_field_definitions:" + id }
func optionKey(id string) string     { return "custom_field_options:" + id }

// The list of a definition's options, evicted by migration 0021's option trigger.
func definitionOptionsKey(id string) string { return "definition_options:" + id }

// Webhooks, parties and custom field values by id, evicted by migration 0021's triggers. A
// custom field's row is cached without its definition's slug and entity type, which its read
// takes from the definition, cached on its own key.
func webhookKey(id string) string     { return "webhooks:" + id }
func partyKey(id string) string       { return "parties:" + id }
func customFieldKey(id string) string { return "custom_fields:" + id }

// Vessels by id, the MMSI static reports give each IMO number and each MMSI's last position
// (shared data, account ""), and webhook notifications and the events they report by id: evicted
// by migration 0022's triggers.
func vesselKey(id string) string         { return "vessels:" + id }
func imoMMSIKey(imo string) string       { return "imo_mmsi:" + imo }
func lastPositionKey(mmsi string) string { return "last_positions:" + mmsi }
func notificationKey(id string) string   { return "webhook_notifications:" + id }
func eventKey(id string) string          { return "events:" + id }

func containerKey(id string) string          { return "containers:" + id }
func shipmentContainersKey(id string) string { return "shipment_containers:" + id }
func containerEventsKey(id string) string    { return "container_events:" + id }

// readCache is an LRU of objects by key bounded in bytes (Options.ReadCacheBytes), each entry
// answering only the account it was read for. Entries are private copies and get returns copies,
// so no caller shares a value.
type readCache struct {
	mu    sync.Mutex // held around every use of lru, so that live, epoch and gens agree with it
	live  bool       // the listener is connected: entries may be served and stored
	epoch uint64
	gens  [cacheSlots]uint64 // bumped by every eviction of a key hashing to the slot
	lru   *cache.LRU[string, *cacheEntry]
	seed  maphash.Seed
	// held counts, per key, the commits under way that write its row (hold to release): such a
	// key is neither served nor stored.
	held map[string]int

	hits, misses atomic.Int64
	notified     atomic.Int64 // notifications handled
	watch        *sqliteWatch // SQLite: what keeps the cache fresh (readcache_sqlite.go)
	// Test hooks: fetched runs between a read's database answer and its storing; reconnecting
	// runs before the listener connects again.
	testHooks cacheHooks
}

type cacheHooks struct {
	fetched      func(key string)
	reconnecting func()
}

func (c *readCache) hooks() cacheHooks {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.testHooks
}

// cacheSlots is how many generation counters keys share: an eviction makes reads in flight of
// the keys of its slot (about 1/cacheSlots of all) give up storing what they fetched.
const cacheSlots = 1024

type cacheEntry struct {
	account string
	value   any
	weight  int64 // of account and value, as sizeOf counts them
}

// cacheToken is the state of the cache when a read started: the read stores what it fetched only
// if no eviction of its key (nor flush) happened since, so that a row read before a change never
// lands after the change's eviction.
type cacheToken struct {
	epoch, gen uint64
	ok         bool
}

func newReadCache(maxBytes int64) *readCache {
	return &readCache{seed: maphash.MakeSeed(),
		lru: cache.New(readCacheName, maxBytes, func(key string, e *cacheEntry) int64 { return int64(len(key)) + e.weight })}
}

func (c *readCache) slot(key string) int { return int(maphash.String(c.seed, key) % cacheSlots) }

// get returns a copy of the entry for key if it was read for account.
func (c *readCache) get(key, account string) (any, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	var e *cacheEntry
	ok := false
	if c.answering() {
		e, ok = c.lru.Get(key)
	}
	if !ok || e.account != account || c.held[key] > 0 {
		c.mu.Unlock()
		c.misses.Add(1)
		return nil, false
	}
	v := e.value
	c.mu.Unlock()
	c.hits.Add(1)
	return deepCopy(v), true // stored values are never changed: copying outside the lock is safe
}

// begin returns the token a read of key takes before asking the database.
func (c *readCache) begin(key string) cacheToken {
	if c == nil {
		return cacheToken{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return cacheToken{epoch: c.epoch, gen: c.gens[c.slot(key)], ok: c.live}
}

// put stores a copy of value for key and account, unless key was evicted since t was taken.
func (c *readCache) put(t cacheToken, key, account string, value any) {
	if c == nil || !t.ok {
		return
	}
	if hook := c.hooks().fetched; hook != nil {
		hook(key)
	}
	value = deepCopy(value)
	e := &cacheEntry{account: account, value: value, weight: int64(len(account)) + sizeOf(value)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || c.epoch != t.epoch || c.gens[c.slot(key)] != t.gen || c.held[key] > 0 {
		return
	}
	c.lru.Add(key, e)
}

// hold evicts keys and keeps them out of the cache, neither served nor stored, until release:
// a transaction writing their rows holds them from just before its commit.
func (c *readCache) hold(keys ...string) {
	if c == nil {
		return
	}
	c.evict(keys...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil {
		c.held = map[string]int{}
	}
	for _, k := range withFullShipments(keys) {
		c.held[k]++
	}
}

// withFullShipments is keys with, after each shipment's key, the key of the shipment with its
// snapshot, which goes with it.
func withFullShipments(keys []string) []string {
	out := keys
	for _, k := range keys {
		if id, ok := strings.CutPrefix(k, "shipments:"); ok {
			if len(out) == len(keys) {
				out = append([]string(nil), keys...)
			}
			out = append(out, fullShipmentKey(id))
		}
	}
	return out
}

// release ends a hold of keys and evicts them again, so that reads in flight during the commit
// store nothing.
func (c *readCache) release(keys ...string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	for _, k := range withFullShipments(keys) {
		if c.held[k]--; c.held[k] <= 0 {
			delete(c.held, k)
		}
	}
	c.mu.Unlock()
	c.evict(keys...)
}

// evict drops keys and makes reads of them in flight store nothing.
func (c *readCache) evict(keys ...string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		c.gens[c.slot(k)]++
		c.lru.Remove(k)
		if id, ok := strings.CutPrefix(k, "shipments:"); ok {
			full := fullShipmentKey(id)
			c.gens[c.slot(full)]++
			c.lru.Remove(full)
		}
	}
}

// reset drops every entry, makes every read in flight store nothing, and says whether the cache
// may answer from now on.
func (c *readCache) reset(live bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.live = live
	c.lru.Purge()
}

// dropAll drops every entry and makes every read in flight store nothing.
func (c *readCache) dropAll() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.lru.Purge()
}

func (c *readCache) isLive() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live
}

// cached returns the object of key read for account, from the cache or else from fetch, which
// it then stores. Errors (ErrNotFound included) are never cached.
func cached[T any](c *readCache, key, account string, fetch func() (T, error)) (T, error) {
	if v, ok := c.get(key, account); ok {
		return v.(T), nil
	}
	t := c.begin(key)
	v, err := fetch()
	if err == nil {
		c.put(t, key, account, v)
	}
	return v, err
}

// cachedAll returns the entries of every id (lower-case UUIDs) read for account, keyed by id,
// if the cache holds them all.
func cachedAll[T any](c *readCache, keyOf func(string) string, account string, ids []any) (map[string]T, bool) {
	if !c.isLive() {
		return nil, false
	}
	out := make(map[string]T, len(ids))
	for _, id := range ids {
		v, ok := c.get(keyOf(id.(string)), account)
		if !ok {
			return nil, false
		}
		out[id.(string)] = v.(T)
	}
	return out, true
}

// beginAll is begin for the key of every id.
func (c *readCache) beginAll(keyOf func(string) string, ids []any) []cacheToken {
	if !c.isLive() {
		return nil
	}
	tokens := make([]cacheToken, len(ids))
	for i, id := range ids {
		tokens[i] = c.begin(keyOf(id.(string)))
	}
	return tokens
}

// putAll stores what a batch read found for each id taken by beginAll; store says whether to
// store an id that found nothing.
func putAll[T any](c *readCache, tokens []cacheToken, keyOf func(string) string, account string, ids []any, found map[string]T, store bool) {
	for i, id := range ids {
		if i >= len(tokens) {
			return
		}
		v, ok := found[id.(string)]
		if ok || store {
			c.put(tokens[i], keyOf(id.(string)), account, v)
		}
	}
}

// ReadCacheStats describes the read cache at a moment.
type ReadCacheStats struct {
	On           bool  // the store has a read cache (PostgreSQL, not turned off)
	Live         bool  // its listener is connected: the cache answers
	Entries      int   // objects held
	Hits, Misses int64 // reads it answered, and reads that went to the database
}

// ReadCacheStats says how many reads the cache answered and how many went to the database, and
// whether it answers now. It runs no query.
func (db *DB) ReadCacheStats() ReadCacheStats {
	c := db.cache
	if c == nil {
		return ReadCacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return ReadCacheStats{On: true, Live: c.live, Entries: c.lru.Len(), Hits: c.hits.Load(), Misses: c.misses.Load()}
}

// stats is the read cache as the admin listener's cache metrics report it: its weight and
// evictions from its LRU, its hits and misses as reads count them (a read while the listener is
// down, or of another account's entry, is a miss).
func (c *readCache) stats() cache.Stats {
	s := c.lru.Stats()
	s.Hits, s.Misses = uint64(c.hits.Load()), uint64(c.misses.Load())
	return s
}

// startReadCache turns the read cache on, bounded at maxBytes, and runs its listener until the
// store closes.
func (db *DB) startReadCache(maxBytes int64, log *slog.Logger) {
	db.cache = newReadCache(maxBytes)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		db.listen(ctx, log)
	}()
	db.closers = append(db.closers, func() {
		cancel()
		<-done
	})
}

// listen keeps a connection LISTENing on the cache channel, and the cache off whenever it is not.
func (db *DB) listen(ctx context.Context, log *slog.Logger) {
	backoff := 100 * time.Millisecond
	lost := false // reported lost, and not back since
	for {
		start := time.Now()
		err := db.listenOnce(ctx, func() {
			if lost {
				log.Info("read cache back: its listener reconnected")
				lost = false
			}
		})
		db.cache.reset(false)
		if ctx.Err() != nil {
			return
		}
		if !lost {
			log.Warn("read cache off until its listener reconnects: every read goes to the database", "error", err)
			lost = true
		}
		if time.Since(start) > time.Minute {
			backoff = 100 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
		if hook := db.cache.hooks().reconnecting; hook != nil {
			hook()
		}
	}
}

// listenerCheck is how long the listener waits for a notification before it checks that its
// connection still answers: a connection lost without a word turns the cache off within it.
const listenerCheck = 15 * time.Second

func (db *DB) listenOnce(ctx context.Context, listening func()) error {
	conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+cacheChannel); err != nil {
		return err
	}
	db.listenerPID.Store(conn.PgConn().PID())
	// Every change committed from now on will be notified: the cache may answer, starting empty.
	db.cache.reset(true)
	listening()
	for {
		wait, cancel := context.WithTimeout(ctx, listenerCheck)
		n, err := conn.WaitForNotification(wait)
		cancel()
		switch {
		case err == nil:
			db.cache.notified.Add(1)
			if n.Payload == "flush" {
				db.cache.reset(true)
			} else {
				// Migration 0022's statement triggers send several keys at once, space-separated.
				db.cache.evict(strings.Fields(n.Payload)...)
			}
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed():
			check, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := conn.Ping(check)
			cancel()
			if err != nil {
				return err
			}
		default:
			return err
		}
	}
}

// deepCopy returns a copy of v sharing nothing mutable with it: slices, maps and pointers are
// copied all the way down (strings and unexported fields, as in time.Time, are immutable).
func deepCopy[T any](v T) T {
	rv := reflect.ValueOf(&v).Elem()
	if !needsCopy(rv.Type()) {
		return v
	}
	return copyValue(rv).Interface().(T)
}

var needsCopyMemo sync.Map // reflect.Type → bool

// needsCopy reports whether values of t reach memory a copy of the value would share.
func needsCopy(t reflect.Type) bool {
	if b, ok := needsCopyMemo.Load(t); ok {
		return b.(bool)
	}
	needsCopyMemo.Store(t, true) // recursive types: assume so while looking
	b := false
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		b = true
	case reflect.Array:
		b = needsCopy(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && needsCopy(f.Type) {
				b = true
			}
		}
	}
	needsCopyMemo.Store(t, b)
	return b
}

func copyValue(v reflect.Value) reflect.Value {
	t := v.Type()
	if !needsCopy(t) {
		return v
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(copyValue(v.Elem()))
		return p
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		s := reflect.MakeSlice(t, v.Len(), v.Len())
		if !needsCopy(t.Elem()) {
			reflect.Copy(s, v)
			return s
		}
		for i := range v.Len() {
			s.Index(i).Set(copyValue(v.Index(i)))
		}
		return s
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		m := reflect.MakeMapWithSize(t, v.Len())
		for it := v.MapRange(); it.Next(); {
			m.SetMapIndex(copyValue(it.Key()), copyValue(it.Value()))
		}
		return m
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		i := reflect.New(t).Elem()
		i.Set(copyValue(v.Elem()))
		return i
	case reflect.Array:
		a := reflect.New(t).Elem()
		a.Set(v)
		for i := range v.Len() {
			a.Index(i).Set(copyValue(v.Index(i)))
		}
		return a
	case reflect.Struct:
		s := reflect.New(t).Elem()
		s.Set(v)
		for _, i := range fieldsToCopy(t) {
			s.Field(i).Set(copyValue(v.Field(i)))
		}
		return s
	}
	return v
}

var fieldsToCopyMemo sync.Map // reflect.Type → []int

// fieldsToCopy lists the exported fields of struct type t that need a copy of their own.
func fieldsToCopy(t reflect.Type) []int {
	if fs, ok := fieldsToCopyMemo.Load(t); ok {
		return fs.([]int)
	}
	var fs []int
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && needsCopy(f.Type) {
			fs = append(fs, i)
		}
	}
	fieldsToCopyMemo.Store(t, fs)
	return fs
}
