DROP TRIGGER people_active_count_update ON people;
DROP TRIGGER people_active_count_delete ON people;
DROP TRIGGER people_active_count_insert ON people;
DROP FUNCTION people_active_counts_trigger();
DROP FUNCTION people_active_counts_add(TEXT, BIGINT);
DROP TABLE people_active_counts;
