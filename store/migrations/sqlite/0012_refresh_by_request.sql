-- Refreshes ask by the number the customer gave, of the type given: shipments found by booking
-- or container number were refreshed by their bill of lading, which a line need not answer.
UPDATE shipments SET
    reference_type = (SELECT t.request_type FROM tracking_requests t WHERE t.id = shipments.tracking_request_id),
    reference_number = (SELECT t.request_number FROM tracking_requests t WHERE t.id = shipments.tracking_request_id)
    WHERE EXISTS (SELECT 1 FROM tracking_requests t WHERE t.id = shipments.tracking_request_id
        AND (t.request_type <> shipments.reference_type OR t.request_number <> shipments.reference_number));
