-- The account's own reference numbers for a container (a JSON array), set by PATCH /v2/containers.
ALTER TABLE containers ADD COLUMN ref_numbers TEXT NOT NULL DEFAULT '[]';
