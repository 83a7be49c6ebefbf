-- The names the carrier's snapshot gives the vessels of its calls, by IMO number (the first name
-- each is given), kept beside the snapshot so that lists of shipments need not read the whole of
-- it. The store writes both together; existing rows get theirs from their snapshot here.
ALTER TABLE shipments ADD COLUMN vessel_names jsonb NOT NULL DEFAULT '{}';

UPDATE shipments s SET vessel_names = names.obj
FROM (
    SELECT id, jsonb_object_agg(imo, name) AS obj
    FROM (
        SELECT DISTINCT ON (sh.id, c.value->'Vessel'->>'IMO') sh.id, c.value->'Vessel'->>'IMO' AS imo,
            c.value->'Vessel'->>'Name' AS name
        FROM shipments sh, jsonb_array_elements(
            CASE jsonb_typeof(sh.snapshot->'Calls') WHEN 'array' THEN sh.snapshot->'Calls' ELSE '[]' END) WITH ORDINALITY AS c(value, n)
        WHERE jsonb_typeof(c.value->'Vessel') = 'object' AND COALESCE(c.value->'Vessel'->>'Name', '') <> ''
        ORDER BY sh.id, c.value->'Vessel'->>'IMO', c.n
    ) firsts
    WHERE imo IS NOT NULL
    GROUP BY id
) names
WHERE s.id = names.id;

-- Replicas cache terminals, by id and as the list of each port's, as they cache the tracked
-- objects (0011): every terminal written names both keys on boxwatch_cache. (OR REPLACE: running
-- this again changes nothing.)
CREATE OR REPLACE FUNCTION boxwatch_cache_notify_terminal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_notify('boxwatch_cache', 'terminals:' || OLD.id);
        PERFORM pg_notify('boxwatch_cache', 'port_terminals:' || OLD.locode);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM pg_notify('boxwatch_cache', 'terminals:' || NEW.id);
        PERFORM pg_notify('boxwatch_cache', 'port_terminals:' || NEW.locode);
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER terminals_cache AFTER INSERT OR UPDATE OR DELETE ON terminals
    FOR EACH ROW EXECUTE FUNCTION boxwatch_cache_notify_terminal();
CREATE OR REPLACE TRIGGER terminals_cache_truncate AFTER TRUNCATE ON terminals
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();

-- And custom field definitions and options by id (an option deleted with its definition fires
-- its own row's trigger).
CREATE OR REPLACE TRIGGER custom_field_definitions_cache AFTER INSERT OR UPDATE OR DELETE ON custom_field_definitions
    FOR EACH ROW EXECUTE FUNCTION boxwatch_cache_notify_row();
CREATE OR REPLACE TRIGGER custom_field_options_cache AFTER INSERT OR UPDATE OR DELETE ON custom_field_options
    FOR EACH ROW EXECUTE FUNCTION boxwatch_cache_notify_row();
CREATE OR REPLACE TRIGGER custom_field_definitions_cache_truncate AFTER TRUNCATE ON custom_field_definitions
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();
CREATE OR REPLACE TRIGGER custom_field_options_cache_truncate AFTER TRUNCATE ON custom_field_options
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();
