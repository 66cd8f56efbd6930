-- The listing version that last wrote each listing row (the organization's
-- inventory_listing_versions.version of the refresh that wrote it), so that a
-- process's in-memory listing index reads only the rows changed since the
-- version it holds (docs/performance.md, "Inventory listing").
ALTER TABLE inventory_listing ADD COLUMN listing_version BIGINT NOT NULL DEFAULT 0;
CREATE INDEX inventory_listing_version_idx ON inventory_listing (organization_id, listing_version);
-- Statistics for the new index at once: without them SQLite's planner takes
-- it for every statement that names only the organization, and the listing's
-- pages and counts read the whole organization (docs/performance.md,
-- "Planner statistics").
ANALYZE inventory_listing_version_idx;
