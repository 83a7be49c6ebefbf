-- Webhooks and their deliveries. A notification is one event for one webhook; it is created in
-- the transaction that logs the event, and keeps the exact body it was first sent with.
CREATE TABLE webhooks (
    id                 uuid PRIMARY KEY,
    account_id         uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    url                text NOT NULL,
    active             boolean NOT NULL,
    events             jsonb NOT NULL DEFAULT '[]',
    headers            jsonb NOT NULL DEFAULT '[]',
    secret             text NOT NULL,
    -- Why the service deactivated it (a 410, or three days of failures); NULL otherwise.
    deactivated_reason text,
    -- Since when every delivery has failed; NULL after a success.
    failing_since      timestamptz,
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL
);

CREATE INDEX webhooks_account ON webhooks (account_id, created_at DESC, id DESC);

CREATE TABLE webhook_notifications (
    id              uuid PRIMARY KEY,
    account_id      uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    webhook_id      uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id        uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    event           text NOT NULL,
    delivery_status text NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    -- The document as first sent: retries and redeliveries send the same bytes.
    body            text,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL
);

CREATE INDEX webhook_notifications_account ON webhook_notifications (account_id, created_at DESC, id DESC);
CREATE INDEX webhook_notifications_webhook ON webhook_notifications (webhook_id, delivery_status, created_at);

CREATE TABLE webhook_notification_logs (
    id               uuid PRIMARY KEY,
    notification_id  uuid NOT NULL REFERENCES webhook_notifications (id) ON DELETE CASCADE,
    attempted_at     timestamptz NOT NULL,
    status_code      integer,
    latency_ms       integer NOT NULL,
    error            text NOT NULL DEFAULT '',
    response_snippet text NOT NULL DEFAULT ''
);

CREATE INDEX webhook_notification_logs_notification ON webhook_notification_logs (notification_id, attempted_at);
