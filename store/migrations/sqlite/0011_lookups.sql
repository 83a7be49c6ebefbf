-- When each container's shipment was last looked up with its carrier, and when its data at the
-- port of discharge was (store.RecordLookup).
ALTER TABLE containers ADD COLUMN shipment_last_tracking_request_at INTEGER;
ALTER TABLE containers ADD COLUMN pod_last_tracking_request_at INTEGER;
