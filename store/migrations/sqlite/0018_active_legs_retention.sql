-- The legs of tracked shipments whose vessel has not arrived yet, one row a leg: a leg is a stop's
-- outbound vessel up to the next stop, active while that stop has no ATA and the shipment is not
-- stopped. The store writes a shipment's rows with the shipment, deleting them on arrival and on
-- stop, so that AIS ingest reads the vessels to follow from the index instead of every route.
-- The MMSI is not kept here: it is learned later from AIS static reports, and read from vessels
-- and vessel_identities by IMO number.
CREATE TABLE active_legs (
    shipment_id TEXT    NOT NULL REFERENCES shipments (id) ON DELETE CASCADE,
    leg         INTEGER NOT NULL,
    vessel_imo  TEXT    NOT NULL,
    vessel_name TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (shipment_id, leg)
);

CREATE INDEX active_legs_vessel ON active_legs (vessel_imo);

-- Existing shipments get theirs from their route, as the store writes them since.
INSERT INTO active_legs (shipment_id, leg, vessel_imo, vessel_name)
SELECT s.id, leg.key, json_extract(leg.value, '$.OutboundVesselIMO'),
    coalesce(json_extract(s.vessel_names, '$."' || json_extract(leg.value, '$.OutboundVesselIMO') || '"'), '')
FROM shipments s, json_each(s.route) leg
WHERE s.stopped_at IS NULL AND json_type(s.route) = 'array' AND leg.key < json_array_length(s.route) - 1
    AND coalesce(json_extract(leg.value, '$.OutboundVesselIMO'), '') <> ''
    AND coalesce(substr(json_extract(s.route, '$[' || (leg.key + 1) || '].ATA'), 1, 4), '') < '0002';

-- Retention (the engine's retention job) deletes, a batch at a time, notifications delivered or
-- failed for good by the time of their last change, then events by age that no notification
-- refers to: each batch finds its rows by index. The index on event_id also serves the cascade
-- from an event to its notifications.
CREATE INDEX webhook_notifications_finished ON webhook_notifications (updated_at) WHERE delivery_status <> 'pending';
CREATE INDEX webhook_notifications_event ON webhook_notifications (event_id);
CREATE INDEX events_created ON events (created_at);
