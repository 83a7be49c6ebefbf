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
