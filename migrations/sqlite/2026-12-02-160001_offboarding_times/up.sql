-- When a person's offboarding started (the SCIM DELETE) and completed (their
-- last return closed), as GET /api/v1/people shows them: a row once it
-- started, `offboarded_at` null until it completed. People already
-- offboarding or offboarded take the time of their event
-- (person.offboarding_started, person.offboarded), or, when retention has
-- pruned it, their last change (nothing changes a person after the start
-- but the completion). Keep equivalent in both backends.
CREATE TABLE person_offboardings (
    person_id TEXT PRIMARY KEY NOT NULL REFERENCES people (id),
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    started_at TEXT NOT NULL,
    offboarded_at TEXT
);
INSERT INTO person_offboardings (person_id, organization_id, started_at, offboarded_at)
SELECT p.id, p.organization_id,
    COALESCE(
        (SELECT MIN(e.occurred_at) FROM events e
         WHERE e.organization_id = p.organization_id
           AND e.subject_type = 'PERSON' AND e.subject_id = p.id
           AND e.type = 'person.offboarding_started'),
        p.updated_at),
    CASE WHEN p.status = 'OFFBOARDED' THEN COALESCE(
        (SELECT MAX(e.occurred_at) FROM events e
         WHERE e.organization_id = p.organization_id
           AND e.subject_type = 'PERSON' AND e.subject_id = p.id
           AND e.type = 'person.offboarded'),
        p.updated_at) END
FROM people p
WHERE p.status <> 'ACTIVE';
