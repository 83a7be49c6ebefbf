-- Replicas cache vessels and webhook notifications as they cache the tracked objects (0011, 0017,
-- 0021): a vessel's row, the MMSI static reports give each IMO number and each MMSI's last
-- position; a notification's row and the event it reports. These tables are written all the time,
-- by AIS ingest and by the delivery drain, so each trigger notifies only what can change an answer:
--
-- - vessel_last_positions and vessel_identities take batches of up to 256 rows a statement: one
--   trigger a statement sends the keys of all its rows at once, space-separated, in payloads cut
--   under NOTIFY's 8,000 bytes.
-- - A notification's row changes at every claim and renewal, which change no column a read
--   answers: its trigger fires only when one of those does (WHEN), and not for new rows, which no
--   replica can hold. Deletes (retention, a webhook deleted) send their keys by statement.
-- - A vessel's row is upserted at every carrier update with a new updated_at: it notifies only
--   when another column changes.
-- - An event never changes once logged: only an update by hand or a delete notifies.

-- The keys of the rows a statement wrote: TG_ARGV[0] is the key prefix, TG_ARGV[1] the column
-- naming it. The trigger names its transition tables born (new rows) and gone (old rows).
CREATE OR REPLACE FUNCTION boxwatch_cache_notify_keys() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    rows text;
    payload text;
BEGIN
    rows := CASE TG_OP
        WHEN 'INSERT' THEN format('SELECT %I AS v FROM born', TG_ARGV[1])
        WHEN 'DELETE' THEN format('SELECT %I AS v FROM gone', TG_ARGV[1])
        ELSE format('SELECT %I AS v FROM born UNION SELECT %I FROM gone', TG_ARGV[1], TG_ARGV[1])
    END;
    FOR payload IN EXECUTE format(
        'SELECT string_agg(k, '' '') FROM (SELECT k, sum(length(k) + 1) OVER (ORDER BY k) / 7000 AS part
            FROM (SELECT DISTINCT %L || v AS k FROM (%s) r) d) p GROUP BY part', TG_ARGV[0], rows)
    LOOP
        PERFORM pg_notify('boxwatch_cache', payload);
    END LOOP;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER vessel_last_positions_cache_insert AFTER INSERT ON vessel_last_positions
    REFERENCING NEW TABLE AS born FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_keys('last_positions:', 'mmsi');
CREATE OR REPLACE TRIGGER vessel_last_positions_cache_update AFTER UPDATE ON vessel_last_positions
    REFERENCING OLD TABLE AS gone NEW TABLE AS born FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_keys('last_positions:', 'mmsi');
CREATE OR REPLACE TRIGGER vessel_last_positions_cache_delete AFTER DELETE ON vessel_last_positions
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_keys('last_positions:', 'mmsi');

CREATE OR REPLACE TRIGGER vessel_identities_cache_insert AFTER INSERT ON vessel_identities
    REFERENCING NEW TABLE AS born FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_keys('imo_mmsi:', 'imo');
CREATE OR REPLACE TRIGGER vessel_identities_cache_update AFTER UPDATE ON vessel_identities
    REFERENCING OLD TABLE AS gone NEW TABLE AS born FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_keys('imo_mmsi:', 'imo');
CREATE OR REPLACE TRIGGER vessel_identities_cache_delete AFTER DELETE ON vessel_identities
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_keys('imo_mmsi:', 'imo');

CREATE OR REPLACE TRIGGER vessels_cache_update AFTER UPDATE ON vessels FOR EACH ROW
    WHEN ((OLD.id, OLD.imo, OLD.mmsi, OLD.name, OLD.call_sign, OLD.flag) IS DISTINCT FROM
        (NEW.id, NEW.imo, NEW.mmsi, NEW.name, NEW.call_sign, NEW.flag))
    EXECUTE FUNCTION boxwatch_cache_notify_row();
CREATE OR REPLACE TRIGGER vessels_cache_delete AFTER DELETE ON vessels FOR EACH ROW EXECUTE FUNCTION boxwatch_cache_notify_row();

-- Every column a notification's read answers (all but the claim's and the subject), the ones a
-- delivery changes first.
CREATE OR REPLACE TRIGGER webhook_notifications_cache_update AFTER UPDATE ON webhook_notifications FOR EACH ROW
    WHEN ((OLD.delivery_status, OLD.attempts, OLD.next_attempt_at, OLD.updated_at, OLD.id, OLD.account_id, OLD.webhook_id,
        OLD.event_id, OLD.event, OLD.created_at, OLD.body) IS DISTINCT FROM
        (NEW.delivery_status, NEW.attempts, NEW.next_attempt_at, NEW.updated_at, NEW.id, NEW.account_id, NEW.webhook_id,
        NEW.event_id, NEW.event, NEW.created_at, NEW.body))
    EXECUTE FUNCTION boxwatch_cache_notify_row();
CREATE OR REPLACE TRIGGER webhook_notifications_cache_delete AFTER DELETE ON webhook_notifications
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_keys('webhook_notifications:', 'id');

CREATE OR REPLACE TRIGGER events_cache_update AFTER UPDATE ON events FOR EACH ROW EXECUTE FUNCTION boxwatch_cache_notify_row();
CREATE OR REPLACE TRIGGER events_cache_delete AFTER DELETE ON events
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_keys('events:', 'id');

CREATE OR REPLACE TRIGGER vessel_last_positions_cache_truncate AFTER TRUNCATE ON vessel_last_positions
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();
CREATE OR REPLACE TRIGGER vessel_identities_cache_truncate AFTER TRUNCATE ON vessel_identities
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();
CREATE OR REPLACE TRIGGER vessels_cache_truncate AFTER TRUNCATE ON vessels
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();
CREATE OR REPLACE TRIGGER webhook_notifications_cache_truncate AFTER TRUNCATE ON webhook_notifications
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();
CREATE OR REPLACE TRIGGER events_cache_truncate AFTER TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();
