-- The rest of a person's SCIM profile (RFC 7643 §4.1), kept as sent
-- (docs/scim.md, "What equip stores"), SQLite flavour; keep equivalent to
-- the PostgreSQL one. The texts clients filter on have a column each; the
-- multi-valued lists (ims, photos, entitlements, roles, x509Certificates)
-- are one JSON object of arrays, by attribute (absent: none), so that the
-- table stays within the 32 columns equip's Diesel build supports.
ALTER TABLE people ADD COLUMN formatted_name TEXT;
ALTER TABLE people ADD COLUMN middle_name TEXT;
ALTER TABLE people ADD COLUMN honorific_prefix TEXT;
ALTER TABLE people ADD COLUMN honorific_suffix TEXT;
ALTER TABLE people ADD COLUMN nick_name TEXT;
ALTER TABLE people ADD COLUMN title TEXT;
ALTER TABLE people ADD COLUMN user_type TEXT;
ALTER TABLE people ADD COLUMN preferred_language TEXT;
ALTER TABLE people ADD COLUMN locale TEXT;
ALTER TABLE people ADD COLUMN timezone TEXT;
ALTER TABLE people ADD COLUMN profile_url TEXT;
ALTER TABLE people ADD COLUMN profile_lists TEXT NOT NULL DEFAULT '{}';
