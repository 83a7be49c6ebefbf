-- Webhooks and their deliveries. A notification is one event for one webhook; it is created in
-- the transaction that logs the event, and keeps the exact body it was first sent with.
CREATE TABLE webhooks (
    id                 TEXT PRIMARY KEY,
    account_id         TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    url                TEXT NOT NULL,
    active             INTEGER NOT NULL,
    events             TEXT NOT NULL DEFAULT '[]',
    headers            TEXT NOT NULL DEFAULT '[]',
    secret             TEXT NOT NULL,
    -- Why the service deactivated it (a 410, or three days of failures); NULL otherwise.
    deactivated_reason TEXT,
    -- Since when every delivery has failed; NULL after a success.
    failing_since      INTEGER,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
) STRICT;

CREATE INDEX webhooks_account ON webhooks (account_id, created_at DESC, id DESC);

CREATE TABLE webhook_notifications (
    id              TEXT PRIMARY KEY,
    account_id      TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    webhook_id      TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id        TEXT NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    event           TEXT NOT NULL,
    delivery_status TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    -- The document as first sent: retries and redeliveries send the same bytes.
    body            TEXT,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;

CREATE INDEX webhook_notifications_account ON webhook_notifications (account_id, created_at DESC, id DESC);
CREATE INDEX webhook_notifications_webhook ON webhook_notifications (webhook_id, delivery_status, created_at);

CREATE TABLE webhook_notification_logs (
    id               TEXT PRIMARY KEY,
    notification_id  TEXT NOT NULL REFERENCES webhook_notifications (id) ON DELETE CASCADE,
    attempted_at     INTEGER NOT NULL,
    status_code      INTEGER,
    latency_ms       INTEGER NOT NULL,
    error            TEXT NOT NULL DEFAULT '',
    response_snippet TEXT NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX webhook_notification_logs_notification ON webhook_notification_logs (notification_id, attempted_at);
