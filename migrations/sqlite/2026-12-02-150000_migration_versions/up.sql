-- Which equip applied each migration (docs/operations.md, "Rollback"),
-- SQLite flavour; keep equivalent to the PostgreSQL one. Written in the
-- transaction that applies the migrations, one row per migration applied
-- (this one included): `migration` is the version diesel records in
-- __diesel_schema_migrations, `name` the migration's directory name,
-- `equip_version` the version of the equip binary that applied it. An older
-- equip started on the database reads it to name the release to run.
-- Migrations applied before this one have no row.
CREATE TABLE migration_versions (
    migration TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    equip_version TEXT NOT NULL,
    applied_at TEXT NOT NULL
);
