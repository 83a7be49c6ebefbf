-- Each notification carries its subject (the event's container, else its shipment, else its
-- tracking request, else its reference object), so that a webhook's notifications of one subject
-- queue behind each other without reading the events. Of a webhook's pending notifications of one
-- subject, only the head has a next_attempt_at (it is due, retrying or in flight); the others wait
-- with none, and the earliest is made due when the head succeeds or fails. A claim then reads
-- only heads, through an index, whatever the backlog behind them.
ALTER TABLE webhook_notifications ADD COLUMN subject text NOT NULL DEFAULT '';
-- When the live claim began: a claim older than the dispatcher's slow threshold marks its
-- webhook as failing for the claim bounds, before the request times out.
ALTER TABLE webhook_notifications ADD COLUMN claimed_at timestamptz;

UPDATE webhook_notifications n
SET subject = COALESCE(CAST(e.container_id AS text), CAST(e.shipment_id AS text), CAST(e.tracking_request_id AS text), e.object_id)
FROM events e WHERE e.id = n.event_id;

UPDATE webhook_notifications n SET next_attempt_at = NULL
WHERE n.delivery_status = 'pending' AND EXISTS (
    SELECT 1 FROM webhook_notifications p
    WHERE p.webhook_id = n.webhook_id AND p.subject = n.subject AND p.delivery_status = 'pending'
    AND (p.created_at < n.created_at OR p.created_at = n.created_at AND p.id < n.id));

-- At most one head per webhook and subject.
CREATE UNIQUE INDEX webhook_notifications_head ON webhook_notifications (webhook_id, subject)
    WHERE delivery_status = 'pending' AND next_attempt_at IS NOT NULL;
-- The heads of a webhook, most overdue first: what a claim reads.
CREATE INDEX webhook_notifications_ready ON webhook_notifications (webhook_id, next_attempt_at, id)
    WHERE delivery_status = 'pending' AND next_attempt_at IS NOT NULL;
-- The queue behind each head, in event order.
CREATE INDEX webhook_notifications_waiting ON webhook_notifications (webhook_id, subject, created_at, id)
    WHERE delivery_status = 'pending' AND next_attempt_at IS NULL;
-- The index of every pending notification by time due served claims that ranked the whole
-- backlog; the heads' index above serves them now.
DROP INDEX webhook_notifications_due;
-- The claims, live or lapsed: counted against the bounds at every claim.
CREATE INDEX webhook_notifications_claims ON webhook_notifications (claimed_until)
    WHERE delivery_status = 'pending' AND claimed_until IS NOT NULL;
