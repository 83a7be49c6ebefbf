-- Terminals as carriers report them: a port's facility by its SMDG code, with the name a carrier
-- gave it. Shared by every account, as vessels are; routes name them by code.
CREATE TABLE terminals (
    id         TEXT PRIMARY KEY,
    locode     TEXT NOT NULL,
    smdg_code  TEXT NOT NULL,
    name       TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (locode, smdg_code)
) STRICT;

-- What the terminal at the port of discharge last said of a container.
ALTER TABLE containers ADD COLUMN pickup_lfd INTEGER;
ALTER TABLE containers ADD COLUMN holds TEXT NOT NULL DEFAULT '[]';
ALTER TABLE containers ADD COLUMN fees TEXT NOT NULL DEFAULT '[]';
ALTER TABLE containers ADD COLUMN location_at_terminal TEXT NOT NULL DEFAULT '';
ALTER TABLE containers ADD COLUMN terminal_checked_at INTEGER;

-- Custom field values sent with a tracking request, set when its shipment exists (JSON).
ALTER TABLE tracking_requests ADD COLUMN initial_custom_fields TEXT NOT NULL DEFAULT '[]';

-- The new value a terminal event carries (container.pickup_lfd.changed: the last free day).
ALTER TABLE transport_events ADD COLUMN value TEXT NOT NULL DEFAULT '';
