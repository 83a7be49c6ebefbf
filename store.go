package boxwatch

import (
	"context"
	"time"
)

// Store persists accounts, keys and tracking requests. Every method that takes an accountID sees
// only that account's records: another account's ids behave exactly as ids that do not exist.
// Implementations must pass the conformance suite in store/storetest.
type Store interface {
	// CreateAccount stores a new account. A taken name returns a KindConflict error.
	CreateAccount(ctx context.Context, a Account) error
	// AccountByName returns ErrNotFound when no account has that name.
	AccountByName(ctx context.Context, name string) (Account, error)

	// CreateAPIKey stores a key record for an existing account.
	CreateAPIKey(ctx context.Context, k APIKey) error
	// APIKey returns the key with that key id and the account it belongs to, or ErrNotFound.
	APIKey(ctx context.Context, keyID string) (APIKey, Account, error)

	// CreateTrackingRequest stores a new request. If the account already has a pending or created
	// request with the same number and SCAC it returns DuplicateError, also under concurrency.
	CreateTrackingRequest(ctx context.Context, tr TrackingRequest) error
	// TrackingRequest returns one of the account's requests, or ErrNotFound.
	TrackingRequest(ctx context.Context, accountID, id string) (TrackingRequest, error)
	// TrackingRequests returns a page of the account's requests, newest first, and how many match.
	TrackingRequests(ctx context.Context, accountID string, f TrackingRequestFilter, p Page) ([]TrackingRequest, int, error)
	// SetTrackingRequestRefNumbers replaces the reference numbers of one of the account's requests
	// and returns it updated, or ErrNotFound.
	SetTrackingRequestRefNumbers(ctx context.Context, accountID, id string, refs []string, now time.Time) (TrackingRequest, error)

	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
	Close() error
}

// RateLimiter counts requests against per-key limits.
type RateLimiter interface {
	// Allow takes one request from the bucket key, which admits limit requests per period. When
	// it refuses, retryAfter says how long until a request would be admitted.
	Allow(ctx context.Context, key string, limit int, period time.Duration) (ok bool, retryAfter time.Duration, err error)
}
