package api

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/boxwatch/boxwatch"
)

// authenticate checks "Authorization: Token <key>", the reference API's scheme, or "Bearer <key>",
// which many HTTP clients send by habit: both carry the same key. The key is compared by hash in
// constant time and never logged.
func (s *server) authenticate(r *http.Request) (boxwatch.Account, error) {
	scheme, key, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Token") && !strings.EqualFold(scheme, "Bearer") {
		return boxwatch.Account{}, boxwatch.ErrUnauthorized
	}
	key = strings.TrimSpace(key)
	id, ok := boxwatch.ParseAPIKey(key)
	if !ok {
		return boxwatch.Account{}, boxwatch.ErrUnauthorized
	}
	rec, acct, err := s.keys.get(r.Context(), id)
	if err != nil {
		if boxwatch.IsKind(err, boxwatch.KindNotFound) {
			return boxwatch.Account{}, boxwatch.ErrUnauthorized
		}
		return boxwatch.Account{}, err
	}
	if !rec.Matches(key) {
		return boxwatch.Account{}, boxwatch.ErrUnauthorized
	}
	return acct, nil
}

// keyCache remembers verified key records briefly, sparing a database read per request. It holds
// the stored hash, never the key.
type keyCache struct {
	store boxwatch.Store
	now   boxwatch.Clock
	mu    sync.Mutex
	m     map[string]cachedKey
}

type cachedKey struct {
	key     boxwatch.APIKey
	account boxwatch.Account
	expires time.Time
}

const (
	keyCacheTTL  = 10 * time.Second
	keyCacheSize = 10000
)

func newKeyCache(s boxwatch.Store, now boxwatch.Clock) *keyCache {
	return &keyCache{store: s, now: now, m: map[string]cachedKey{}}
}

func (c *keyCache) get(ctx context.Context, id string) (boxwatch.APIKey, boxwatch.Account, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.m[id]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.key, e.account, nil
	}
	k, a, err := c.store.APIKey(ctx, id)
	if err != nil {
		return k, a, err
	}
	c.mu.Lock()
	if len(c.m) >= keyCacheSize {
		clear(c.m)
	}
	c.m[id] = cachedKey{key: k, account: a, expires: now.Add(keyCacheTTL)}
	c.mu.Unlock()
	return k, a, nil
}
