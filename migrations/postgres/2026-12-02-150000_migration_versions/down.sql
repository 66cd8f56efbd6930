DROP TABLE migration_versions;
