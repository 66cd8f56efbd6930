DROP TRIGGER inventory_listing_versions_notify_update ON inventory_listing_versions;
DROP TRIGGER inventory_listing_versions_notify_delete ON inventory_listing_versions;
DROP TRIGGER inventory_listing_versions_notify_insert ON inventory_listing_versions;
DROP TRIGGER api_keys_notify_update ON api_keys;
DROP TRIGGER api_keys_notify_delete ON api_keys;
DROP TRIGGER api_keys_notify_insert ON api_keys;
DROP FUNCTION equip_notify_updated();
DROP FUNCTION equip_notify_deleted();
DROP FUNCTION equip_notify_inserted();
