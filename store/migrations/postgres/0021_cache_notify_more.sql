-- Replicas cache webhooks, parties and custom field values by id, and the list of each custom
-- field definition's options, as they cache the tracked objects (0011): every row written names
-- its keys on boxwatch_cache. Webhook notifications are left out: their rows change on every
-- delivery attempt. (OR REPLACE: running this again changes nothing.)

-- An option names itself and the list of its definition's options.
CREATE OR REPLACE FUNCTION boxwatch_cache_notify_option() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_notify('boxwatch_cache', 'custom_field_options:' || OLD.id);
        PERFORM pg_notify('boxwatch_cache', 'definition_options:' || OLD.definition_id);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM pg_notify('boxwatch_cache', 'custom_field_options:' || NEW.id);
        PERFORM pg_notify('boxwatch_cache', 'definition_options:' || NEW.definition_id);
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER custom_field_options_cache AFTER INSERT OR UPDATE OR DELETE ON custom_field_options
    FOR EACH ROW EXECUTE FUNCTION boxwatch_cache_notify_option();

CREATE OR REPLACE TRIGGER webhooks_cache AFTER INSERT OR UPDATE OR DELETE ON webhooks
    FOR EACH ROW EXECUTE FUNCTION boxwatch_cache_notify_row();
CREATE OR REPLACE TRIGGER parties_cache AFTER INSERT OR UPDATE OR DELETE ON parties
    FOR EACH ROW EXECUTE FUNCTION boxwatch_cache_notify_row();
CREATE OR REPLACE TRIGGER custom_fields_cache AFTER INSERT OR UPDATE OR DELETE ON custom_fields
    FOR EACH ROW EXECUTE FUNCTION boxwatch_cache_notify_row();

CREATE OR REPLACE TRIGGER webhooks_cache_truncate AFTER TRUNCATE ON webhooks
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();
CREATE OR REPLACE TRIGGER parties_cache_truncate AFTER TRUNCATE ON parties
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();
CREATE OR REPLACE TRIGGER custom_fields_cache_truncate AFTER TRUNCATE ON custom_fields
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();
