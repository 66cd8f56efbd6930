-- The return scopes (docs/returns.md): a key that held every scope before
-- them (one created without --scope, "the default key") holds them too, so
-- it still holds every scope. Keys given a chosen list keep their list.
-- Keep equivalent in both backends.
UPDATE api_keys SET scopes = scopes || ' returns:read returns:write'
WHERE (' ' || scopes || ' ') LIKE '% inventory:read %'
  AND (' ' || scopes || ' ') LIKE '% inventory:write %'
  AND (' ' || scopes || ' ') LIKE '% warehouses:read %'
  AND (' ' || scopes || ' ') LIKE '% inventory-levels:write %'
  AND (' ' || scopes || ' ') LIKE '% new-joiners:write %'
  AND (' ' || scopes || ' ') LIKE '% scim %'
  AND (' ' || scopes || ' ') LIKE '% events:read %'
  AND (' ' || scopes || ' ') LIKE '% webhooks:write %'
  AND (' ' || scopes || ' ') NOT LIKE '% returns:read %'
  AND (' ' || scopes || ' ') NOT LIKE '% returns:write %';
