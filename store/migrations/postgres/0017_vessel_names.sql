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
