-- A status filter in the default order (newest first): the page walks this
-- index alone instead of the creation-time index plus every row's status.
CREATE INDEX inventory_listing_status_created_idx
    ON inventory_listing (organization_id, deploy_status, created_at, item_id COLLATE "C");

-- Rows whose item JSON is not rendered yet: the store looks for them after
-- every migration run, and finds none at once instead of reading every row.
CREATE INDEX inventory_listing_unrendered_idx ON inventory_listing (item_id) WHERE item_json IS NULL;
