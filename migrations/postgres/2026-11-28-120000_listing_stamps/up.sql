-- What wrote each listing row, so that a process's in-memory listing index
-- reads only the rows changed since it last looked (docs/performance.md,
-- "Inventory listing"): on SQLite the organization's listing version of the
-- refresh that wrote it, on PostgreSQL the writing transaction's id.
ALTER TABLE inventory_listing ADD COLUMN listing_stamp BIGINT NOT NULL DEFAULT 0;
CREATE INDEX inventory_listing_stamp_idx ON inventory_listing (organization_id, listing_stamp);
-- Statistics for the new column and index at once (autovacuum would get to
-- them later).
ANALYZE inventory_listing;
