-- A counter per organization that changes whenever anything a SCIM user shows
-- may have changed: every insert, update or delete of a person or an email
-- address bumps it, in the writing transaction (triggers, so that no write
-- path can forget it). SCIM list responses are kept in memory with the
-- version they were read under and served only while it is still the same
-- (equip_http::routes::scim::users); the version is read in the statement
-- that reads the API key. Rows are never deleted: a version never repeats.
--
-- The triggers are deferred to the commit, and bump once per transaction
-- (`xact`): the row lock on the organization's counter, which orders the
-- writers of one organization, is then held only while committing, and it is
-- always a transaction's last lock (no lock-order cycle with other tables).
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
