DROP TRIGGER people_active_count_update;
DROP TRIGGER people_active_count_delete;
DROP TRIGGER people_active_count_insert;
DROP TABLE people_active_counts;
