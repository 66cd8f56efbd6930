-- Groups of people (SCIM Groups) and their members, PostgreSQL flavour.
-- Keep equivalent to migrations/sqlite/2026-11-23-000000_groups (the
-- storage suite's schema test compares both; docs/storage.md). Conventions
-- as in the baseline: TEXT ids, times as TIMESTAMP (UTC), composite
-- (organization_id, id) foreign keys.

-- display_name_key is equip_domain::text::identifier_key(display_name), the
-- case-folded form names are compared in: unique per organization, so two
-- concurrent creates of "Sales" and "SALES" cannot both succeed; the filter
-- compares displayName on it (eq through the unique index). version
-- increases by one on every change of the group or its members.
CREATE TABLE groups (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    external_id TEXT,
    display_name TEXT NOT NULL,
    display_name_key TEXT NOT NULL,
    package_id TEXT,
    precedence INTEGER NOT NULL DEFAULT 0,
    created_at TIMESTAMP NOT NULL,
    updated_at TIMESTAMP NOT NULL,
    version BIGINT NOT NULL,
    -- How many rows of group_members the group has, kept in the writing
    -- transaction: the member limit is checked without counting the rows.
    member_count BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT groups_organization_id_key UNIQUE (organization_id, id),
    CONSTRAINT groups_display_name_key UNIQUE (organization_id, display_name_key),
    CONSTRAINT groups_package_fkey FOREIGN KEY (organization_id, package_id)
        REFERENCES packages (organization_id, id)
);
-- SCIM paging in creation order; lookups by the identity provider's id.
CREATE INDEX groups_organization_created_idx ON groups (organization_id, created_at, id);
CREATE INDEX groups_external_id_idx ON groups (organization_id, external_id);

-- One row per membership: a group of 100,000 members is changed by inserting
-- and deleting rows, never by rewriting a list. The primary key serves a
-- group's members (and their count); group_members_person_idx a person's
-- groups (a user's groups, offboarding).
CREATE TABLE group_members (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    group_id TEXT NOT NULL,
    person_id TEXT NOT NULL,
    PRIMARY KEY (group_id, person_id),
    CONSTRAINT group_members_group_fkey FOREIGN KEY (organization_id, group_id)
        REFERENCES groups (organization_id, id) ON DELETE CASCADE,
    CONSTRAINT group_members_person_fkey FOREIGN KEY (organization_id, person_id)
        REFERENCES people (organization_id, id)
);
CREATE INDEX group_members_person_idx ON group_members (person_id, group_id);
