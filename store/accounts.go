package store

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/boxwatch/boxwatch"
	"github.com/boxwatch/boxwatch/cache"
)

// CreateAccount stores a new account; a taken name is a KindConflict error.
func (db *DB) CreateAccount(ctx context.Context, a boxwatch.Account) error {
	features := make(listArg, len(a.Features))
	for i, f := range a.Features {
		features[i] = string(f)
	}
	_, err := db.write.exec(ctx, "INSERT INTO accounts (id, name, features, created_at) VALUES (?, ?, ?, ?)",
		a.ID, a.Name, features, db.ts(a.CreatedAt))
	if err := db.internal("create account", err); err != nil {
		if errors.Is(err, errUniqueViolation) {
			return &boxwatch.Error{Kind: boxwatch.KindConflict, Code: boxwatch.CodeTaken, Message: "An account named " + a.Name + " already exists."}
		}
		return err
	}
	return nil
}

const accountColumns = "a.id, a.name, a.features, a.created_at"

func scanAccount(r row, a *boxwatch.Account, more ...any) error {
	var features []string
	dest := append([]any{nullString{&a.ID}, &a.Name, listCol{&features}, timeCol{&a.CreatedAt}}, more...)
	if err := r.Scan(dest...); err != nil {
		return err
	}
	a.Features = make([]boxwatch.Feature, len(features))
	for i, f := range features {
		a.Features[i] = boxwatch.Feature(f)
	}
	return nil
}

// AccountByName returns the account with that name, or ErrNotFound.
func (db *DB) AccountByName(ctx context.Context, name string) (boxwatch.Account, error) {
	var a boxwatch.Account
	err := scanAccount(db.read.queryRow(ctx, "SELECT "+accountColumns+" FROM accounts a WHERE a.name = ?", name), &a)
	return a, db.lookupErr("account by name", err)
}

// CreateAPIKey stores a key record; an unknown account is ErrNotFound.
func (db *DB) CreateAPIKey(ctx context.Context, k boxwatch.APIKey) error {
	_, err := db.write.exec(ctx, "INSERT INTO api_keys (id, account_id, hash, created_at) VALUES (?, ?, ?, ?)",
		k.ID, k.AccountID, k.Hash, db.ts(k.CreatedAt))
	return db.internal("create api key", err)
}

// APIKey returns the key with that key id and its account, or ErrNotFound. It answers from a
// cache of the keys found in the last KeyCacheTTL, sparing a round trip per request: a key
// revoked through this store fails at once, one revoked by another process (a replica, the
// apikey command) within KeyCacheTTL, and so do changes to the account's features.
func (db *DB) APIKey(ctx context.Context, keyID string) (boxwatch.APIKey, boxwatch.Account, error) {
	if k, a, ok := db.keys.get(keyID); ok {
		return k, a, nil
	}
	gen := db.keys.generation()
	var k boxwatch.APIKey
	var a boxwatch.Account
	err := scanAccount(db.read.queryRow(ctx,
		"SELECT "+accountColumns+", k.id, k.hash, k.created_at FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.id = ?", keyID),
		&a, &k.ID, &k.Hash, timeCol{&k.CreatedAt})
	k.AccountID = a.ID
	if err != nil {
		return k, a, db.lookupErr("api key", err)
	}
	db.keys.put(gen, k, a)
	return k, a, nil
}

// KeyCacheTTL is how long APIKey may answer from memory: the longest a key revoked by another
// process keeps working here.
const KeyCacheTTL = 10 * time.Second

// keyCache holds the key records APIKey found recently: hashes, never keys. Its LRU is bounded
// in bytes (Options.KeyCacheBytes); a record is served for KeyCacheTTL after it was read.
type keyCache struct {
	lru *cache.LRU[string, cachedKey] // nil: no cache
	mu  sync.Mutex
	gen uint64 // counts revocations, so a lookup that raced one is not cached
}

type cachedKey struct {
	key     boxwatch.APIKey
	account boxwatch.Account
	expires time.Time
}

func newKeyCache(maxBytes int64) *cache.LRU[string, cachedKey] {
	return cache.New(keyCacheName, maxBytes, func(id string, k cachedKey) int64 { return int64(len(id)) + sizeOf(k) })
}

func (c *keyCache) get(id string) (boxwatch.APIKey, boxwatch.Account, bool) {
	e, ok := c.lru.Get(id)
	if !ok || !time.Now().Before(e.expires) {
		return boxwatch.APIKey{}, boxwatch.Account{}, false
	}
	return e.key, e.account, true
}

func (c *keyCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put caches a record read while the generation was gen, unless a key was revoked since.
func (c *keyCache) put(gen uint64, k boxwatch.APIKey, a boxwatch.Account) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	c.lru.Add(k.ID, cachedKey{key: k, account: a, expires: time.Now().Add(KeyCacheTTL)})
}

func (c *keyCache) revoke(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(id)
	c.gen++
}

// notFound maps "no rows" to ErrNotFound and wraps anything else.
func (db *DB) lookupErr(op string, err error) error {
	err = db.internal(op, err)
	if errors.Is(err, errNoRows) {
		return boxwatch.ErrNotFound
	}
	return err
}

var errUniqueViolation = errors.New("unique constraint violated")

// Accounts returns every account, by name.
func (db *DB) Accounts(ctx context.Context) ([]boxwatch.Account, error) {
	rs, err := db.read.query(ctx, "SELECT "+accountColumns+" FROM accounts a ORDER BY a.name")
	if err != nil {
		return nil, db.internal("list accounts", err)
	}
	list, err := collect(rs, func(r row) (boxwatch.Account, error) {
		var a boxwatch.Account
		return a, scanAccount(r, &a)
	})
	return list, db.internal("list accounts", err)
}

// APIKeys returns the account's keys, oldest first.
func (db *DB) APIKeys(ctx context.Context, accountID string) ([]boxwatch.APIKey, error) {
	if !boxwatch.IsUUID(accountID) {
		return []boxwatch.APIKey{}, nil
	}
	accountID = strings.ToLower(accountID)
	rs, err := db.read.query(ctx, "SELECT id, account_id, hash, created_at FROM api_keys WHERE account_id = ? ORDER BY created_at, id", accountID)
	if err != nil {
		return nil, db.internal("list api keys", err)
	}
	list, err := collect(rs, func(r row) (boxwatch.APIKey, error) {
		var k boxwatch.APIKey
		return k, r.Scan(&k.ID, nullString{&k.AccountID}, &k.Hash, timeCol{&k.CreatedAt})
	})
	return list, db.internal("list api keys", err)
}

// RevokeAPIKey deletes the key record, or returns ErrNotFound. Deleting leaves nothing a key could
// match: its hash is gone with it. The key fails at once through this store, and within
// KeyCacheTTL through others (see APIKey).
func (db *DB) RevokeAPIKey(ctx context.Context, keyID string) error {
	n, err := db.write.exec(ctx, "DELETE FROM api_keys WHERE id = ?", keyID)
	db.keys.revoke(keyID)
	if err := db.internal("revoke api key", err); err != nil {
		return err
	}
	if n == 0 {
		return boxwatch.ErrNotFound
	}
	return nil
}
