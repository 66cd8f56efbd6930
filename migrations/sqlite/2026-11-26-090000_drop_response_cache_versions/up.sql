-- The SCIM list response cache was removed (docs/performance.md): the people
-- version it was validated by, and the triggers that bumped it in every write
-- to people and person_emails, go with it. (`inventory_listing_versions`
-- stays: the listing's remembered deep-page positions are valid only while
-- the organization's listing version is unchanged.)
DROP TRIGGER person_emails_scim_version_delete;
DROP TRIGGER person_emails_scim_version_update;
DROP TRIGGER person_emails_scim_version_insert;
DROP TRIGGER people_scim_version_delete;
DROP TRIGGER people_scim_version_update;
DROP TRIGGER people_scim_version_insert;
DROP TABLE scim_people_versions;
