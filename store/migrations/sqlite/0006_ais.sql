-- What AIS says of vessels: which MMSI a ship with an IMO number broadcasts as (static reports),
-- the positions of vessels on legs of tracked shipments (the map's past paths), and the last
-- position heard of every vessel.
CREATE TABLE vessel_identities (
    mmsi       TEXT PRIMARY KEY,
    imo        TEXT NOT NULL DEFAULT '',
    name       TEXT NOT NULL DEFAULT '',
    call_sign  TEXT NOT NULL DEFAULT '',
    updated_at INTEGER NOT NULL
) STRICT;

CREATE INDEX vessel_identities_imo ON vessel_identities (imo, updated_at);

-- A report heard by several receivers, or ingested by several replicas, is stored once.
CREATE TABLE vessel_positions (
    mmsi      TEXT NOT NULL,
    at        INTEGER NOT NULL,
    latitude  REAL NOT NULL,
    longitude REAL NOT NULL,
    speed     REAL,
    course    REAL,
    heading   REAL,
    PRIMARY KEY (mmsi, at)
) STRICT, WITHOUT ROWID;

-- Retention deletes by age.
CREATE INDEX vessel_positions_at ON vessel_positions (at);

CREATE TABLE vessel_last_positions (
    mmsi      TEXT PRIMARY KEY,
    at        INTEGER NOT NULL,
    latitude  REAL NOT NULL,
    longitude REAL NOT NULL,
    speed     REAL,
    course    REAL,
    heading   REAL
) STRICT;
