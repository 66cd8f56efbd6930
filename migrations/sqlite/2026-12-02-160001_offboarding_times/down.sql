ALTER TABLE people DROP COLUMN offboarded_at;
ALTER TABLE people DROP COLUMN offboarding_started_at;
