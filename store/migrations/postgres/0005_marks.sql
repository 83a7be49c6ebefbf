-- A small durable memory for components that must agree across restarts and replicas (the
-- carrier simulator keeps its journeys' anchors and attempt counts here): first sightings and
-- counters, by key. It replaces sim_state: the store keeps no table named for one of its users.
CREATE TABLE first_seen (
    key text PRIMARY KEY,
    at  timestamptz NOT NULL
);

CREATE TABLE counters (
    key   text PRIMARY KEY,
    value bigint NOT NULL
);

INSERT INTO first_seen (key, at) SELECT key, first_seen FROM sim_state WHERE key NOT LIKE 'attempts/%';
INSERT INTO counters (key, value) SELECT substr(key, 10), attempts FROM sim_state WHERE key LIKE 'attempts/%';
DROP TABLE sim_state;
