-- The people directory's scope, people:read (docs/api.md, "People"): a key
-- that held every scope before it (one created without --scope, "the
-- default key") holds it too, so it still holds every scope. Keys given a
-- chosen list keep their list. Keep equivalent in both backends.
UPDATE api_keys SET scopes = scopes || ' people:read'
WHERE (' ' || scopes || ' ') LIKE '% inventory:read %'
  AND (' ' || scopes || ' ') LIKE '% inventory:write %'
  AND (' ' || scopes || ' ') LIKE '% warehouses:read %'
  AND (' ' || scopes || ' ') LIKE '% inventory-levels:write %'
  AND (' ' || scopes || ' ') LIKE '% new-joiners:write %'
  AND (' ' || scopes || ' ') LIKE '% scim %'
  AND (' ' || scopes || ' ') LIKE '% events:read %'
  AND (' ' || scopes || ' ') LIKE '% webhooks:write %'
  AND (' ' || scopes || ' ') LIKE '% returns:read %'
  AND (' ' || scopes || ' ') LIKE '% returns:write %'
  AND (' ' || scopes || ' ') LIKE '% packages:write %'
  AND (' ' || scopes || ' ') LIKE '% orders:read %'
  AND (' ' || scopes || ' ') LIKE '% orders:write %'
  AND (' ' || scopes || ' ') NOT LIKE '% people:read %';
