-- PostgreSQL's migration of this name stops concurrent item writes from
-- deadlocking on inventory_counts (its statement triggers locked the old
-- (status, category) row before the new one). Nothing changes here: a SQLite
-- write transaction takes the database's one write lock at BEGIN IMMEDIATE,
-- so two writers never hold count rows at once, and the row triggers of the
-- baseline keep the counts as they are.
SELECT 1;
