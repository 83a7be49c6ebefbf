-- Parties: the customers an account tracks shipments for. A tracking request may name its
-- customer; its shipment keeps the customer and a copy of the name, which a rename updates.
CREATE TABLE parties (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    company_name TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL
) STRICT;

CREATE INDEX parties_account_created ON parties (account_id, created_at DESC, id DESC);

ALTER TABLE tracking_requests ADD COLUMN customer_id TEXT REFERENCES parties (id);
ALTER TABLE shipments ADD COLUMN customer_id TEXT REFERENCES parties (id);
ALTER TABLE shipments ADD COLUMN customer_name TEXT NOT NULL DEFAULT '';
CREATE INDEX shipments_customer ON shipments (customer_id) WHERE customer_id IS NOT NULL;
