DROP INDEX inventory_items_unlock_idx;
ALTER TABLE return_order_items DROP COLUMN closed_reason;
ALTER TABLE return_order_items DROP COLUMN warehouse_id;
ALTER TABLE return_order_items DROP COLUMN received_at;
ALTER TABLE return_order_items DROP COLUMN itad_requested;
DROP INDEX return_orders_listing_idx;
ALTER TABLE return_orders DROP COLUMN cancelled;
ALTER TABLE return_orders DROP COLUMN updated_at;
ALTER TABLE organizations DROP COLUMN hold_period_days;
