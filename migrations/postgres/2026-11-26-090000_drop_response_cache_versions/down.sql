-- As migrations 2026-11-24-090000_change_notifications and
-- 2026-11-24-100000_scim_people_versions created them. The people versions
-- start again from 1.
CREATE TRIGGER inventory_listing_versions_notify_insert AFTER INSERT ON inventory_listing_versions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION equip_notify_inserted();
CREATE TRIGGER inventory_listing_versions_notify_delete AFTER DELETE ON inventory_listing_versions
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION equip_notify_deleted();
CREATE TRIGGER inventory_listing_versions_notify_update AFTER UPDATE ON inventory_listing_versions
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION equip_notify_updated();

CREATE TABLE scim_people_versions (
    organization_id TEXT NOT NULL PRIMARY KEY,
    version BIGINT NOT NULL,
    xact BIGINT NOT NULL
);

CREATE FUNCTION scim_people_version_bump(org TEXT) RETURNS void LANGUAGE sql AS $$
    INSERT INTO scim_people_versions (organization_id, version, xact)
        VALUES (org, 1, txid_current())
        ON CONFLICT (organization_id) DO UPDATE
            SET version = scim_people_versions.version + 1, xact = EXCLUDED.xact
            WHERE scim_people_versions.xact <> EXCLUDED.xact;
$$;

CREATE FUNCTION scim_people_version_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'DELETE' THEN
        PERFORM scim_people_version_bump(NEW.organization_id);
    END IF;
    IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.organization_id <> NEW.organization_id) THEN
        PERFORM scim_people_version_bump(OLD.organization_id);
    END IF;
    RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER people_scim_version AFTER INSERT OR UPDATE OR DELETE ON people
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION scim_people_version_trigger();
CREATE CONSTRAINT TRIGGER person_emails_scim_version
    AFTER INSERT OR UPDATE OR DELETE ON person_emails
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION scim_people_version_trigger();
