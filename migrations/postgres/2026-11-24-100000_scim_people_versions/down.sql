DROP TRIGGER person_emails_scim_version ON person_emails;
DROP TRIGGER people_scim_version ON people;
DROP FUNCTION scim_people_version_trigger();
DROP FUNCTION scim_people_version_bump(TEXT);
DROP TABLE scim_people_versions;
