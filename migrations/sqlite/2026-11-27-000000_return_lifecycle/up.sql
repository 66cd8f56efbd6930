-- The leaver's lifecycle (docs/returns.md): an organization's hold period;
-- a return order's last change and whether it was cancelled; each line's
-- ITAD request, receipt (when, at which warehouse) and write-off reason.
-- A line is closed when received_at or closed_reason is set. Keep
-- equivalent in both backends (the storage suite's schema test compares
-- them).
ALTER TABLE organizations ADD COLUMN hold_period_days INTEGER NOT NULL DEFAULT 30
    CHECK (hold_period_days BETWEEN 0 AND 3650);

ALTER TABLE return_orders ADD COLUMN updated_at TEXT NOT NULL DEFAULT '1970-01-01 00:00:00';
UPDATE return_orders SET updated_at = created_at;
ALTER TABLE return_orders ADD COLUMN cancelled BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX return_orders_listing_idx ON return_orders (organization_id, created_at DESC, id DESC);

ALTER TABLE return_order_items ADD COLUMN itad_requested BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE return_order_items ADD COLUMN received_at TEXT;
ALTER TABLE return_order_items ADD COLUMN warehouse_id TEXT REFERENCES warehouses (id);
ALTER TABLE return_order_items ADD COLUMN closed_reason TEXT;

-- The hold-release pass finds due holds without reading every item.
CREATE INDEX inventory_items_unlock_idx ON inventory_items (unlock_date) WHERE unlock_date IS NOT NULL;
