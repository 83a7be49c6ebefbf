-- Terminals as boxwatch's terminal list names them (data/terminals): FIRMS code, nickname and
-- address; listed ones keep the list's name whatever carriers call them.
ALTER TABLE terminals ADD COLUMN firms_code TEXT NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN nickname TEXT NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN street TEXT NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN city TEXT NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN state TEXT NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN state_abbr TEXT NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN zip TEXT NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN country TEXT NOT NULL DEFAULT '';
ALTER TABLE terminals ADD COLUMN listed INTEGER NOT NULL DEFAULT 0;
CREATE INDEX terminals_firms ON terminals (firms_code) WHERE firms_code <> '';

-- What a container's terminal says, beyond migration 0009's: the two last free days, the pickup
-- appointment, the terminal the box is actually at, its gate records, and the terminal checks'
-- own schedule and last failure.
ALTER TABLE containers ADD COLUMN pickup_lfd_terminal INTEGER;
ALTER TABLE containers ADD COLUMN pickup_lfd_line INTEGER;
ALTER TABLE containers ADD COLUMN pickup_appointment_at INTEGER;
ALTER TABLE containers ADD COLUMN pod_terminal_id TEXT NOT NULL DEFAULT '';
ALTER TABLE containers ADD COLUMN terminal_full_out_at INTEGER;
ALTER TABLE containers ADD COLUMN terminal_empty_in_at INTEGER;
ALTER TABLE containers ADD COLUMN terminal_next_check_at INTEGER;
ALTER TABLE containers ADD COLUMN terminal_failed_reason TEXT NOT NULL DEFAULT '';
CREATE INDEX containers_terminal_due ON containers (terminal_next_check_at) WHERE terminal_next_check_at IS NOT NULL;
