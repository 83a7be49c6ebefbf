-- What AIS says of vessels: which MMSI a ship with an IMO number broadcasts as (static reports),
-- the positions of vessels on legs of tracked shipments (the map's past paths), and the last
-- position heard of every vessel.
CREATE TABLE vessel_identities (
    mmsi       text PRIMARY KEY,
    imo        text NOT NULL DEFAULT '',
    name       text NOT NULL DEFAULT '',
    call_sign  text NOT NULL DEFAULT '',
    updated_at timestamptz NOT NULL
);

CREATE INDEX vessel_identities_imo ON vessel_identities (imo, updated_at);

-- A report heard by several receivers, or ingested by several replicas, is stored once.
CREATE TABLE vessel_positions (
    mmsi      text NOT NULL,
    at        timestamptz NOT NULL,
    latitude  double precision NOT NULL,
    longitude double precision NOT NULL,
    speed     double precision,
    course    double precision,
    heading   double precision,
    PRIMARY KEY (mmsi, at)
);

-- Retention deletes by age.
CREATE INDEX vessel_positions_at ON vessel_positions (at);

CREATE TABLE vessel_last_positions (
    mmsi      text PRIMARY KEY,
    at        timestamptz NOT NULL,
    latitude  double precision NOT NULL,
    longitude double precision NOT NULL,
    speed     double precision,
    course    double precision,
    heading   double precision
);
