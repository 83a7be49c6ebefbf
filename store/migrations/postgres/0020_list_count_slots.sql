-- An account's count of each table in as many rows as it has writers at once (issue 25). With one
-- row per account and table, every transaction inserting for the account updated that row and
-- held it until commit: an account's concurrent creates ran one after the other. Now a trigger
-- adds its change to any row of the account's that no other transaction holds (SKIP LOCKED), or,
-- when every row is held, to a new one: a writer never waits for another. A count is the sum of
-- its rows, read in the list page's snapshot like the one row before; the retention job folds
-- each account's rows back into one (FoldListCounts), so an account has as many rows as it had
-- writers at once since the last fold. SQLite has one writer and keeps one row.
--
-- The rows already there become slot 0 of their count: ALTER TABLE holds list_counts until the
-- migration commits, so no trigger changes a count between the old design and the new.
ALTER TABLE list_counts ADD COLUMN slot bigint NOT NULL DEFAULT 0;
ALTER TABLE list_counts ALTER COLUMN slot DROP DEFAULT;
ALTER TABLE list_counts DROP CONSTRAINT list_counts_pkey;
ALTER TABLE list_counts ADD PRIMARY KEY (account_id, kind, slot);

-- New rows' slots: a sequence never waits and never hands out a number twice.
CREATE SEQUENCE list_count_slots;

CREATE FUNCTION boxwatch_list_count_add(account uuid, k text, delta bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    s bigint;
BEGIN
    SELECT slot INTO s FROM list_counts WHERE account_id = account AND kind = k ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED;
    IF FOUND THEN
        UPDATE list_counts SET n = n + delta WHERE account_id = account AND kind = k AND slot = s;
        RETURN;
    END IF;
    -- Not for an account being deleted (a cascade's delete): its rows go with it.
    INSERT INTO list_counts (account_id, kind, slot, n)
        SELECT account, k, nextval('list_count_slots'), delta WHERE EXISTS (SELECT 1 FROM accounts WHERE id = account);
END
$$;

CREATE OR REPLACE FUNCTION boxwatch_list_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT account_id, count(*) AS n FROM inserted GROUP BY account_id LOOP
        PERFORM boxwatch_list_count_add(r.account_id, TG_TABLE_NAME, r.n);
    END LOOP;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION boxwatch_list_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT account_id, count(*) AS n FROM deleted GROUP BY account_id LOOP
        PERFORM boxwatch_list_count_add(r.account_id, TG_TABLE_NAME, -r.n);
    END LOOP;
    RETURN NULL;
END
$$;
