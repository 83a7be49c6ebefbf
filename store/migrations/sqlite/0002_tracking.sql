-- The tracking engine: shipments with their route, containers, milestones, vessels, the event log.
CREATE TABLE shipments (
    id                  TEXT PRIMARY KEY,
    account_id          TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    tracking_request_id TEXT NOT NULL UNIQUE REFERENCES tracking_requests (id) ON DELETE CASCADE,
    scac                TEXT NOT NULL,
    bill_of_lading      TEXT NOT NULL DEFAULT '',
    normalized_number   TEXT NOT NULL DEFAULT '',
    booking             TEXT NOT NULL DEFAULT '',
    ref_numbers         TEXT NOT NULL DEFAULT '[]',
    tags                TEXT NOT NULL DEFAULT '[]',
    -- The ports of the journey in order with their times, vessels and voyages (JSON).
    route               TEXT NOT NULL DEFAULT '[]',
    reference_type      TEXT NOT NULL,
    reference_number    TEXT NOT NULL,
    last_attempted_at   INTEGER,
    last_succeeded_at   INTEGER,
    stopped_at          INTEGER,
    stopped_reason      TEXT,
    next_refresh_at     INTEGER,
    -- The carrier's picture at the last successful lookup (JSON), the base of the next diff.
    snapshot            TEXT NOT NULL DEFAULT '{}',
    created_at          INTEGER NOT NULL,
    updated_at          INTEGER NOT NULL
) STRICT;

CREATE INDEX shipments_account_created ON shipments (account_id, created_at DESC, id DESC);
CREATE INDEX shipments_due ON shipments (next_refresh_at) WHERE next_refresh_at IS NOT NULL;

CREATE TABLE containers (
    id                   TEXT PRIMARY KEY,
    account_id           TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    shipment_id          TEXT NOT NULL REFERENCES shipments (id) ON DELETE CASCADE,
    number               TEXT NOT NULL,
    seal_number          TEXT NOT NULL DEFAULT '',
    iso_code             TEXT NOT NULL DEFAULT '',
    current_status       TEXT NOT NULL,
    empty_out_at         INTEGER,
    full_in_at           INTEGER,
    loaded_at            INTEGER,
    departed_at          INTEGER,
    pod_arrived_at       INTEGER,
    pod_discharged_at    INTEGER,
    pod_full_out_at      INTEGER,
    empty_terminated_at  INTEGER,
    available_for_pickup INTEGER,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    UNIQUE (shipment_id, number)
) STRICT;

CREATE INDEX containers_account_created ON containers (account_id, created_at DESC, id DESC);

CREATE TABLE transport_events (
    id            TEXT PRIMARY KEY,
    account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    shipment_id   TEXT NOT NULL REFERENCES shipments (id) ON DELETE CASCADE,
    container_id  TEXT NOT NULL REFERENCES containers (id) ON DELETE CASCADE,
    event         TEXT NOT NULL,
    timestamp     INTEGER NOT NULL,
    locode        TEXT NOT NULL DEFAULT '',
    voyage_number TEXT NOT NULL DEFAULT '',
    vessel_imo    TEXT NOT NULL DEFAULT '',
    data_source   TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    -- A milestone happens once per container and place.
    UNIQUE (container_id, event, locode)
) STRICT;

CREATE INDEX transport_events_container ON transport_events (container_id, timestamp, id);

CREATE TABLE vessels (
    id         TEXT PRIMARY KEY,
    imo        TEXT NOT NULL UNIQUE,
    mmsi       TEXT NOT NULL DEFAULT '',
    name       TEXT NOT NULL DEFAULT '',
    call_sign  TEXT NOT NULL DEFAULT '',
    flag       TEXT NOT NULL DEFAULT '',
    updated_at INTEGER NOT NULL
) STRICT;

-- The durable event log that webhooks deliver from. The key makes each change unique per account.
CREATE TABLE events (
    id                  TEXT PRIMARY KEY,
    account_id          TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name                TEXT NOT NULL,
    object_type         TEXT NOT NULL,
    object_id           TEXT NOT NULL,
    tracking_request_id TEXT,
    shipment_id         TEXT,
    container_id        TEXT,
    data                TEXT NOT NULL DEFAULT '{}',
    key                 TEXT NOT NULL,
    created_at          INTEGER NOT NULL,
    UNIQUE (account_id, key)
) STRICT;

CREATE INDEX events_account_created ON events (account_id, created_at, id);

-- The carrier simulator's memory: when a number was first looked up, and how often.
CREATE TABLE sim_state (
    key        TEXT PRIMARY KEY,
    first_seen INTEGER NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0
) STRICT;
