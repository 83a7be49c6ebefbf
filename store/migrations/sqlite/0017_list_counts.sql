-- How many tracking requests, shipments and containers each account has, so that a page of an
-- unfiltered list reads its total instead of counting the account's rows (a million containers
-- made that count the cost of every page: issue 25). Triggers keep the counts in the transaction
-- of every insert and delete, whoever writes (the store, a cascade, the sqlite3 shell). An account
-- without a row has none. Deletes only update: rows deleted with their account leave no count.
CREATE TABLE list_counts (
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    n          INTEGER NOT NULL,
    PRIMARY KEY (account_id, kind)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER tracking_requests_count_insert AFTER INSERT ON tracking_requests BEGIN
    INSERT INTO list_counts (account_id, kind, n) VALUES (NEW.account_id, 'tracking_requests', 1)
    ON CONFLICT (account_id, kind) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER tracking_requests_count_delete AFTER DELETE ON tracking_requests BEGIN
    UPDATE list_counts SET n = n - 1 WHERE account_id = OLD.account_id AND kind = 'tracking_requests';
END;
CREATE TRIGGER shipments_count_insert AFTER INSERT ON shipments BEGIN
    INSERT INTO list_counts (account_id, kind, n) VALUES (NEW.account_id, 'shipments', 1)
    ON CONFLICT (account_id, kind) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER shipments_count_delete AFTER DELETE ON shipments BEGIN
    UPDATE list_counts SET n = n - 1 WHERE account_id = OLD.account_id AND kind = 'shipments';
END;
CREATE TRIGGER containers_count_insert AFTER INSERT ON containers BEGIN
    INSERT INTO list_counts (account_id, kind, n) VALUES (NEW.account_id, 'containers', 1)
    ON CONFLICT (account_id, kind) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER containers_count_delete AFTER DELETE ON containers BEGIN
    UPDATE list_counts SET n = n - 1 WHERE account_id = OLD.account_id AND kind = 'containers';
END;

-- The rows already there (the migration holds the write lock: no write falls in between).
INSERT INTO list_counts (account_id, kind, n)
    SELECT account_id, 'tracking_requests', count(*) FROM tracking_requests GROUP BY account_id
    UNION ALL SELECT account_id, 'shipments', count(*) FROM shipments GROUP BY account_id
    UNION ALL SELECT account_id, 'containers', count(*) FROM containers GROUP BY account_id;
