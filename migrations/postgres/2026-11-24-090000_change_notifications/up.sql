-- Change notifications (PostgreSQL only): every statement that changes an API
-- key or an organization's inventory listing version sends the ids of the
-- organizations it touched on the channel `equip_organization_changed`,
-- delivered when its transaction commits. (Not person_emails: a notification
-- per SCIM create cost Bulk and CSV uploads a quarter of their rate.)
-- A running equip keeps API keys and listing stamps in memory while it hears
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

CREATE TRIGGER inventory_listing_versions_notify_insert AFTER INSERT ON inventory_listing_versions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION equip_notify_inserted();
CREATE TRIGGER inventory_listing_versions_notify_delete AFTER DELETE ON inventory_listing_versions
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION equip_notify_deleted();
CREATE TRIGGER inventory_listing_versions_notify_update AFTER UPDATE ON inventory_listing_versions
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION equip_notify_updated();
