DROP INDEX people_active_created_idx;
