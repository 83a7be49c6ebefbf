-- How many tracking requests, shipments and containers each account has, so that a page of an
-- unfiltered list reads its total instead of counting the account's rows (a million containers
-- made that count the cost of every page: issue 25). Triggers keep the counts in the transaction
-- of every insert and delete, whoever writes (the store, a cascade, an operator's psql), once per
-- statement: a bulk insert updates each account's count once. An account without a row has none.
CREATE TABLE list_counts (
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    kind       text NOT NULL,
    n          bigint NOT NULL,
    PRIMARY KEY (account_id, kind)
);

CREATE FUNCTION boxwatch_list_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- In account order, so that two statements inserting for the same accounts lock their rows
    -- in the same order.
    INSERT INTO list_counts (account_id, kind, n)
        SELECT account_id, TG_TABLE_NAME, count(*) FROM inserted GROUP BY account_id ORDER BY account_id
    ON CONFLICT (account_id, kind) DO UPDATE SET n = list_counts.n + excluded.n;
    RETURN NULL;
END
$$;

CREATE FUNCTION boxwatch_list_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- An update, never an insert: rows deleted with their account leave no count behind.
    UPDATE list_counts SET n = list_counts.n - d.n
    FROM (SELECT account_id, count(*) AS n FROM deleted GROUP BY account_id) d
    WHERE list_counts.account_id = d.account_id AND list_counts.kind = TG_TABLE_NAME;
    RETURN NULL;
END
$$;

CREATE FUNCTION boxwatch_list_count_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM list_counts WHERE kind = TG_TABLE_NAME;
    RETURN NULL;
END
$$;

CREATE TRIGGER tracking_requests_count_insert AFTER INSERT ON tracking_requests
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_list_count_insert();
CREATE TRIGGER tracking_requests_count_delete AFTER DELETE ON tracking_requests
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_list_count_delete();
CREATE TRIGGER tracking_requests_count_truncate AFTER TRUNCATE ON tracking_requests
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_list_count_truncate();
CREATE TRIGGER shipments_count_insert AFTER INSERT ON shipments
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_list_count_insert();
CREATE TRIGGER shipments_count_delete AFTER DELETE ON shipments
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_list_count_delete();
CREATE TRIGGER shipments_count_truncate AFTER TRUNCATE ON shipments
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_list_count_truncate();
CREATE TRIGGER containers_count_insert AFTER INSERT ON containers
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_list_count_insert();
CREATE TRIGGER containers_count_delete AFTER DELETE ON containers
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_list_count_delete();
CREATE TRIGGER containers_count_truncate AFTER TRUNCATE ON containers
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_list_count_truncate();

-- The rows already there, counted in the migration's transaction: CREATE TRIGGER locked each
-- table against writes until it commits, so no write falls between the count and the triggers.
INSERT INTO list_counts (account_id, kind, n)
    SELECT account_id, 'tracking_requests', count(*) FROM tracking_requests GROUP BY account_id
    UNION ALL SELECT account_id, 'shipments', count(*) FROM shipments GROUP BY account_id
    UNION ALL SELECT account_id, 'containers', count(*) FROM containers GROUP BY account_id;
