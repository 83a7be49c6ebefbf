-- Terminals as boxwatch's terminal list names them (data/terminals): FIRMS code, nickname and
-- address; listed ones keep the list's name whatever carriers call them.
ALTER TABLE terminals ADD COLUMN firms_code text NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN nickname text NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN street text NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN city text NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN state text NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN state_abbr text NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN zip text NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN country text NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN listed boolean NOT NULL DEFAULT false;
CREATE INDEX terminals_firms ON terminals (firms_code) WHERE firms_code <> '';

-- What a container's terminal says, beyond migration 0009's: the two last free days, the pickup
-- appointment, the terminal the box is actually at, its gate records, and the terminal checks'
-- own schedule and last failure.
ALTER TABLE containers ADD COLUMN pickup_lfd_terminal timestamptz;
ALTER TABLE containers ADD COLUMN pickup_lfd_line timestamptz;
ALTER TABLE containers ADD COLUMN pickup_appointment_at timestamptz;
ALTER TABLE containers ADD COLUMN pod_terminal_id text NOT NULL DEFAULT '';
ALTER TABLE containers ADD COLUMN terminal_full_out_at timestamptz;
ALTER TABLE containers ADD COLUMN terminal_empty_in_at timestamptz;
ALTER TABLE containers ADD COLUMN terminal_next_check_at timestamptz;
ALTER TABLE containers ADD COLUMN terminal_failed_reason text NOT NULL DEFAULT '';
CREATE INDEX containers_terminal_due ON containers (terminal_next_check_at) WHERE terminal_next_check_at IS NOT NULL;
