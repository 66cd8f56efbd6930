-- SCIM lists page through provisioned (ACTIVE) people in creation order
-- (ORDER BY created_at, id with LIMIT/OFFSET) and count them. A partial index
-- over exactly those rows, with status among its columns so that SQLite sees
-- it as covering, lets both run on the index alone (no table lookups).
CREATE INDEX people_active_created_idx ON people (organization_id, status, created_at, id)
    WHERE status = 'ACTIVE';
