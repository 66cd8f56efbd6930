-- Drops what 2026-11-23-000000_groups creates.
DROP TABLE group_members;
DROP TABLE groups;
