-- When a person's offboarding started (the SCIM DELETE) and completed (their
-- last return closed), as GET /api/v1/people shows them; null until then.
-- People already offboarding or offboarded take the time of their event
-- (person.offboarding_started, person.offboarded), or, when retention has
-- pruned it, their last change (nothing changes a person after the start
-- but the completion). Keep equivalent in both backends.
ALTER TABLE people ADD COLUMN offboarding_started_at TEXT;
ALTER TABLE people ADD COLUMN offboarded_at TEXT;
UPDATE people SET offboarding_started_at = COALESCE(
    (SELECT MIN(e.occurred_at) FROM events e
     WHERE e.organization_id = people.organization_id
       AND e.subject_type = 'PERSON' AND e.subject_id = people.id
       AND e.type = 'person.offboarding_started'),
    updated_at)
WHERE status <> 'ACTIVE';
UPDATE people SET offboarded_at = COALESCE(
    (SELECT MAX(e.occurred_at) FROM events e
     WHERE e.organization_id = people.organization_id
       AND e.subject_type = 'PERSON' AND e.subject_id = people.id
       AND e.type = 'person.offboarded'),
    updated_at)
WHERE status = 'OFFBOARDED';
