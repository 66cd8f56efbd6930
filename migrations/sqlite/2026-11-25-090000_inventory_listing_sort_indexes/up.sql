-- One index per sort key the listing offers and no index served yet: a deep
-- page in that order walks the index (skipping OFFSET entries) instead of
-- sorting every item of the organization (docs/performance.md).
CREATE INDEX inventory_listing_sort_status_idx ON inventory_listing (organization_id, deploy_status, item_id);
CREATE INDEX inventory_listing_sort_reason_idx ON inventory_listing (organization_id, deploy_reason, item_id);
CREATE INDEX inventory_listing_sort_condition_idx ON inventory_listing (organization_id, condition_rank, item_id);
CREATE INDEX inventory_listing_sort_assignee_idx ON inventory_listing (organization_id, assignee, item_id);
CREATE INDEX inventory_listing_sort_renewal_idx ON inventory_listing (organization_id, renewal_date, item_id);
CREATE INDEX inventory_listing_sort_supplied_idx ON inventory_listing (organization_id, supplied_by, item_id);
-- Statistics for the new indexes at once: without them SQLite's planner takes
-- an index it knows nothing about over the ones it has figures for.
ANALYZE inventory_listing;
