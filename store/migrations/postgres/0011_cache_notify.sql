-- Replicas cache hot single-object reads (store/readcache.go). These triggers tell every replica
-- which cached rows changed, whatever wrote them: each row written sends a short payload
-- "<key kind>:<id>" on the channel boxwatch_cache, delivered when the transaction commits
-- (identical payloads of one transaction are delivered once).

CREATE FUNCTION boxwatch_cache_notify_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_notify('boxwatch_cache', TG_TABLE_NAME || ':' || OLD.id);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM pg_notify('boxwatch_cache', TG_TABLE_NAME || ':' || NEW.id);
    END IF;
    RETURN NULL;
END
$$;

-- A container's row also changes the list of its shipment's containers.
CREATE FUNCTION boxwatch_cache_notify_container() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_notify('boxwatch_cache', 'containers:' || OLD.id);
        PERFORM pg_notify('boxwatch_cache', 'shipment_containers:' || OLD.shipment_id);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM pg_notify('boxwatch_cache', 'containers:' || NEW.id);
        PERFORM pg_notify('boxwatch_cache', 'shipment_containers:' || NEW.shipment_id);
    END IF;
    RETURN NULL;
END
$$;

-- A transport event changes the list of its container's events.
CREATE FUNCTION boxwatch_cache_notify_transport_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_notify('boxwatch_cache', 'container_events:' || OLD.container_id);
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM pg_notify('boxwatch_cache', 'container_events:' || NEW.container_id);
    END IF;
    RETURN NULL;
END
$$;

-- TRUNCATE writes no rows: every replica empties its cache.
CREATE FUNCTION boxwatch_cache_notify_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('boxwatch_cache', 'flush');
    RETURN NULL;
END
$$;

CREATE TRIGGER tracking_requests_cache AFTER INSERT OR UPDATE OR DELETE ON tracking_requests
    FOR EACH ROW EXECUTE FUNCTION boxwatch_cache_notify_row();
CREATE TRIGGER shipments_cache AFTER INSERT OR UPDATE OR DELETE ON shipments
    FOR EACH ROW EXECUTE FUNCTION boxwatch_cache_notify_row();
CREATE TRIGGER containers_cache AFTER INSERT OR UPDATE OR DELETE ON containers
    FOR EACH ROW EXECUTE FUNCTION boxwatch_cache_notify_container();
CREATE TRIGGER transport_events_cache AFTER INSERT OR UPDATE OR DELETE ON transport_events
    FOR EACH ROW EXECUTE FUNCTION boxwatch_cache_notify_transport_event();

CREATE TRIGGER tracking_requests_cache_truncate AFTER TRUNCATE ON tracking_requests
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();
CREATE TRIGGER shipments_cache_truncate AFTER TRUNCATE ON shipments
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();
CREATE TRIGGER containers_cache_truncate AFTER TRUNCATE ON containers
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();
CREATE TRIGGER transport_events_cache_truncate AFTER TRUNCATE ON transport_events
    FOR EACH STATEMENT EXECUTE FUNCTION boxwatch_cache_notify_truncate();
