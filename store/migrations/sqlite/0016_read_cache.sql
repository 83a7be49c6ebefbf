-- The names the carrier's snapshot gives the vessels of its calls, by IMO number (the first name
-- each is given), kept beside the snapshot so that lists of shipments need not read the whole of
-- it. The store writes both together; existing rows get theirs from their snapshot here.
ALTER TABLE shipments ADD COLUMN vessel_names TEXT NOT NULL DEFAULT '{}';

UPDATE shipments SET vessel_names = (
    SELECT json_group_object(imo, name) FROM (
        -- SQLite takes the bare columns of a min() aggregate from the row holding the minimum:
        -- each vessel's first named call.
        SELECT json_extract(c.value, '$.Vessel.IMO') AS imo, json_extract(c.value, '$.Vessel.Name') AS name, min(c.key)
        FROM json_each(shipments.snapshot, '$.Calls') AS c
        WHERE json_type(c.value, '$.Vessel') = 'object' AND COALESCE(json_extract(c.value, '$.Vessel.Name'), '') <> ''
            AND json_extract(c.value, '$.Vessel.IMO') IS NOT NULL
        GROUP BY imo
    )
)
WHERE json_type(snapshot, '$.Calls') = 'array' AND EXISTS (
    SELECT 1 FROM json_each(shipments.snapshot, '$.Calls') AS c
    WHERE json_type(c.value, '$.Vessel') = 'object' AND COALESCE(json_extract(c.value, '$.Vessel.Name'), '') <> '');
