-- equip's schema, PostgreSQL flavour: the first release's baseline.
-- Keep equivalent to migrations/sqlite (the storage suite's schema test
-- compares the tables, columns and index names of both; docs/storage.md).
-- Later changes are new migrations on top of this one.

-- ==========================================================================
-- Tables of record: organizations, keys, locations, catalog, people, inventory, reminders
-- ==========================================================================

-- Conventions shared with SQLite:
--   * ids are UUIDs as TEXT (lowercase, hyphenated);
--   * times are TIMESTAMP without time zone, holding UTC (microsecond precision);
--   * dates are DATE, booleans BOOLEAN, money DOUBLE PRECISION, enums TEXT (wire names);
--   * every customer row carries organization_id; references between customer
--     rows are composite foreign keys (organization_id, x_id) -> (organization_id, id),
--     so a row can never point to another organization's row.

CREATE TABLE organizations (
    id TEXT NOT NULL PRIMARY KEY,
    name TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE api_keys (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    prefix TEXT NOT NULL,
    hash TEXT NOT NULL,
    scopes TEXT NOT NULL,
    label TEXT,
    created_at TIMESTAMP NOT NULL,
    revoked_at TIMESTAMP,
    CONSTRAINT api_keys_prefix_key UNIQUE (prefix)
);
CREATE INDEX api_keys_organization_idx ON api_keys (organization_id, created_at);

-- owner_organization_id NULL: a shared warehouse run by the operator, visible to
-- the organizations in warehouse_grants. address_configured false: no address yet
-- (the address columns are then NULL).
CREATE TABLE warehouses (
    id TEXT NOT NULL PRIMARY KEY,
    owner_organization_id TEXT REFERENCES organizations (id),
    name TEXT NOT NULL,
    address_configured BOOLEAN NOT NULL,
    street1 TEXT,
    street2 TEXT,
    city TEXT,
    province TEXT,
    postal_code TEXT,
    country_code TEXT,
    phone_number TEXT
);
CREATE INDEX warehouses_owner_idx ON warehouses (owner_organization_id);

CREATE TABLE warehouse_grants (
    warehouse_id TEXT NOT NULL REFERENCES warehouses (id),
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    granted_at TIMESTAMP NOT NULL,
    PRIMARY KEY (warehouse_id, organization_id)
);
CREATE INDEX warehouse_grants_organization_idx ON warehouse_grants (organization_id, warehouse_id);

CREATE TABLE offices (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    name TEXT NOT NULL,
    CONSTRAINT offices_organization_id_key UNIQUE (organization_id, id)
);

CREATE TABLE skus (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    title TEXT NOT NULL,
    category_code TEXT NOT NULL,
    category_name TEXT NOT NULL,
    vendor_code TEXT NOT NULL,
    vendor_name TEXT NOT NULL,
    vendor_sku TEXT NOT NULL,
    CONSTRAINT skus_organization_id_key UNIQUE (organization_id, id)
);
CREATE INDEX skus_category_idx ON skus (organization_id, category_code);

CREATE TABLE packages (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    slug TEXT NOT NULL,
    name TEXT NOT NULL,
    CONSTRAINT packages_organization_id_key UNIQUE (organization_id, id),
    CONSTRAINT packages_slug_key UNIQUE (organization_id, slug)
);

-- People provisioned over SCIM. phone_numbers and addresses are JSON arrays;
-- emails live in person_emails because SCIM filters on them.
CREATE TABLE people (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    external_id TEXT,
    user_name TEXT NOT NULL,
    user_name_lower TEXT NOT NULL,
    given_name TEXT,
    family_name TEXT,
    display_name TEXT,
    phone_numbers TEXT NOT NULL DEFAULT '[]',
    addresses TEXT NOT NULL DEFAULT '[]',
    active BOOLEAN NOT NULL,
    package_id TEXT,
    start_date DATE,
    status TEXT NOT NULL,
    skip_user_activation BOOLEAN,
    cpf_number TEXT,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    version BIGINT NOT NULL,
    CONSTRAINT people_organization_id_key UNIQUE (organization_id, id),
    CONSTRAINT people_package_fkey FOREIGN KEY (organization_id, package_id)
        REFERENCES packages (organization_id, id),
    CONSTRAINT people_status_check CHECK (status IN ('ACTIVE', 'OFFBOARDING', 'OFFBOARDED'))
);
-- userName is unique per organization, case-insensitively, among provisioned
-- (ACTIVE) people only: offboarding frees the userName.
CREATE UNIQUE INDEX people_active_user_name_key
    ON people (organization_id, user_name_lower) WHERE status = 'ACTIVE';
CREATE INDEX people_organization_created_idx ON people (organization_id, created_at, id);
CREATE INDEX people_external_id_idx ON people (organization_id, external_id);

CREATE TABLE person_emails (
    person_id TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    position INTEGER NOT NULL,
    value TEXT NOT NULL,
    value_lower TEXT NOT NULL,
    kind TEXT,
    is_primary BOOLEAN NOT NULL,
    PRIMARY KEY (person_id, position),
    CONSTRAINT person_emails_person_fkey FOREIGN KEY (organization_id, person_id)
        REFERENCES people (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX person_emails_value_idx ON person_emails (organization_id, value_lower);

-- Inventory items. assignee_id points to a person, warehouse or office depending
-- on assignee_type (polymorphic: no foreign key). imei is a JSON array of strings.
CREATE TABLE inventory_items (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    sku_id TEXT NOT NULL,
    serial_number TEXT,
    imei TEXT NOT NULL DEFAULT '[]',
    deploy_status TEXT NOT NULL,
    deploy_reason TEXT,
    condition TEXT NOT NULL,
    renewal_date DATE,
    renewal_date_updated_by TEXT,
    billing_start_date DATE,
    billing_end_date DATE,
    procurement_method TEXT,
    assignee_type TEXT,
    assignee_id TEXT,
    assigned_at TIMESTAMP,
    description TEXT,
    erp_invoice_id TEXT,
    hold_start_date DATE,
    unlock_date DATE,
    itad_requested BOOLEAN,
    device_program_status TEXT,
    device_program_last_sync_at TIMESTAMP,
    device_program_next_sync_at TIMESTAMP,
    supplied_by TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    CONSTRAINT inventory_items_organization_id_key UNIQUE (organization_id, id),
    CONSTRAINT inventory_items_sku_fkey FOREIGN KEY (organization_id, sku_id)
        REFERENCES skus (organization_id, id),
    CONSTRAINT inventory_items_assignee_check CHECK (
        (assignee_type IS NULL AND assignee_id IS NULL AND assigned_at IS NULL)
        OR (assignee_type IS NOT NULL AND assignee_id IS NOT NULL)),
    CONSTRAINT inventory_items_device_program_check CHECK (
        (device_program_status IS NULL AND device_program_last_sync_at IS NULL
            AND device_program_next_sync_at IS NULL)
        OR (device_program_status IS NOT NULL AND device_program_next_sync_at IS NOT NULL))
);
CREATE INDEX inventory_items_created_idx ON inventory_items (organization_id, created_at DESC, id);
CREATE INDEX inventory_items_updated_idx ON inventory_items (organization_id, updated_at);
CREATE INDEX inventory_items_assignee_idx ON inventory_items (organization_id, assignee_type, assignee_id);
CREATE INDEX inventory_items_sku_idx ON inventory_items (organization_id, sku_id);
CREATE INDEX inventory_items_serial_idx ON inventory_items (organization_id, serial_number);

-- Pricing of an item (at most one row per item). A side table rather than six
-- more columns on inventory_items: it keeps that table within Diesel's default
-- 32-column limit.
CREATE TABLE inventory_item_pricing (
    item_id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    region_code TEXT NOT NULL,
    price_option TEXT NOT NULL,
    price DOUBLE PRECISION NOT NULL,
    currency_code TEXT NOT NULL,
    discounted_price DOUBLE PRECISION NOT NULL,
    discount_percentage DOUBLE PRECISION NOT NULL,
    CONSTRAINT inventory_item_pricing_item_fkey FOREIGN KEY (organization_id, item_id)
        REFERENCES inventory_items (organization_id, id) ON DELETE CASCADE
);

CREATE TABLE inventory_item_tags (
    item_id TEXT NOT NULL,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    position INTEGER NOT NULL,
    tag_id TEXT NOT NULL,
    label TEXT NOT NULL,
    PRIMARY KEY (item_id, position),
    CONSTRAINT inventory_item_tags_tag_key UNIQUE (item_id, tag_id),
    CONSTRAINT inventory_item_tags_item_fkey FOREIGN KEY (organization_id, item_id)
        REFERENCES inventory_items (organization_id, id) ON DELETE CASCADE
);
CREATE INDEX inventory_item_tags_tag_idx ON inventory_item_tags (organization_id, tag_id);

CREATE TABLE return_orders (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    person_id TEXT,
    status TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    CONSTRAINT return_orders_organization_id_key UNIQUE (organization_id, id),
    CONSTRAINT return_orders_person_fkey FOREIGN KEY (organization_id, person_id)
        REFERENCES people (organization_id, id)
);
CREATE INDEX return_orders_person_idx ON return_orders (organization_id, person_id);

-- One line of a return order: one inventory item, with its retrieval (how it
-- comes back; retrieval_type RETURN_KIT, INBOUND_LABEL or PHYSICAL, or all
-- retrieval columns NULL while not chosen). active marks the item's current
-- return; at most one per item.
CREATE TABLE return_order_items (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    return_order_id TEXT NOT NULL,
    inventory_item_id TEXT NOT NULL,
    status TEXT NOT NULL,
    active BOOLEAN NOT NULL,
    retrieval_id TEXT,
    retrieval_type TEXT,
    retrieval_status TEXT,
    retrieval_updated_at TIMESTAMP,
    inbound_tracking_code TEXT,
    inbound_tracking_link TEXT,
    outbound_tracking_code TEXT,
    outbound_tracking_link TEXT,
    CONSTRAINT return_order_items_order_fkey FOREIGN KEY (organization_id, return_order_id)
        REFERENCES return_orders (organization_id, id),
    CONSTRAINT return_order_items_item_fkey FOREIGN KEY (organization_id, inventory_item_id)
        REFERENCES inventory_items (organization_id, id),
    CONSTRAINT return_order_items_retrieval_check CHECK (
        (retrieval_id IS NULL AND retrieval_type IS NULL AND retrieval_status IS NULL
            AND retrieval_updated_at IS NULL)
        OR (retrieval_id IS NOT NULL AND retrieval_type IN ('RETURN_KIT', 'INBOUND_LABEL', 'PHYSICAL')
            AND retrieval_status IS NOT NULL AND retrieval_updated_at IS NOT NULL))
);
CREATE UNIQUE INDEX return_order_items_active_key ON return_order_items (inventory_item_id) WHERE active;
CREATE INDEX return_order_items_item_idx ON return_order_items (organization_id, inventory_item_id);
CREATE INDEX return_order_items_order_idx ON return_order_items (return_order_id);

-- Per-SKU, per-warehouse stock-level settings; deactivation keeps the row.
CREATE TABLE inventory_levels (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    sku_id TEXT NOT NULL,
    warehouse_id TEXT NOT NULL REFERENCES warehouses (id),
    minimum_quantity INTEGER NOT NULL,
    target_quantity INTEGER NOT NULL,
    created_at TIMESTAMP NOT NULL,
    deactivated_at TIMESTAMP,
    CONSTRAINT inventory_levels_sku_fkey FOREIGN KEY (organization_id, sku_id)
        REFERENCES skus (organization_id, id),
    CONSTRAINT inventory_levels_quantities_check CHECK (
        minimum_quantity >= 0 AND target_quantity >= minimum_quantity)
);
-- At most one active level per (organization, SKU, warehouse), also under
-- concurrent inserts.
CREATE UNIQUE INDEX inventory_levels_active_key
    ON inventory_levels (organization_id, sku_id, warehouse_id) WHERE deactivated_at IS NULL;
CREATE INDEX inventory_levels_created_idx ON inventory_levels (organization_id, created_at DESC, id DESC);

-- New-joiner reminders (audit) and the email outbox they are delivered from.
CREATE TABLE reminders (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    person_id TEXT NOT NULL,
    sender_person_id TEXT,
    status TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    CONSTRAINT reminders_organization_id_key UNIQUE (organization_id, id),
    CONSTRAINT reminders_person_fkey FOREIGN KEY (organization_id, person_id)
        REFERENCES people (organization_id, id),
    CONSTRAINT reminders_sender_fkey FOREIGN KEY (organization_id, sender_person_id)
        REFERENCES people (organization_id, id)
);
CREATE INDEX reminders_person_idx ON reminders (organization_id, person_id, created_at);

-- claimed_until: a dispatcher's lease on the message; another instance may claim
-- it only once the lease has expired, so one email is never sent twice.
CREATE TABLE outbox_messages (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    reminder_id TEXT NOT NULL,
    recipient TEXT NOT NULL,
    subject TEXT NOT NULL,
    body_text TEXT NOT NULL,
    body_html TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMP NOT NULL,
    last_error TEXT,
    sent_at TIMESTAMP,
    claimed_until TIMESTAMP,
    created_at TIMESTAMP NOT NULL,
    CONSTRAINT outbox_messages_reminder_fkey FOREIGN KEY (organization_id, reminder_id)
        REFERENCES reminders (organization_id, id)
);
CREATE INDEX outbox_messages_due_idx ON outbox_messages (status, next_attempt_at);
CREATE INDEX outbox_messages_reminder_idx ON outbox_messages (organization_id, reminder_id);

-- ==========================================================================
-- People: SCIM paging
-- ==========================================================================

-- SCIM lists page through provisioned (ACTIVE) people in creation order
-- (ORDER BY created_at, id with LIMIT/OFFSET) and count them. A partial index
-- over exactly those rows, with status among its columns so that SQLite sees
-- it as covering, lets both run on the index alone (no table lookups).
CREATE INDEX people_active_created_idx ON people (organization_id, status, created_at, id)
    WHERE status = 'ACTIVE';

-- The number of active people of each organization, kept by triggers in the
-- writing transaction. It is the total of an unfiltered SCIM list: an
-- identity provider's full sync reads every page, each with its total, and a
-- COUNT(*) over all of an organization's people was most of a page's cost
-- (a sequential scan, 3–4 ms at 20,000 people).
--
-- The triggers are deferred to the commit, like the inventory's: the row
-- lock on an organization's counter, which orders the writers of one
-- organization, is held only while committing, and it is a transaction's
-- last lock (no lock-order cycle with other tables).
CREATE TABLE people_active_counts (
    organization_id TEXT NOT NULL PRIMARY KEY,
    n BIGINT NOT NULL
);

CREATE FUNCTION people_active_counts_add(org TEXT, delta BIGINT) RETURNS void LANGUAGE sql AS $$
    INSERT INTO people_active_counts (organization_id, n) VALUES (org, delta)
        ON CONFLICT (organization_id) DO UPDATE SET n = people_active_counts.n + EXCLUDED.n;
$$;

CREATE FUNCTION people_active_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.status = 'ACTIVE' THEN
        PERFORM people_active_counts_add(OLD.organization_id, -1);
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.status = 'ACTIVE' THEN
        PERFORM people_active_counts_add(NEW.organization_id, 1);
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER people_active_count_insert AFTER INSERT ON people
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (NEW.status = 'ACTIVE')
    EXECUTE FUNCTION people_active_counts_trigger();
CREATE CONSTRAINT TRIGGER people_active_count_delete AFTER DELETE ON people
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (OLD.status = 'ACTIVE')
    EXECUTE FUNCTION people_active_counts_trigger();
CREATE CONSTRAINT TRIGGER people_active_count_update AFTER UPDATE OF status, organization_id ON people
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.organization_id IS DISTINCT FROM NEW.organization_id)
    EXECUTE FUNCTION people_active_counts_trigger();

-- ==========================================================================
-- Inventory listing: the read model the listing pages are cut from
-- ==========================================================================

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
    -- The item's JSON, exactly as the API returns it (rendered by the store
    -- with the API's serializer whenever the row is refreshed), so that a page
    -- is read and concatenated, not rebuilt.
    item_json TEXT,
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

-- A counter per organization, bumped by every refresh of its listing rows (in
-- the same transaction): the store remembers where deep pages start (keyset
-- positions) only for as long as the listing has not changed.
CREATE TABLE inventory_listing_versions (
    organization_id TEXT NOT NULL PRIMARY KEY,
    version BIGINT NOT NULL
);

-- A status filter in the default order (newest first): the page walks this
-- index alone instead of the creation-time index plus every row's status.
CREATE INDEX inventory_listing_status_created_idx
    ON inventory_listing (organization_id, deploy_status, created_at, item_id COLLATE "C");

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

-- ==========================================================================
-- Change notifications (PostgreSQL only)
-- ==========================================================================

-- Change notifications (PostgreSQL only): every statement that changes an API
-- key sends the ids of the organizations it touched on the channel
-- `equip_organization_changed`, delivered when its transaction commits. (Not person_emails: a notification
-- per SCIM create cost Bulk and CSV uploads a quarter of their rate.)
-- A running equip keeps API keys in memory while it hears
-- no change of their organization (crates/persistence/src/change_feed.rs).
-- Statement triggers with transition tables: one notification per
-- organization and statement, whatever the number of rows (PostgreSQL also
-- folds equal notifications of one transaction into one).

CREATE FUNCTION equip_notify_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('equip_organization_changed', o.organization_id)
        FROM (SELECT DISTINCT organization_id FROM new_rows) o;
    RETURN NULL;
END $$;

CREATE FUNCTION equip_notify_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('equip_organization_changed', o.organization_id)
        FROM (SELECT DISTINCT organization_id FROM old_rows) o;
    RETURN NULL;
END $$;

CREATE FUNCTION equip_notify_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('equip_organization_changed', o.organization_id)
        FROM (SELECT organization_id FROM new_rows
              UNION SELECT organization_id FROM old_rows) o;
    RETURN NULL;
END $$;

CREATE TRIGGER api_keys_notify_insert AFTER INSERT ON api_keys
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION equip_notify_inserted();
CREATE TRIGGER api_keys_notify_delete AFTER DELETE ON api_keys
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION equip_notify_deleted();
CREATE TRIGGER api_keys_notify_update AFTER UPDATE ON api_keys
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION equip_notify_updated();

-- ==========================================================================
-- Health
-- ==========================================================================

-- The readiness probe's write check (crates/persistence/src/repositories/health.rs):
-- a write that matches no row of this one-row table fails on a read-only
-- database; rewriting its one row with its own value shows that a write fits
-- on the disk.
CREATE TABLE health_probe (
    id INTEGER NOT NULL PRIMARY KEY,
    written_at TIMESTAMP NOT NULL
);
INSERT INTO health_probe (id, written_at) VALUES (1, CURRENT_TIMESTAMP);
