-- Refreshes ask by the number the customer gave, of the type given: shipments found by booking
-- or container number were refreshed by their bill of lading, which a line need not answer.
UPDATE shipments s SET reference_type = t.request_type, reference_number = t.request_number
    FROM tracking_requests t WHERE t.id = s.tracking_request_id
        AND (t.request_type <> s.reference_type OR t.request_number <> s.reference_number);
