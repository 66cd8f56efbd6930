-- One index per sort key the listing offers and no index served yet: a deep
-- page in that order walks the index (skipping OFFSET entries) instead of
-- sorting every item of the organization (docs/performance.md). Text columns
-- in "C", as the listing orders them.
CREATE INDEX inventory_listing_sort_status_idx ON inventory_listing (organization_id, deploy_status COLLATE "C", item_id COLLATE "C");
CREATE INDEX inventory_listing_sort_reason_idx ON inventory_listing (organization_id, deploy_reason COLLATE "C", item_id COLLATE "C");
CREATE INDEX inventory_listing_sort_condition_idx ON inventory_listing (organization_id, condition_rank, item_id COLLATE "C");
CREATE INDEX inventory_listing_sort_assignee_idx ON inventory_listing (organization_id, assignee COLLATE "C", item_id COLLATE "C");
CREATE INDEX inventory_listing_sort_renewal_idx ON inventory_listing (organization_id, renewal_date COLLATE "C", item_id COLLATE "C");
CREATE INDEX inventory_listing_sort_supplied_idx ON inventory_listing (organization_id, supplied_by COLLATE "C", item_id COLLATE "C");
-- Statistics for the new indexes at once: without them SQLite's planner takes
-- an index it knows nothing about over the ones it has figures for.
ANALYZE inventory_listing;
