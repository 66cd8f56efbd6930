ALTER TABLE event_sequences DROP COLUMN pruned_through_id;
