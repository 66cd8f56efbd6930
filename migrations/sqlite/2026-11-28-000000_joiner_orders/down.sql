DROP INDEX inventory_items_available_idx;
DROP TABLE order_lines;
DROP TABLE shipments;
DROP TABLE orders;
DROP TABLE package_items;
ALTER TABLE inventory_levels DROP COLUMN below_minimum;
