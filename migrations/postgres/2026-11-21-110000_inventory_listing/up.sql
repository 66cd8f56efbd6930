-- The inventory listing's read model: one narrow row per item holding every
-- filter and sort key (lowercased where matching is case-insensitive; '' for
-- "none", so that both backends order absent values first ascending and last
-- descending), kept in step with inventory_items by the store on every write.
-- Pages are cut here (over ids only) and the page's full rows are loaded after.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE inventory_listing (
    item_id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    deploy_status TEXT NOT NULL,
    deploy_reason TEXT NOT NULL,
    condition_rank INTEGER NOT NULL,
    serial_number TEXT NOT NULL,
    sku_id TEXT NOT NULL,
    product TEXT NOT NULL,
    category TEXT NOT NULL,
    vendor_sku TEXT NOT NULL,
    assignee_type TEXT NOT NULL,
    assignee_id TEXT NOT NULL,
    assignee TEXT NOT NULL,
    renewal_date TEXT NOT NULL,
    supplied_by TEXT NOT NULL,
    search_text TEXT NOT NULL,
    CONSTRAINT inventory_listing_item_fkey FOREIGN KEY (organization_id, item_id)
        REFERENCES inventory_items (organization_id, id) ON DELETE CASCADE
);
-- COLLATE "C": byte order, the same as SQLite's, so both backends page alike.
CREATE INDEX inventory_listing_created_idx ON inventory_listing (organization_id, created_at, item_id COLLATE "C");
CREATE INDEX inventory_listing_updated_idx ON inventory_listing (organization_id, updated_at, item_id COLLATE "C");
CREATE INDEX inventory_listing_product_idx ON inventory_listing (organization_id, product COLLATE "C", item_id COLLATE "C");
CREATE INDEX inventory_listing_category_idx ON inventory_listing (organization_id, category COLLATE "C", product COLLATE "C", item_id COLLATE "C");
CREATE INDEX inventory_listing_sku_idx ON inventory_listing (organization_id, sku_id COLLATE "C", item_id COLLATE "C");
CREATE INDEX inventory_listing_serial_idx ON inventory_listing (organization_id, serial_number COLLATE "C", item_id COLLATE "C");
CREATE INDEX inventory_listing_vendor_sku_idx ON inventory_listing (organization_id, vendor_sku);
CREATE INDEX inventory_listing_assignee_idx ON inventory_listing (organization_id, assignee_id, created_at);
-- Substring search: a trigram index over search_text.
CREATE INDEX inventory_listing_search_idx ON inventory_listing USING gin (search_text gin_trgm_ops);

-- Item counts per (organization, status, category), maintained by statement
-- triggers, so that totalRecords of the common listings is a sum over a few
-- rows instead of a count over up to millions.
CREATE TABLE inventory_counts (
    organization_id TEXT NOT NULL,
    deploy_status TEXT NOT NULL,
    category TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (organization_id, deploy_status, category)
);

CREATE FUNCTION inventory_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO inventory_counts (organization_id, deploy_status, category, n)
        SELECT organization_id, deploy_status, category, COUNT(*) FROM new_rows GROUP BY 1, 2, 3
        ON CONFLICT (organization_id, deploy_status, category)
        DO UPDATE SET n = inventory_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE FUNCTION inventory_counts_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE inventory_counts c SET n = c.n - o.k
        FROM (SELECT organization_id, deploy_status, category, COUNT(*) AS k
              FROM old_rows GROUP BY 1, 2, 3) o
        WHERE c.organization_id = o.organization_id AND c.deploy_status = o.deploy_status
          AND c.category = o.category;
    RETURN NULL;
END $$;

CREATE FUNCTION inventory_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE inventory_counts c SET n = c.n - o.k
        FROM (SELECT organization_id, deploy_status, category, COUNT(*) AS k
              FROM old_rows GROUP BY 1, 2, 3) o
        WHERE c.organization_id = o.organization_id AND c.deploy_status = o.deploy_status
          AND c.category = o.category;
    INSERT INTO inventory_counts (organization_id, deploy_status, category, n)
        SELECT organization_id, deploy_status, category, COUNT(*) FROM new_rows GROUP BY 1, 2, 3
        ON CONFLICT (organization_id, deploy_status, category)
        DO UPDATE SET n = inventory_counts.n + EXCLUDED.n;
    RETURN NULL;
END $$;

CREATE TRIGGER inventory_listing_count_insert AFTER INSERT ON inventory_listing
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION inventory_counts_add();
CREATE TRIGGER inventory_listing_count_delete AFTER DELETE ON inventory_listing
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION inventory_counts_remove();
CREATE TRIGGER inventory_listing_count_update AFTER UPDATE ON inventory_listing
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION inventory_counts_move();

-- Items already stored.
INSERT INTO inventory_listing (
    item_id, organization_id, created_at, updated_at, deploy_status, deploy_reason,
    condition_rank, serial_number, sku_id, product, category, vendor_sku,
    assignee_type, assignee_id, assignee, renewal_date, supplied_by, search_text)
SELECT i.id, i.organization_id, i.created_at, i.updated_at, i.deploy_status,
    COALESCE(i.deploy_reason, ''),
    CASE i.condition WHEN 'NEW' THEN 0 WHEN 'USED_LIKE_NEW' THEN 1 WHEN 'USED_GOOD' THEN 2
        WHEN 'USED_FAIR' THEN 3 WHEN 'USED' THEN 4 WHEN 'USED_POOR' THEN 5 ELSE 6 END,
    LOWER(COALESCE(i.serial_number, '')), i.sku_id, LOWER(s.title), LOWER(s.category_code),
    LOWER(s.vendor_sku), COALESCE(i.assignee_type, ''), COALESCE(i.assignee_id, ''),
    LOWER(COALESCE(p.user_name, w.name, o.name, '')),
    COALESCE(to_char(i.renewal_date, 'YYYY-MM-DD'), ''),
    i.supplied_by,
    LOWER(COALESCE(i.description, '') || chr(10) || s.vendor_name || chr(10) || s.category_code
        || chr(10) || s.category_name || chr(10) || s.title || chr(10)
        || COALESCE(i.serial_number, ''))
FROM inventory_items i
JOIN skus s ON s.organization_id = i.organization_id AND s.id = i.sku_id
LEFT JOIN people p ON i.assignee_type = 'PERSON' AND p.organization_id = i.organization_id
    AND p.id = i.assignee_id
LEFT JOIN warehouses w ON i.assignee_type = 'WAREHOUSE' AND w.id = i.assignee_id
LEFT JOIN offices o ON i.assignee_type = 'OFFICE' AND o.organization_id = i.organization_id
    AND o.id = i.assignee_id;
