DROP INDEX inventory_listing_stamp_idx;
ALTER TABLE inventory_listing DROP COLUMN listing_stamp;
