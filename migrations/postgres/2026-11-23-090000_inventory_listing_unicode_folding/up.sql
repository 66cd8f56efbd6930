-- SQLite's listing keys are re-folded by this migration (its built-in lower()
-- folds ASCII only). PostgreSQL's LOWER already folded them by the database's
-- LC_CTYPE; nothing to do here. Kept so that both backends have the same
-- migration versions.
SELECT 1;
