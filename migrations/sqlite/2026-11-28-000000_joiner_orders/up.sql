-- The joiner's lifecycle (docs/orders.md): a package's contents, the orders
-- provisioning creates for new joiners, their lines (one per unit: each
-- line holds at most one inventory item), the shipments that carry lines,
-- and whether an inventory level's available stock is below its minimum
-- (kept so that inventory_level.below_minimum is written once per crossing).
-- Keep equivalent in both backends (the storage suite's schema test
-- compares them).

-- One entry of a package: quantity units of a category, preferred SKUs
-- (a JSON array of SKU ids, in order of preference) first.
CREATE TABLE package_items (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    package_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    category_code TEXT NOT NULL,
    sku_ids TEXT NOT NULL DEFAULT '[]',
    quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 20),
    CONSTRAINT package_items_package_fkey FOREIGN KEY (organization_id, package_id)
        REFERENCES packages (organization_id, id),
    CONSTRAINT package_items_position_key UNIQUE (package_id, position)
);

-- A joiner's order. status is derived from the lines by the domain and
-- stored for filtering. At most one order per person that is not CANCELLED,
-- also under concurrent writers.
CREATE TABLE orders (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    person_id TEXT NOT NULL,
    package_id TEXT,
    status TEXT NOT NULL CHECK (status IN ('PENDING', 'ALLOCATED', 'SHIPPED', 'DELIVERED', 'CANCELLED')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    CONSTRAINT orders_organization_id_key UNIQUE (organization_id, id),
    CONSTRAINT orders_person_fkey FOREIGN KEY (organization_id, person_id)
        REFERENCES people (organization_id, id)
);
CREATE UNIQUE INDEX orders_open_person_key ON orders (organization_id, person_id) WHERE status <> 'CANCELLED';
CREATE INDEX orders_listing_idx ON orders (organization_id, created_at DESC, id DESC);

-- A shipment: some lines of one order on their way to the person.
CREATE TABLE shipments (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    order_id TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('SHIPPED', 'DELIVERED', 'DELIVERY_EXCEPTION')),
    carrier TEXT,
    tracking_code TEXT,
    tracking_link TEXT,
    shipped_at TEXT NOT NULL,
    delivered_at TEXT,
    updated_at TEXT NOT NULL,
    CONSTRAINT shipments_organization_id_key UNIQUE (organization_id, id),
    CONSTRAINT shipments_order_fkey FOREIGN KEY (organization_id, order_id)
        REFERENCES orders (organization_id, id)
);
CREATE INDEX shipments_order_idx ON shipments (order_id);

-- One unit of an order: its category, the preferred SKUs copied from the
-- package, the item allocated to it (while ALLOCATED, SHIPPED or DELIVERED)
-- and the shipment that carries it.
CREATE TABLE order_lines (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    order_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    category_code TEXT NOT NULL,
    sku_ids TEXT NOT NULL DEFAULT '[]',
    status TEXT NOT NULL CHECK (status IN ('BACKORDERED', 'ALLOCATED', 'SHIPPED', 'DELIVERED', 'CANCELLED')),
    inventory_item_id TEXT,
    shipment_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    CONSTRAINT order_lines_order_fkey FOREIGN KEY (organization_id, order_id)
        REFERENCES orders (organization_id, id),
    CONSTRAINT order_lines_item_fkey FOREIGN KEY (organization_id, inventory_item_id)
        REFERENCES inventory_items (organization_id, id),
    CONSTRAINT order_lines_shipment_fkey FOREIGN KEY (organization_id, shipment_id)
        REFERENCES shipments (organization_id, id),
    CONSTRAINT order_lines_item_check CHECK (
        (status IN ('ALLOCATED', 'SHIPPED', 'DELIVERED')) = (inventory_item_id IS NOT NULL))
);
CREATE INDEX order_lines_order_idx ON order_lines (order_id, position);
-- Never one item on two open lines, whatever a writer does.
CREATE UNIQUE INDEX order_lines_item_key ON order_lines (inventory_item_id)
    WHERE status IN ('ALLOCATED', 'SHIPPED');
-- Backorders are filled oldest first, by category.
CREATE INDEX order_lines_backordered_idx ON order_lines (organization_id, category_code, created_at, id)
    WHERE status = 'BACKORDERED';

-- AVAILABLE stock by SKU, oldest first: what allocation searches and what
-- a level's available quantity counts (the holder's columns make that count
-- read the index alone: 200,000 items, 4 levels: 100 ms without them).
CREATE INDEX inventory_items_available_idx
    ON inventory_items (organization_id, sku_id, created_at, id, assignee_type, assignee_id)
    WHERE deploy_status = 'AVAILABLE';

ALTER TABLE inventory_levels ADD COLUMN below_minimum BOOLEAN NOT NULL DEFAULT FALSE;

-- The package and order scopes: a key that held every scope before them
-- (the default key) holds them too; keys given a chosen list keep it.
UPDATE api_keys SET scopes = scopes || ' packages:write orders:read orders:write'
WHERE (' ' || scopes || ' ') LIKE '% inventory:read %'
  AND (' ' || scopes || ' ') LIKE '% inventory:write %'
  AND (' ' || scopes || ' ') LIKE '% warehouses:read %'
  AND (' ' || scopes || ' ') LIKE '% inventory-levels:write %'
  AND (' ' || scopes || ' ') LIKE '% new-joiners:write %'
  AND (' ' || scopes || ' ') LIKE '% scim %'
  AND (' ' || scopes || ' ') LIKE '% events:read %'
  AND (' ' || scopes || ' ') LIKE '% webhooks:write %'
  AND (' ' || scopes || ' ') LIKE '% returns:read %'
  AND (' ' || scopes || ' ') LIKE '% returns:write %'
  AND (' ' || scopes || ' ') NOT LIKE '% orders:read %';
