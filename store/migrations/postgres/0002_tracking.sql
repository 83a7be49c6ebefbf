-- The tracking engine: shipments with their route, containers, milestones, vessels, the event log.
CREATE TABLE shipments (
    id                  uuid PRIMARY KEY,
    account_id          uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    tracking_request_id uuid NOT NULL UNIQUE REFERENCES tracking_requests (id) ON DELETE CASCADE,
    scac                text NOT NULL,
    bill_of_lading      text NOT NULL DEFAULT '',
    normalized_number   text NOT NULL DEFAULT '',
    booking             text NOT NULL DEFAULT '',
    ref_numbers         jsonb NOT NULL DEFAULT '[]',
    tags                jsonb NOT NULL DEFAULT '[]',
    -- The ports of the journey in order with their times, vessels and voyages (JSON).
    route               jsonb NOT NULL DEFAULT '[]',
    reference_type      text NOT NULL,
    reference_number    text NOT NULL,
    last_attempted_at   timestamptz,
    last_succeeded_at   timestamptz,
    stopped_at          timestamptz,
    stopped_reason      text,
    next_refresh_at     timestamptz,
    -- The carrier's picture at the last successful lookup (JSON), the base of the next diff.
    snapshot            jsonb NOT NULL DEFAULT '{}',
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL
);

CREATE INDEX shipments_account_created ON shipments (account_id, created_at DESC, id DESC);
CREATE INDEX shipments_due ON shipments (next_refresh_at) WHERE next_refresh_at IS NOT NULL;

CREATE TABLE containers (
    id                   uuid PRIMARY KEY,
    account_id           uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    shipment_id          uuid NOT NULL REFERENCES shipments (id) ON DELETE CASCADE,
    number               text NOT NULL,
    seal_number          text NOT NULL DEFAULT '',
    iso_code             text NOT NULL DEFAULT '',
    current_status       text NOT NULL,
    empty_out_at         timestamptz,
    full_in_at           timestamptz,
    loaded_at            timestamptz,
    departed_at          timestamptz,
    pod_arrived_at       timestamptz,
    pod_discharged_at    timestamptz,
    pod_full_out_at      timestamptz,
    empty_terminated_at  timestamptz,
    available_for_pickup boolean,
    created_at           timestamptz NOT NULL,
    updated_at           timestamptz NOT NULL,
    UNIQUE (shipment_id, number)
);

CREATE INDEX containers_account_created ON containers (account_id, created_at DESC, id DESC);

CREATE TABLE transport_events (
    id            uuid PRIMARY KEY,
    account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    shipment_id   uuid NOT NULL REFERENCES shipments (id) ON DELETE CASCADE,
    container_id  uuid NOT NULL REFERENCES containers (id) ON DELETE CASCADE,
    event         text NOT NULL,
    timestamp     timestamptz NOT NULL,
    locode        text NOT NULL DEFAULT '',
    voyage_number text NOT NULL DEFAULT '',
    vessel_imo    text NOT NULL DEFAULT '',
    data_source   text NOT NULL,
    created_at    timestamptz NOT NULL,
    -- A milestone happens once per container and place.
    UNIQUE (container_id, event, locode)
);

CREATE INDEX transport_events_container ON transport_events (container_id, timestamp, id);

CREATE TABLE vessels (
    id         uuid PRIMARY KEY,
    imo        text NOT NULL UNIQUE,
    mmsi       text NOT NULL DEFAULT '',
    name       text NOT NULL DEFAULT '',
    call_sign  text NOT NULL DEFAULT '',
    flag       text NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL
);

-- The durable event log that webhooks deliver from. The key makes each change unique per account.
CREATE TABLE events (
    id                  uuid PRIMARY KEY,
    account_id          uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name                text NOT NULL,
    object_type         text NOT NULL,
    object_id           text NOT NULL,
    tracking_request_id uuid,
    shipment_id         uuid,
    container_id        uuid,
    data                jsonb NOT NULL DEFAULT '{}',
    key                 text NOT NULL,
    created_at          timestamptz NOT NULL,
    UNIQUE (account_id, key)
);

CREATE INDEX events_account_created ON events (account_id, created_at, id);

-- The carrier simulator's memory: when a number was first looked up, and how often.
CREATE TABLE sim_state (
    key        text PRIMARY KEY,
    first_seen timestamptz NOT NULL,
    attempts   integer NOT NULL DEFAULT 0
);
