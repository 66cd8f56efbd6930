-- The inventory listing and SCIM list response caches were removed
-- (docs/performance.md), and with them:
-- - the SCIM people version that validated cached SCIM lists, and its deferred
--   triggers on people and person_emails (a row lock per writing transaction);
-- - the change notifications of inventory_listing_versions, which kept the
--   listing versions that equip serve remembered for the listing cache
--   current. The notifications of api_keys stay (API keys are still answered
--   from memory), and so do the functions they use.
-- The table inventory_listing_versions stays: the listing's remembered
-- deep-page positions are valid only while the organization's listing
-- version is unchanged.
DROP TRIGGER person_emails_scim_version ON person_emails;
DROP TRIGGER people_scim_version ON people;
DROP FUNCTION scim_people_version_trigger();
DROP FUNCTION scim_people_version_bump(TEXT);
DROP TABLE scim_people_versions;

DROP TRIGGER inventory_listing_versions_notify_update ON inventory_listing_versions;
DROP TRIGGER inventory_listing_versions_notify_delete ON inventory_listing_versions;
DROP TRIGGER inventory_listing_versions_notify_insert ON inventory_listing_versions;
