package boxwatch

import (
	"context"
	"time"
)

// Store is the whole of what the API reads and writes, one narrow interface per resource; each
// handler and worker takes only the interfaces it uses. Every method that takes an accountID sees
// only that account's records: another account's ids behave exactly as ids that do not exist.
// Batch reads (ShipmentsByID, ContainersOfShipments and the like) cost one query whatever the
// number of ids, so a page of a listing costs a constant number of queries; ids that do not exist,
// are malformed or belong to another account are simply absent from their answer.
// Implementations must pass the conformance suite in store/storetest, whose checklist names each
// method by the interface that declares it.
type Store interface {
	AccountStore
	TrackingRequestStore
	ShipmentStore
	ContainerStore
	VesselStore
	TerminalStore
	EventStore
	WebhookStore
	NotificationStore
	PartyStore
	CustomFieldStore

	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
	Close() error
}

// AccountStore keeps accounts and their API keys.
type AccountStore interface {
	// CreateAccount stores a new account. A taken name returns a KindConflict error.
	CreateAccount(ctx context.Context, a Account) error
	// AccountByName returns ErrNotFound when no account has that name.
	AccountByName(ctx context.Context, name string) (Account, error)
	// Accounts returns every account, by name.
	Accounts(ctx context.Context) ([]Account, error)
	// CreateAPIKey stores a key record for an existing account.
	CreateAPIKey(ctx context.Context, k APIKey) error
	// APIKey returns the key with that key id and the account it belongs to, or ErrNotFound. It
	// may answer from a short-lived cache: a key revoked through another store may still be
	// found for a few seconds (store.KeyCacheTTL), one revoked through this one may not.
	APIKey(ctx context.Context, keyID string) (APIKey, Account, error)
	// APIKeys returns the account's live keys, oldest first; an unknown account has none.
	APIKeys(ctx context.Context, accountID string) ([]APIKey, error)
	// RevokeAPIKey deletes a key record, so the key authenticates no more, or returns ErrNotFound.
	RevokeAPIKey(ctx context.Context, keyID string) error
}

// TrackingRequestStore keeps the account's tracking requests.
type TrackingRequestStore interface {
	// CreateTrackingRequest stores a new request. If the account already has a pending or created
	// request with the same number and SCAC it returns DuplicateError, also under concurrency.
	CreateTrackingRequest(ctx context.Context, tr TrackingRequest) error
	// TrackingRequest returns one of the account's requests, or ErrNotFound.
	TrackingRequest(ctx context.Context, accountID, id string) (TrackingRequest, error)
	// TrackingRequests returns a page of the account's requests, newest first, and how many match.
	TrackingRequests(ctx context.Context, accountID string, f TrackingRequestFilter, p Page) ([]TrackingRequest, Total, error)
	// SetTrackingRequestRefNumbers replaces the reference numbers of one of the account's requests,
	// and of its shipment when it has one, and returns the request updated, or ErrNotFound.
	SetTrackingRequestRefNumbers(ctx context.Context, accountID, id string, refs []string, now time.Time) (TrackingRequest, error)
}

// ShipmentStore reads the account's shipments, and labels them.
type ShipmentStore interface {
	// Shipment returns one of the account's shipments, or ErrNotFound. The shipments this store
	// returns leave Snapshot empty (VesselNames holds what documents show of it), but for
	// ShipmentWithSnapshot's.
	Shipment(ctx context.Context, accountID, id string) (Shipment, error)
	// ShipmentWithSnapshot returns one of the account's shipments with its carrier snapshot, or
	// ErrNotFound.
	ShipmentWithSnapshot(ctx context.Context, accountID, id string) (Shipment, error)
	// Shipments returns a page of the account's shipments, newest first, and how many match.
	Shipments(ctx context.Context, accountID string, f ShipmentFilter, p Page) ([]Shipment, Total, error)
	// SetShipmentLabels replaces the reference numbers and tags of one of the account's shipments (a
	// nil list is left unchanged) and returns it updated, or ErrNotFound.
	SetShipmentLabels(ctx context.Context, accountID, id string, refs, tags []string, now time.Time) (Shipment, error)
	// ShipmentsByID returns the account's shipments with the given ids, keyed by id.
	ShipmentsByID(ctx context.Context, accountID string, ids []string) (map[string]Shipment, error)
}

// ContainerStore reads the account's containers and their milestones, and labels them.
type ContainerStore interface {
	// ShipmentContainers returns the containers of one of the account's shipments by number.
	ShipmentContainers(ctx context.Context, accountID, shipmentID string) ([]Container, error)
	// ContainersOfShipments returns the containers of the account's shipments with the given ids,
	// keyed by shipment id, each list by number. A shipment without containers is absent.
	ContainersOfShipments(ctx context.Context, accountID string, shipmentIDs []string) (map[string][]Container, error)
	// Container returns one of the account's containers, or ErrNotFound.
	Container(ctx context.Context, accountID, id string) (Container, error)
	// Containers returns a page of the account's containers, newest first, and how many there are.
	Containers(ctx context.Context, accountID string, f ContainerFilter, p Page) ([]Container, Total, error)
	// SetContainerRefNumbers replaces the reference numbers of one of the account's containers and
	// returns it updated, or ErrNotFound (another account's container included).
	SetContainerRefNumbers(ctx context.Context, accountID, id string, refs []string, now time.Time) (Container, error)
	// TransportEvents returns a page of a container's milestones, oldest first, and how many
	// there are; another account's container is ErrNotFound.
	TransportEvents(ctx context.Context, accountID, containerID string, p Page) ([]TransportEvent, int, error)
	// TransportEvent returns one of the account's transport events, or ErrNotFound.
	TransportEvent(ctx context.Context, accountID, id string) (TransportEvent, error)
	// TransportEventsOfContainers returns every milestone of the account's containers with the
	// given ids, keyed by container id, each list oldest first. A container without milestones is
	// absent.
	TransportEventsOfContainers(ctx context.Context, accountID string, containerIDs []string) (map[string][]TransportEvent, error)
}

// VesselStore reads vessels, shared reference data not scoped to an account.
type VesselStore interface {
	// Vessel returns a vessel by id or IMO number, or ErrNotFound. Vessels are shared reference data.
	Vessel(ctx context.Context, idOrIMO string) (Vessel, error)
	// VesselsByIMO returns the vessels with the given IMO numbers, keyed by IMO number. Vessels are
	// shared reference data: this is the one batch read not scoped to an account.
	VesselsByIMO(ctx context.Context, imos []string) (map[string]Vessel, error)
}

// TerminalStore reads the terminals carriers reported, shared reference data.
type TerminalStore interface {
	// Terminal returns a terminal carriers reported, by id, or ErrNotFound.
	Terminal(ctx context.Context, id string) (Terminal, error)
	// TerminalsAtPorts returns the terminals known at each port, keyed by UN/LOCODE, each list by
	// SMDG code; a port without terminals is absent.
	TerminalsAtPorts(ctx context.Context, locodes []string) (map[string][]Terminal, error)
	// TerminalByRef returns the terminal a ref names, by port and SMDG code, else by FIRMS code,
	// or ErrNotFound.
	TerminalByRef(ctx context.Context, ref TerminalRef) (Terminal, error)
}

// EventStore reads the account's logged events, the source of its notifications.
type EventStore interface {
	// Event returns one of the account's logged events, or ErrNotFound.
	Event(ctx context.Context, accountID, id string) (Event, error)
	// EventsByID returns the account's logged events with the given ids, keyed by id.
	EventsByID(ctx context.Context, accountID string, ids []string) (map[string]Event, error)
}

// WebhookStore keeps the account's webhooks.
type WebhookStore interface {
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
}

// NotificationStore reads the account's webhook notifications and their delivery logs.
type NotificationStore interface {
	// Notification returns one of the account's notifications, or ErrNotFound.
	Notification(ctx context.Context, accountID, id string) (Notification, error)
	// Notifications returns a page of the account's notifications, newest first, and how many match.
	Notifications(ctx context.Context, accountID string, f NotificationFilter, p Page) ([]Notification, int, error)
	// DeliveryAttempts returns a notification's log, oldest first.
	DeliveryAttempts(ctx context.Context, notificationID string) ([]DeliveryAttempt, error)
	// DeliveryAttemptsOf returns the logs of the account's notifications with the given ids, keyed
	// by notification id, each oldest first. A notification never attempted is absent.
	DeliveryAttemptsOf(ctx context.Context, accountID string, notificationIDs []string) (map[string][]DeliveryAttempt, error)
}

// PartyStore keeps the account's parties (the customers its shipments are for).
type PartyStore interface {
	// CreateParty stores a new party.
	CreateParty(ctx context.Context, p Party) error
	// Party returns one of the account's parties, or ErrNotFound.
	Party(ctx context.Context, accountID, id string) (Party, error)
	// Parties returns a page of the account's parties, newest first, and how many there are.
	Parties(ctx context.Context, accountID string, p Page) ([]Party, int, error)
	// RenameParty changes a party's company name, and the customer name its shipments carry;
	// it returns the party updated, or ErrNotFound.
	RenameParty(ctx context.Context, accountID, id, name string, now time.Time) (Party, error)
}

// CustomFieldStore keeps the account's custom field definitions, their options and the values set on resources.
type CustomFieldStore interface {
	// CreateCustomFieldDefinition stores a new definition; a slug the account already uses for
	// the entity type is a taken error at /data/attributes/api_slug.
	CreateCustomFieldDefinition(ctx context.Context, d CustomFieldDefinition) error
	// CustomFieldDefinition returns one of the account's definitions, or ErrNotFound.
	CustomFieldDefinition(ctx context.Context, accountID, id string) (CustomFieldDefinition, error)
	// CustomFieldDefinitionBySlug returns the account's definition of an entity type by API slug, or ErrNotFound.
	CustomFieldDefinitionBySlug(ctx context.Context, accountID, entityType, slug string) (CustomFieldDefinition, error)
	// CustomFieldDefinitions returns a page of the account's definitions, newest first, and how many match.
	CustomFieldDefinitions(ctx context.Context, accountID string, f CustomFieldDefinitionFilter, p Page) ([]CustomFieldDefinition, int, error)
	// UpdateCustomFieldDefinition writes a definition's display name, validation and defaults, or ErrNotFound.
	UpdateCustomFieldDefinition(ctx context.Context, d CustomFieldDefinition) error
	// DeleteCustomFieldDefinition removes a definition with its options and values, or ErrNotFound.
	DeleteCustomFieldDefinition(ctx context.Context, accountID, id string) error
	// CreateCustomFieldOption stores a new option; a value the definition has is a taken error.
	CreateCustomFieldOption(ctx context.Context, o CustomFieldOption) error
	// CustomFieldOptions returns a definition's options by position, then oldest first.
	CustomFieldOptions(ctx context.Context, accountID, definitionID string) ([]CustomFieldOption, error)
	// CustomFieldOption returns one option of a definition, or ErrNotFound.
	CustomFieldOption(ctx context.Context, accountID, definitionID, id string) (CustomFieldOption, error)
	// UpdateCustomFieldOption writes an option's label, value and position, or ErrNotFound.
	UpdateCustomFieldOption(ctx context.Context, o CustomFieldOption) error
	// DeleteCustomFieldOption removes an option, or ErrNotFound.
	DeleteCustomFieldOption(ctx context.Context, accountID, definitionID, id string) error
	// SetCustomField sets a definition's value on a resource, creating the field or replacing its value.
	SetCustomField(ctx context.Context, f CustomField) (CustomField, error)
	// CustomField returns one of the account's custom fields, or ErrNotFound.
	CustomField(ctx context.Context, accountID, id string) (CustomField, error)
	// CustomFields returns a page of the account's custom fields, newest first, and how many match.
	CustomFields(ctx context.Context, accountID string, f CustomFieldFilter, p Page) ([]CustomField, int, error)
	// DeleteCustomField removes one of the account's custom fields, or ErrNotFound.
	DeleteCustomField(ctx context.Context, accountID, id string) error
}

// Tx is one transaction on the store: a state change, the events it causes and the jobs it needs
// commit together or not at all. Its methods are unscoped (they take ids, not an account) unless
// their name says Account, and the methods named Lock… lock the rows they read until the
// transaction ends. Only background work (the tracking engine, webhook delivery) uses Tx; the API
// reads through Store.
type Tx interface {
	// AfterCommit runs fn once the transaction has committed; never if it rolls back.
	AfterCommit(fn func())

	// CreateTrackingRequest is Store.CreateTrackingRequest inside the transaction.
	CreateTrackingRequest(ctx context.Context, tr TrackingRequest) error
	// LockTrackingRequest returns a request by id, whatever its account, or ErrNotFound.
	LockTrackingRequest(ctx context.Context, id string) (TrackingRequest, error)
	// SaveTrackingRequestState writes a request's lifecycle fields (status, failed_reason,
	// is_retrying, retry_count, shipment link, updated_at) and its SCAC, which detection sets.
	// Reaching pending or created again, or a detected SCAC, may collide with a live duplicate:
	// that is DuplicateError.
	SaveTrackingRequestState(ctx context.Context, tr TrackingRequest) error

	// InsertShipment stores a new shipment.
	InsertShipment(ctx context.Context, s Shipment) error
	// UpdateShipment writes every mutable field of a shipment, or returns ErrNotFound.
	UpdateShipment(ctx context.Context, s Shipment) error
	// LockShipment returns a shipment by id, whatever its account, or ErrNotFound.
	LockShipment(ctx context.Context, id string) (Shipment, error)
	// LockAccountShipment returns one of the account's shipments, or ErrNotFound.
	LockAccountShipment(ctx context.Context, accountID, id string) (Shipment, error)
	// ShipmentContainers returns a shipment's containers by number, unlocked.
	ShipmentContainers(ctx context.Context, shipmentID string) ([]Container, error)
	// LockContainer returns a container by id, whatever its account, or ErrNotFound.
	LockContainer(ctx context.Context, id string) (Container, error)
	// SaveContainer inserts a container or writes every mutable field of an existing one, except
	// the times RecordLookup keeps.
	SaveContainer(ctx context.Context, c Container) error
	// RecordLookup records a lookup of a shipment with its carrier at at on each of its
	// containers: ShipmentLastTrackingRequestAt, and with pod PODLastTrackingRequestAt too, on
	// the containers not yet picked up at the port of discharge.
	RecordLookup(ctx context.Context, shipmentID string, at time.Time, pod bool) error
	// InsertTransportEvent stores a milestone unless one with the same container, event and
	// place exists; it reports whether it stored it.
	InsertTransportEvent(ctx context.Context, e TransportEvent) (bool, error)
	// TransportEventByKey returns the milestone of a container with that event and place, or
	// ErrNotFound.
	TransportEventByKey(ctx context.Context, containerID, event, locode string) (TransportEvent, error)
	// SetTransportEventValue replaces the time and value of a container's event at a place and
	// returns it, or ErrNotFound.
	SetTransportEventValue(ctx context.Context, containerID, event, locode string, timestamp time.Time, value string) (TransportEvent, error)
	// SaveVessel inserts a vessel or refreshes what carriers reported of it.
	SaveVessel(ctx context.Context, v Vessel, now time.Time) error
	// SetCustomField sets a definition's value on a resource in the transaction, creating the
	// field or replacing its value.
	SetCustomField(ctx context.Context, f CustomField) (CustomField, error)
	// SaveTerminal records a terminal: a listed one (from the terminal list) whole; a carrier's
	// report of a known one changes only the name of a terminal not listed, when it names one.
	SaveTerminal(ctx context.Context, t Terminal) error

	// AppendEvent logs an event unless one with the same key is logged; it reports whether it
	// logged it.
	AppendEvent(ctx context.Context, e Event) (bool, error)
	// Notify creates a pending notification of e for every active webhook of its account that
	// subscribes to it, and returns their ids.
	Notify(ctx context.Context, e Event) ([]string, error)

	// SaveWebhookState writes every mutable field of a webhook, or returns ErrNotFound.
	SaveWebhookState(ctx context.Context, w Webhook) error
	// LockNotification returns a notification by id, or ErrNotFound.
	LockNotification(ctx context.Context, id string) (Notification, error)
	// LockNotificationAndWebhook returns a notification and its webhook, both locked, or
	// ErrNotFound.
	LockNotificationAndWebhook(ctx context.Context, id string) (Notification, Webhook, error)
	// SaveNotification writes a notification's delivery state and body.
	SaveNotification(ctx context.Context, n Notification) error
	// AddDeliveryAttempt appends one attempt to a notification's log.
	AddDeliveryAttempt(ctx context.Context, a DeliveryAttempt) error
	// RequeueNotifications makes every notification of a webhook created at or after since that
	// failed, or is pending and not claimed (retrying later), pending and due now, and returns
	// their ids. Attempt counts stay as they are.
	RequeueNotifications(ctx context.Context, webhookID string, since, now time.Time) ([]string, error)
}

// WorkStore is the store as background work sees it: transactions, and the unscoped reads that
// find work to do. Implementations must pass the conformance suite in store/storetest.
type WorkStore interface {
	// InTx runs fn in one transaction and commits when fn returns nil. It rolls back when fn
	// returns an error or panics (the panic then continues).
	InTx(ctx context.Context, fn func(tx Tx) error) error
	// DueShipments returns up to limit ids of tracked shipments whose next refresh is at or
	// before now, the most overdue first.
	DueShipments(ctx context.Context, now time.Time, limit int) ([]string, error)
	// DueTerminalChecks returns up to limit ids of containers whose next terminal check is at or
	// before now, the most overdue first: those of tracked shipments, and of shipments whose
	// tracking ended with the carrier's data (a terminal still holds their boxes), not of those
	// stopped by the user or cancelled by the line.
	DueTerminalChecks(ctx context.Context, now time.Time, limit int) ([]string, error)
	// ContainerAndShipment returns a container and its shipment by the container's id, whatever
	// the account, unlocked, or ErrNotFound.
	ContainerAndShipment(ctx context.Context, containerID string) (Container, Shipment, error)
	// NotificationAndWebhook returns a notification and its webhook, unlocked, or ErrNotFound.
	NotificationAndWebhook(ctx context.Context, id string) (Notification, Webhook, error)
	// ClaimDueNotifications claims up to limit pending notifications that are due at now and not
	// claimed, until until, and returns their ids. A claim lapses at until, so the notification
	// of a process that died is claimed again. Live claims, in any process, count against the
	// bounds: a claim never takes a webhook or an account past them. A notification is not
	// claimed while an earlier notification of the same webhook and subject (Event.Subject) is
	// pending, so a subject's notifications reach a webhook in event order. Its cost does not
	// grow with the number of pending notifications.
	ClaimDueNotifications(ctx context.Context, now, until time.Time, limit int, b ClaimBounds) ([]string, error)
	// ClaimDueDeliveries claims as ClaimDueNotifications does and returns each claimed
	// notification with its webhook as they stood at the claim.
	ClaimDueDeliveries(ctx context.Context, now, until time.Time, limit int, b ClaimBounds) ([]ClaimedDelivery, error)
	// RecordDelivered records a successful attempt at a claimed notification whose webhook is
	// healthy (FailingSince zero): the attempt's log entry, the notification succeeded with its
	// claim ended and its body kept when body is not empty, and the next notification of its
	// webhook and subject due at now. A notification no longer pending keeps its state; the
	// attempt is logged all the same.
	RecordDelivered(ctx context.Context, a DeliveryAttempt, body []byte, now time.Time) error
	// RenewClaims extends the live claims on the given notifications until until, in one go;
	// those no longer pending are left alone.
	RenewClaims(ctx context.Context, ids []string, until time.Time) error
	// UnclaimNotification gives a claim back and makes the notification due at next.
	UnclaimNotification(ctx context.Context, id string, next time.Time) error
	// NotificationBacklog counts the pending notifications of every account at now, and lists
	// the webhooks holding the most of them, at most limit (0 lists none), most pending first.
	NotificationBacklog(ctx context.Context, now time.Time, limit int) (NotificationBacklog, error)
}

// NotificationBacklog is what waits to be delivered: every pending notification, those of them
// due now, and since when the oldest due one is due (zero when none is).
type NotificationBacklog struct {
	Pending, Due int64
	OldestDue    time.Time
	Webhooks     []WebhookBacklog
}

// WebhookBacklog is one webhook's share of the backlog.
type WebhookBacklog struct {
	WebhookID, AccountID, URL string
	Active                    bool
	FailingSince              time.Time
	Pending, Due              int64
	OldestDue                 time.Time
}

// ClaimedDelivery is a claimed notification and its webhook.
type ClaimedDelivery struct {
	Notification Notification
	Webhook      Webhook
}

// ClaimBounds bound the live delivery claims of one webhook and of one account, so that receivers
// that fail or hang hold a bounded share of the delivery workers, apart from what their
// account's healthy webhooks use. Zero does not bound.
type ClaimBounds struct {
	// PerWebhook bounds a healthy webhook's claims; a failing one gets one at a time.
	PerWebhook int
	// PerAccount bounds the claims of an account's healthy webhooks together.
	PerAccount int
	// PerAccountFailing bounds the claims of an account's failing webhooks together: a webhook
	// is failing while FailingSince is set, or while it holds a claim older than SlowAfter.
	PerAccountFailing int
	// SlowAfter is how long a claim may run (a request go unanswered) before its webhook counts
	// as failing; zero never.
	SlowAfter time.Duration
}

// PositionStore keeps what AIS says of vessels (package ais decodes it; the ingest feeds it):
// which MMSI a ship with an IMO number broadcasts as, the positions of the vessels on legs of
// tracked shipments, and the last position heard of every vessel. Store.Vessel then carries the
// MMSI and the last position. Positions are shared by all accounts, as vessels are.
type PositionStore interface {
	// SaveVesselIdentities records what static reports say; a later report for an MMSI replaces
	// the fields it gives of an earlier one. A vessel stored with the same IMO number and no MMSI
	// yet gets this one.
	SaveVesselIdentities(ctx context.Context, ids []VesselIdentity, now time.Time) error
	// SavePositions stores positions and returns how many were new: a position of the same MMSI
	// at the same time, heard by another receiver or stored by another replica, is kept once.
	SavePositions(ctx context.Context, ps []VesselPosition) (int, error)
	// SaveLastPositions records each vessel's latest position; a later one already stored stays.
	SaveLastPositions(ctx context.Context, ps []VesselPosition) error
	// VesselPositions returns a vessel's stored positions with from <= time < to, oldest first,
	// at most limit of them (the oldest ones).
	VesselPositions(ctx context.Context, mmsi string, from, to time.Time, limit int) ([]VesselPosition, error)
	// ActiveLegVessels returns the vessels of the legs of tracked shipments that have not arrived
	// yet (no ATA at the leg's last port), by MMSI, each with its IMO number. A vessel whose MMSI
	// is not known yet is left out.
	ActiveLegVessels(ctx context.Context) (map[string]string, error)
	// VesselArrivals returns the arrivals the routes of shipments record (Shipment.Arrivals) with
	// since <= ATA < until, of every account, each vessel's call at a port once (the same IMO
	// number, port and ATA), the latest first, at most limit of them.
	VesselArrivals(ctx context.Context, since, until time.Time, limit int) ([]VesselArrival, error)
}

// RetentionStore deletes history past its retention. Each call deletes at most limit rows in one
// short transaction and returns how many, so that a caller repeats it until fewer than limit go
// and no lock is held for long.
type RetentionStore interface {
	// DeleteFinishedNotifications deletes notifications that were delivered, or failed for good,
	// with no change since before t, and their delivery logs. A pending notification, retrying
	// or not, is never deleted.
	DeleteFinishedNotifications(ctx context.Context, t time.Time, limit int) (int64, error)
	// DeleteEventsBefore deletes logged events created before t that no notification refers to
	// (a notification that is kept keeps its event), and that are not of a shipment still
	// tracked or stopped since t: a shipment resumed could otherwise log an event again whose
	// key was forgotten.
	DeleteEventsBefore(ctx context.Context, t time.Time, limit int) (int64, error)
	// DeletePositionsBefore deletes stored vessel positions older than t.
	DeletePositionsBefore(ctx context.Context, t time.Time, limit int) (int64, error)
	// FoldListCounts merges into one row each the rows that concurrent writers left in up to
	// limit of the per-account list totals, and returns how many totals it merged; no total
	// changes. Rows a writer holds wait for a later call.
	FoldListCounts(ctx context.Context, limit int) (int64, error)
}

// Redeliverer sends notifications again on request.
type Redeliverer interface {
	// Redeliver sends one of the account's notifications again, with the same id and body. A
	// notification still pending is already on its way and is returned unchanged. An inactive
	// webhook is a KindConflict error.
	Redeliver(ctx context.Context, accountID, notificationID string) (Notification, error)
	// RedeliverSince sends every failed or retrying notification of one of the account's webhooks
	// created at or after since, now, and returns how many.
	RedeliverSince(ctx context.Context, accountID, webhookID string, since time.Time) (int, error)
}

// RateLimiter counts requests against per-key limits. A bucket admits a burst of limit requests,
// then one every period/limit. A limiter shared by several processes may differ from that within
// the tolerance its implementation states.
type RateLimiter interface {
	// Allow takes one request from the bucket key, which admits limit (> 0) requests per period.
	// When it refuses, retryAfter says how long until a request would be admitted.
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
	// RefreshNow makes one of the account's tracked shipments due for a lookup at once;
	// ErrNotFound if it is not theirs. A stopped shipment is left stopped.
	RefreshNow(ctx context.Context, accountID, shipmentID string) error
}

// PortLookup finds ports by UN/LOCODE or by id.
type PortLookup interface {
	ByLOCODE(locode string) (Port, bool)
	ByID(id string) (Port, bool)
}
