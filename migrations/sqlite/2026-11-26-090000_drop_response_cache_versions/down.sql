-- As migration 2026-11-24-100000_scim_people_versions created them. The
-- versions start again from 1.
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
