-- Journeys past the port of discharge: a shipment's inland destination and a container's rail
-- (or truck, or barge) leg there, each as JSON (boxwatch.Destination, boxwatch.ContainerInland).
ALTER TABLE shipments ADD COLUMN destination TEXT NOT NULL DEFAULT 'null';
ALTER TABLE containers ADD COLUMN inland TEXT NOT NULL DEFAULT '{}';
