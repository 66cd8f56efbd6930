-- The listing version that last wrote each listing row (the organization's
-- inventory_listing_versions.version of the refresh that wrote it), so that a
-- process's in-memory listing index reads only the rows changed since the
-- version it holds (docs/performance.md, "Inventory listing").
ALTER TABLE inventory_listing ADD COLUMN listing_version BIGINT NOT NULL DEFAULT 0;
CREATE INDEX inventory_listing_version_idx ON inventory_listing (organization_id, listing_version);
-- Statistics for the new column and index at once (autovacuum would get to
-- them later).
ANALYZE inventory_listing;
