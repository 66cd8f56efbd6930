-- Feed cursors name the event at their position (docs/events.md, "Cursors
-- and restores"): a position keeps its event's id while the event exists,
-- and this column keeps it once the event is pruned. The id of the event at
-- pruned_through (the last one pruned); NULL before the first prune, and for
-- events pruned before this migration (their ids are gone). Keep equivalent
-- in both backends (the storage suite's schema test compares them).
ALTER TABLE event_sequences ADD COLUMN pruned_through_id TEXT;
