-- The inventory listing's read model: one narrow row per item holding every
-- filter and sort key (lowercased where matching is case-insensitive; '' for
-- "none", so that both backends order absent values first ascending and last
-- descending), kept in step with inventory_items by the store on every write.
-- Pages are cut here (over ids only) and the page's full rows are loaded after.
CREATE TABLE inventory_listing (
    row_id INTEGER PRIMARY KEY, -- stable rowid for the FTS index
    item_id TEXT NOT NULL UNIQUE,
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
CREATE INDEX inventory_listing_created_idx ON inventory_listing (organization_id, created_at, item_id);
CREATE INDEX inventory_listing_updated_idx ON inventory_listing (organization_id, updated_at, item_id);
CREATE INDEX inventory_listing_product_idx ON inventory_listing (organization_id, product, item_id);
CREATE INDEX inventory_listing_category_idx ON inventory_listing (organization_id, category, product, item_id);
CREATE INDEX inventory_listing_sku_idx ON inventory_listing (organization_id, sku_id, item_id);
CREATE INDEX inventory_listing_serial_idx ON inventory_listing (organization_id, serial_number, item_id);
CREATE INDEX inventory_listing_vendor_sku_idx ON inventory_listing (organization_id, vendor_sku);
CREATE INDEX inventory_listing_assignee_idx ON inventory_listing (organization_id, assignee_id, created_at);

-- Substring search: an FTS5 trigram index over search_text.
CREATE VIRTUAL TABLE inventory_search USING fts5(
    search_text, content = 'inventory_listing', content_rowid = 'row_id', tokenize = 'trigram'
);
CREATE TRIGGER inventory_listing_search_insert AFTER INSERT ON inventory_listing BEGIN
    INSERT INTO inventory_search (rowid, search_text) VALUES (new.row_id, new.search_text);
END;
CREATE TRIGGER inventory_listing_search_delete AFTER DELETE ON inventory_listing BEGIN
    INSERT INTO inventory_search (inventory_search, rowid, search_text)
        VALUES ('delete', old.row_id, old.search_text);
END;
CREATE TRIGGER inventory_listing_search_update AFTER UPDATE OF search_text ON inventory_listing BEGIN
    INSERT INTO inventory_search (inventory_search, rowid, search_text)
        VALUES ('delete', old.row_id, old.search_text);
    INSERT INTO inventory_search (rowid, search_text) VALUES (new.row_id, new.search_text);
END;

-- Item counts per (organization, status, category), maintained by triggers, so
-- that totalRecords of the common listings is a sum over a few rows instead of
-- a count over up to millions.
CREATE TABLE inventory_counts (
    organization_id TEXT NOT NULL,
    deploy_status TEXT NOT NULL,
    category TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (organization_id, deploy_status, category)
);
CREATE TRIGGER inventory_listing_count_insert AFTER INSERT ON inventory_listing BEGIN
    INSERT INTO inventory_counts (organization_id, deploy_status, category, n)
        VALUES (new.organization_id, new.deploy_status, new.category, 1)
        ON CONFLICT (organization_id, deploy_status, category) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER inventory_listing_count_delete AFTER DELETE ON inventory_listing BEGIN
    UPDATE inventory_counts SET n = n - 1
        WHERE organization_id = old.organization_id AND deploy_status = old.deploy_status
          AND category = old.category;
END;
CREATE TRIGGER inventory_listing_count_update AFTER UPDATE OF deploy_status, category ON inventory_listing BEGIN
    UPDATE inventory_counts SET n = n - 1
        WHERE organization_id = old.organization_id AND deploy_status = old.deploy_status
          AND category = old.category;
    INSERT INTO inventory_counts (organization_id, deploy_status, category, n)
        VALUES (new.organization_id, new.deploy_status, new.category, 1)
        ON CONFLICT (organization_id, deploy_status, category) DO UPDATE SET n = n + 1;
END;

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
    LOWER(COALESCE(p.user_name, w.name, o.name, '')), COALESCE(i.renewal_date, ''),
    i.supplied_by,
    LOWER(COALESCE(i.description, '') || char(10) || s.vendor_name || char(10) || s.category_code
        || char(10) || s.category_name || char(10) || s.title || char(10)
        || COALESCE(i.serial_number, ''))
FROM inventory_items i
JOIN skus s ON s.organization_id = i.organization_id AND s.id = i.sku_id
LEFT JOIN people p ON i.assignee_type = 'PERSON' AND p.organization_id = i.organization_id
    AND p.id = i.assignee_id
LEFT JOIN warehouses w ON i.assignee_type = 'WAREHOUSE' AND w.id = i.assignee_id
LEFT JOIN offices o ON i.assignee_type = 'OFFICE' AND o.organization_id = i.organization_id
    AND o.id = i.assignee_id;
