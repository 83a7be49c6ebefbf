CREATE TABLE accounts (
    id         uuid PRIMARY KEY,
    name       text NOT NULL UNIQUE,
    features   jsonb NOT NULL DEFAULT '[]',
    created_at timestamptz NOT NULL
);

CREATE TABLE api_keys (
    id         text PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    hash       bytea NOT NULL,
    created_at timestamptz NOT NULL
);

CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE tracking_requests (
    id             uuid PRIMARY KEY,
    account_id     uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    request_type   text NOT NULL,
    request_number text NOT NULL,
    scac           text NOT NULL,
    ref_numbers    jsonb NOT NULL DEFAULT '[]',
    shipment_tags  jsonb NOT NULL DEFAULT '[]',
    status         text NOT NULL,
    failed_reason  text,
    is_retrying    boolean NOT NULL DEFAULT false,
    retry_count    integer,
    -- The shipments table arrives with the tracking engine; the link is kept here from the start.
    shipment_id    uuid,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
);

-- One live request per number and carrier in an account: the duplicate rule, enforced here so it
-- holds under concurrency and across replicas.
CREATE UNIQUE INDEX tracking_requests_live_number
    ON tracking_requests (account_id, scac, request_number)
    WHERE status IN ('pending', 'created');

CREATE INDEX tracking_requests_account_created
    ON tracking_requests (account_id, created_at DESC, id DESC);

-- Rate-limit buckets shared by every replica (GCRA: one theoretical arrival time per key). Losing
-- them in a crash only resets the limits, so the table skips the write-ahead log.
CREATE UNLOGGED TABLE rate_limits (
    key text PRIMARY KEY,
    tat timestamptz NOT NULL
);
