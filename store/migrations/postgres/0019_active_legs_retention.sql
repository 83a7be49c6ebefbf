-- The legs of tracked shipments whose vessel has not arrived yet, one row a leg: a leg is a stop's
-- outbound vessel up to the next stop, active while that stop has no ATA and the shipment is not
-- stopped. The store writes a shipment's rows with the shipment, deleting them on arrival and on
-- stop, so that AIS ingest reads the vessels to follow from the index instead of every route.
-- The MMSI is not kept here: it is learned later from AIS static reports, and read from vessels
-- and vessel_identities by IMO number.
CREATE TABLE active_legs (
    shipment_id uuid    NOT NULL REFERENCES shipments (id) ON DELETE CASCADE,
    leg         integer NOT NULL,
    vessel_imo  text    NOT NULL,
    vessel_name text    NOT NULL DEFAULT '',
    PRIMARY KEY (shipment_id, leg)
);

CREATE INDEX active_legs_vessel ON active_legs (vessel_imo);

-- Existing shipments get theirs from their route, as the store writes them since.
INSERT INTO active_legs (shipment_id, leg, vessel_imo, vessel_name)
SELECT s.id, (leg.n - 1)::integer, leg.value ->> 'OutboundVesselIMO', coalesce(s.vessel_names ->> (leg.value ->> 'OutboundVesselIMO'), '')
FROM shipments s,
    jsonb_array_elements(CASE jsonb_typeof(s.route) WHEN 'array' THEN s.route ELSE '[]' END) WITH ORDINALITY AS leg(value, n)
WHERE s.stopped_at IS NULL AND leg.n < jsonb_array_length(s.route)
    AND coalesce(leg.value ->> 'OutboundVesselIMO', '') <> ''
    AND coalesce(substr(s.route -> leg.n::integer ->> 'ATA', 1, 4), '') < '0002';

-- A terminal's id is made of its port and SMDG code (boxwatch.TerminalID), so the primary key
-- already keeps one row per coded terminal. A second unique index made two lookups that insert
-- the same new terminal at once fail: INSERT ... ON CONFLICT (id) waits on a concurrent insert
-- only through its arbiter, and the other index reported a unique violation instead. A plain
-- index serves the lookups by port and code. (SQLite runs one writer at a time and keeps its
-- constraint.)
ALTER TABLE terminals DROP CONSTRAINT terminals_locode_smdg_code_key;
CREATE INDEX terminals_port_smdg ON terminals (locode, smdg_code);

-- Retention (the engine's retention job) deletes, a batch at a time, notifications delivered or
-- failed for good by the time of their last change, then events by age that no notification
-- refers to: each batch finds its rows by index. The index on event_id also serves the cascade
-- from an event to its notifications.
CREATE INDEX webhook_notifications_finished ON webhook_notifications (updated_at) WHERE delivery_status <> 'pending';
CREATE INDEX webhook_notifications_event ON webhook_notifications (event_id);
CREATE INDEX events_created ON events (created_at);
