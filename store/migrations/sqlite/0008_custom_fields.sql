-- Custom fields: an account's definitions (one API slug per entity type), the options of enum
-- definitions, and the values set on shipments, containers and tracking requests (one per
-- definition and resource). Values are JSON.
CREATE TABLE custom_field_definitions (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    entity_type    TEXT NOT NULL,
    api_slug       TEXT NOT NULL,
    display_name   TEXT NOT NULL,
    data_type      TEXT NOT NULL,
    reference_type TEXT NOT NULL DEFAULT '',
    validation     TEXT NOT NULL DEFAULT 'null',
    default_format TEXT NOT NULL DEFAULT '',
    default_value  TEXT NOT NULL DEFAULT 'null',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    UNIQUE (account_id, entity_type, api_slug)
) STRICT;

CREATE INDEX custom_field_definitions_account_created ON custom_field_definitions (account_id, created_at DESC, id DESC);

CREATE TABLE custom_field_options (
    id            TEXT PRIMARY KEY,
    account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    definition_id TEXT NOT NULL REFERENCES custom_field_definitions (id) ON DELETE CASCADE,
    label         TEXT NOT NULL,
    value         TEXT NOT NULL,
    position      INTEGER,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (definition_id, value)
) STRICT;

CREATE TABLE custom_fields (
    id            TEXT PRIMARY KEY,
    account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    definition_id TEXT NOT NULL REFERENCES custom_field_definitions (id) ON DELETE CASCADE,
    entity_id     TEXT NOT NULL,
    value         TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (definition_id, entity_id)
) STRICT;

CREATE INDEX custom_fields_account_created ON custom_fields (account_id, created_at DESC, id DESC);
CREATE INDEX custom_fields_entity ON custom_fields (entity_id);
