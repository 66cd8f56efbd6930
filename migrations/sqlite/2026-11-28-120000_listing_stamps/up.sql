-- What wrote each listing row, so that a process's in-memory listing index
-- reads only the rows changed since it last looked (docs/performance.md,
-- "Inventory listing"): on SQLite the organization's listing version of the
-- refresh that wrote it, on PostgreSQL the writing transaction's id.
ALTER TABLE inventory_listing ADD COLUMN listing_stamp BIGINT NOT NULL DEFAULT 0;
CREATE INDEX inventory_listing_stamp_idx ON inventory_listing (organization_id, listing_stamp);
-- Statistics for the new index at once: without them SQLite's planner takes
-- it for every statement that names only the organization, and the listing's
-- pages and counts read the whole organization (docs/performance.md,
-- "Planner statistics").
ANALYZE inventory_listing_stamp_idx;
