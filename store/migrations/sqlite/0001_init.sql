-- Times are Unix microseconds (UTC); lists are JSON arrays of strings.
CREATE TABLE accounts (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    features   TEXT NOT NULL DEFAULT '[]',
    created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    hash       BLOB NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE tracking_requests (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    request_type   TEXT NOT NULL,
    request_number TEXT NOT NULL,
    scac           TEXT NOT NULL,
    ref_numbers    TEXT NOT NULL DEFAULT '[]',
    shipment_tags  TEXT NOT NULL DEFAULT '[]',
    status         TEXT NOT NULL,
    failed_reason  TEXT,
    is_retrying    INTEGER NOT NULL DEFAULT 0,
    retry_count    INTEGER,
    -- The shipments table arrives with the tracking engine; the link is kept here from the start.
    shipment_id    TEXT,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
) STRICT;

-- One live request per number and carrier in an account: the duplicate rule, enforced here so it
-- holds under concurrency.
CREATE UNIQUE INDEX tracking_requests_live_number
    ON tracking_requests (account_id, scac, request_number)
    WHERE status IN ('pending', 'created');

CREATE INDEX tracking_requests_account_created
    ON tracking_requests (account_id, created_at DESC, id DESC);
