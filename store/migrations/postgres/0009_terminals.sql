-- Terminals as carriers report them: a port's facility by its SMDG code, with the name a carrier
-- gave it. Shared by every account, as vessels are; routes name them by code.
CREATE TABLE terminals (
    id         uuid PRIMARY KEY,
    locode     text NOT NULL,
    smdg_code  text NOT NULL,
    name       text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (locode, smdg_code)
);

-- What the terminal at the port of discharge last said of a container.
ALTER TABLE containers ADD COLUMN pickup_lfd timestamptz;
ALTER TABLE containers ADD COLUMN holds jsonb NOT NULL DEFAULT '[]';
ALTER TABLE containers ADD COLUMN fees jsonb NOT NULL DEFAULT '[]';
ALTER TABLE containers ADD COLUMN location_at_terminal text NOT NULL DEFAULT '';
ALTER TABLE containers ADD COLUMN terminal_checked_at timestamptz;

-- Custom field values sent with a tracking request, set when its shipment exists (JSON).
ALTER TABLE tracking_requests ADD COLUMN initial_custom_fields jsonb NOT NULL DEFAULT '[]';

-- The new value a terminal event carries (container.pickup_lfd.changed: the last free day).
ALTER TABLE transport_events ADD COLUMN value text NOT NULL DEFAULT '';
