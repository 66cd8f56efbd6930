-- A counter per organization that changes whenever anything a SCIM user shows
-- may have changed: every insert, update or delete of a person or an email
-- address bumps it, in the writing transaction (triggers, so that no write
-- path can forget it). SCIM list responses are kept in memory with the
-- version they were read under and served only while it is still the same
-- (equip_http::routes::scim::users); the version is read in the statement
-- that reads the API key. Rows are never deleted: a version never repeats.
CREATE TABLE scim_people_versions (
    organization_id TEXT NOT NULL PRIMARY KEY,
    version BIGINT NOT NULL
);

CREATE TRIGGER people_scim_version_insert AFTER INSERT ON people BEGIN
    INSERT INTO scim_people_versions (organization_id, version) VALUES (NEW.organization_id, 1)
        ON CONFLICT (organization_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER people_scim_version_update AFTER UPDATE ON people BEGIN
    INSERT INTO scim_people_versions (organization_id, version) VALUES (NEW.organization_id, 1)
        ON CONFLICT (organization_id) DO UPDATE SET version = version + 1;
    INSERT INTO scim_people_versions (organization_id, version) VALUES (OLD.organization_id, 1)
        ON CONFLICT (organization_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER people_scim_version_delete AFTER DELETE ON people BEGIN
    INSERT INTO scim_people_versions (organization_id, version) VALUES (OLD.organization_id, 1)
        ON CONFLICT (organization_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER person_emails_scim_version_insert AFTER INSERT ON person_emails BEGIN
    INSERT INTO scim_people_versions (organization_id, version) VALUES (NEW.organization_id, 1)
        ON CONFLICT (organization_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER person_emails_scim_version_update AFTER UPDATE ON person_emails BEGIN
    INSERT INTO scim_people_versions (organization_id, version) VALUES (NEW.organization_id, 1)
        ON CONFLICT (organization_id) DO UPDATE SET version = version + 1;
    INSERT INTO scim_people_versions (organization_id, version) VALUES (OLD.organization_id, 1)
        ON CONFLICT (organization_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER person_emails_scim_version_delete AFTER DELETE ON person_emails BEGIN
    INSERT INTO scim_people_versions (organization_id, version) VALUES (OLD.organization_id, 1)
        ON CONFLICT (organization_id) DO UPDATE SET version = version + 1;
END;
