-- Each listing row keeps its item's JSON, exactly as the API returns the item
-- (rendered by the store with the API's serializer whenever the row is
-- refreshed), so that a page is read and concatenated, not rebuilt.
-- NULL until rendered: rows stored before this migration are rendered by the
-- store right after the migrations run (`equip migrate`, `equip serve`).
ALTER TABLE inventory_listing ADD COLUMN item_json TEXT;

-- A counter per organization, bumped by every refresh of its listing rows (in
-- the same transaction): the store remembers where deep pages start (keyset
-- positions) only for as long as the listing has not changed.
CREATE TABLE inventory_listing_versions (
    organization_id TEXT NOT NULL PRIMARY KEY,
    version BIGINT NOT NULL
);
