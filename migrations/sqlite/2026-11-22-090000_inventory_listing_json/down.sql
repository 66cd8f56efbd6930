DROP TABLE inventory_listing_versions;
ALTER TABLE inventory_listing DROP COLUMN item_json;
