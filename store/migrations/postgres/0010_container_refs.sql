-- The account's own reference numbers for a container, set by PATCH /v2/containers.
ALTER TABLE containers ADD COLUMN ref_numbers jsonb NOT NULL DEFAULT '[]';
