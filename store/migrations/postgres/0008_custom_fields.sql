-- Custom fields: an account's definitions (one API slug per entity type), the options of enum
-- definitions, and the values set on shipments, containers and tracking requests (one per
-- definition and resource). Values are JSON.
CREATE TABLE custom_field_definitions (
    id             uuid PRIMARY KEY,
    account_id     uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    entity_type    text NOT NULL,
    api_slug       text NOT NULL,
    display_name   text NOT NULL,
    data_type      text NOT NULL,
    reference_type text NOT NULL DEFAULT '',
    validation     jsonb NOT NULL DEFAULT 'null',
    default_format text NOT NULL DEFAULT '',
    default_value  jsonb NOT NULL DEFAULT 'null',
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL,
    UNIQUE (account_id, entity_type, api_slug)
);

CREATE INDEX custom_field_definitions_account_created ON custom_field_definitions (account_id, created_at DESC, id DESC);

CREATE TABLE custom_field_options (
    id            uuid PRIMARY KEY,
    account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    definition_id uuid NOT NULL REFERENCES custom_field_definitions (id) ON DELETE CASCADE,
    label         text NOT NULL,
    value         text NOT NULL,
    position      integer,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    UNIQUE (definition_id, value)
);

CREATE TABLE custom_fields (
    id            uuid PRIMARY KEY,
    account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    definition_id uuid NOT NULL REFERENCES custom_field_definitions (id) ON DELETE CASCADE,
    entity_id     uuid NOT NULL,
    value         jsonb NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    UNIQUE (definition_id, entity_id)
);

CREATE INDEX custom_fields_account_created ON custom_fields (account_id, created_at DESC, id DESC);
CREATE INDEX custom_fields_entity ON custom_fields (entity_id);
