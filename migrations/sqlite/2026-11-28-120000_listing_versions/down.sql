DROP INDEX inventory_listing_version_idx;
ALTER TABLE inventory_listing DROP COLUMN listing_version;
