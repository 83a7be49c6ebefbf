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

	// Shipment returns one of the account's shipments, or ErrNotFound.
	Shipment(ctx context.Context, accountID, id string) (Shipment, error)
	// Shipments returns a page of the account's shipments, newest first, and how many match.
	Shipments(ctx context.Context, accountID string, f ShipmentFilter, p Page) ([]Shipment, int, error)
	// ShipmentContainers returns the containers of one of the account's shipments by number.
	ShipmentContainers(ctx context.Context, accountID, shipmentID string) ([]Container, error)
	// Container returns one of the account's containers, or ErrNotFound.
	Container(ctx context.Context, accountID, id string) (Container, error)
	// Containers returns a page of the account's containers, newest first, and how many there are.
	Containers(ctx context.Context, accountID string, p Page) ([]Container, int, error)
	// TransportEvents returns a page of a container's milestones, oldest first, and how many
	// there are; another account's container is ErrNotFound.
	TransportEvents(ctx context.Context, accountID, containerID string, p Page) ([]TransportEvent, int, error)
	// Vessel returns a vessel by id or IMO number, or ErrNotFound. Vessels are shared reference data.
	Vessel(ctx context.Context, idOrIMO string) (Vessel, error)

	// TransportEvent returns one of the account's transport events, or ErrNotFound.
	TransportEvent(ctx context.Context, accountID, id string) (TransportEvent, error)
	// Event returns one of the account's logged events, or ErrNotFound.
	Event(ctx context.Context, accountID, id string) (Event, error)

	// CreateWebhook stores a new webhook.
	CreateWebhook(ctx context.Context, w Webhook) error
	// Webhook returns one of the account's webhooks, or ErrNotFound.
	Webhook(ctx context.Context, accountID, id string) (Webhook, error)
	// Webhooks returns a page of the account's webhooks, newest first, and how many there are.
	Webhooks(ctx context.Context, accountID string, p Page) ([]Webhook, int, error)
	// UpdateWebhook writes every mutable field of one of the account's webhooks, or ErrNotFound.
	UpdateWebhook(ctx context.Context, w Webhook) error
	// DeleteWebhook removes one of the account's webhooks with its notifications, or ErrNotFound.
	DeleteWebhook(ctx context.Context, accountID, id string) error
	// Notification returns one of the account's notifications, or ErrNotFound.
	Notification(ctx context.Context, accountID, id string) (Notification, error)
	// Notifications returns a page of the account's notifications, newest first, and how many match.
	Notifications(ctx context.Context, accountID string, f NotificationFilter, p Page) ([]Notification, int, error)
	// DeliveryAttempts returns a notification's log, oldest first.
	DeliveryAttempts(ctx context.Context, notificationID string) ([]DeliveryAttempt, error)

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

// Tracker runs the tracking lifecycle: changes that must start or stop work go through it so that
// the work is scheduled in the same transaction.
type Tracker interface {
	// CreateTrackingRequest stores a new request and schedules its lookup; see
	// Store.CreateTrackingRequest for the duplicate rule.
	CreateTrackingRequest(ctx context.Context, tr TrackingRequest) error
	// StopTracking stops refreshing one of the account's shipments; ErrNotFound if it is not theirs.
	StopTracking(ctx context.Context, accountID, shipmentID string) (Shipment, error)
	// ResumeTracking refreshes a stopped shipment again; DuplicateError if the account meanwhile
	// tracks the same number in another live request.
	ResumeTracking(ctx context.Context, accountID, shipmentID string) (Shipment, error)
	// Redeliver sends one of the account's notifications again, with the same id and body.
	Redeliver(ctx context.Context, accountID, notificationID string) (Notification, error)
	// RedeliverSince sends again every failed notification of one of the account's webhooks
	// created at or after since, and returns how many.
	RedeliverSince(ctx context.Context, accountID, webhookID string, since time.Time) (int, error)
}

// PortLookup finds ports by UN/LOCODE or by id.
type PortLookup interface {
	ByLOCODE(locode string) (Port, bool)
	ByID(id string) (Port, bool)
}
