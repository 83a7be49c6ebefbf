-- Deliveries are claimed from this table in batches: next_attempt_at says when a pending
-- notification is due, claimed_until until when a process is delivering it (a crashed process's
-- claims lapse, and its deliveries are taken up again).
ALTER TABLE webhook_notifications ADD COLUMN next_attempt_at timestamptz;
ALTER TABLE webhook_notifications ADD COLUMN claimed_until timestamptz;
UPDATE webhook_notifications SET next_attempt_at = created_at WHERE delivery_status = 'pending';
CREATE INDEX webhook_notifications_due ON webhook_notifications (next_attempt_at) WHERE delivery_status = 'pending';
