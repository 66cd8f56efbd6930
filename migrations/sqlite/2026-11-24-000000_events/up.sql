-- The record of every change (docs/events.md), SQLite flavour. Keep
-- equivalent to migrations/postgres/2026-11-24-000000_events (the storage
-- suite's schema test compares both). Conventions as in the baseline.

-- One row per organization that has events: the last sequence given out
-- and how far its events were pruned. A writing transaction takes its
-- sequences by updating this row as its last statement before COMMIT; the
-- row stays locked until the transaction ends, so sequences are given out
-- in commit order without gaps (a reader that saw sequence n has seen every
-- sequence below it). The argument is in docs/events.md.
CREATE TABLE event_sequences (
    organization_id TEXT NOT NULL PRIMARY KEY REFERENCES organizations (id),
    last_sequence INTEGER NOT NULL,
    -- Every event up to this sequence was pruned: a cursor before it is expired.
    pruned_through INTEGER NOT NULL DEFAULT 0
);

-- changes: a JSON object of the changed fields ({"field": {"from", "to"}}),
-- NULL when the event has none. actor_id: the API key's id for API_KEY.
CREATE TABLE events (
    organization_id TEXT NOT NULL REFERENCES organizations (id),
    sequence INTEGER NOT NULL,
    id TEXT NOT NULL,
    type TEXT NOT NULL,
    occurred_at TEXT NOT NULL,
    actor_type TEXT NOT NULL,
    actor_id TEXT,
    subject_type TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    changes TEXT,
    PRIMARY KEY (organization_id, sequence)
);
-- A subject's history (newest first) and the feed's subjectId filter.
CREATE INDEX events_subject_idx ON events (organization_id, subject_id, sequence);
