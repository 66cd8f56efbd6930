//! Migrations: applied once, idempotent, under concurrent starters.

use crate::support::*;

storage_tests!(
    migrations_are_idempotent,
    a_database_of_another_build_is_refused_by_name,
    a_database_migrated_by_a_newer_equip_names_it_and_the_backup,
    a_database_from_before_the_baseline_is_a_pre_release_one,
    each_migration_is_recorded_with_the_equip_that_applied_it,
);

/// Rolling back: an older equip started on a database a newer one migrated
/// says so, names the migration and the equip version that applied it (read
/// from `migration_versions`), and says what to do (run that version, or
/// restore the backup taken before the upgrade), not to use a new database.
/// Nothing is changed.
fn a_database_migrated_by_a_newer_equip_names_it_and_the_backup(db: &TestDatabase, store: &Store) {
    db.execute(
        "INSERT INTO __diesel_schema_migrations (version) VALUES ('20991231000000');
         INSERT INTO migration_versions (migration, name, equip_version, applied_at)
             VALUES ('20991231000000', '2099-12-31-000000_future', '9.9.9', '2099-12-31 00:00:00')",
    );
    let err = store.run_migrations().unwrap_err().to_string();
    assert!(err.contains("migrated by a newer equip"), "{err}");
    assert!(
        err.contains(&format!("equip {}", equip_persistence::EQUIP_VERSION)),
        "{err}"
    );
    assert!(
        err.contains("2099-12-31-000000_future (applied by equip 9.9.9)"),
        "{err}"
    );
    assert!(err.contains("run equip 9.9.9 (or newer)"), "{err}");
    assert!(
        err.contains("restore the backup taken before the upgrade"),
        "{err}"
    );
    assert!(!err.contains("new database"), "{err}");
    assert!(!err.contains("another build"), "{err}");
    // Refused, not half-migrated: the records are as they were.
    assert_eq!(
        db.count_rows("migration_versions WHERE equip_version = '9.9.9'"),
        1
    );
}

/// Unknown migrations older than the baseline: a database of a build from
/// before the first release, which this build cannot upgrade.
fn a_database_from_before_the_baseline_is_a_pre_release_one(db: &TestDatabase, store: &Store) {
    db.execute("INSERT INTO __diesel_schema_migrations (version) VALUES ('20261101000000')");
    let err = store.run_migrations().unwrap_err().to_string();
    assert!(err.contains("20261101000000"), "{err}");
    assert!(err.contains("before its first release"), "{err}");
    assert!(err.contains("use a new database"), "{err}");
}

/// A fresh database records every migration applied, with this equip's
/// version; migrating again adds nothing.
fn each_migration_is_recorded_with_the_equip_that_applied_it(db: &TestDatabase, store: &Store) {
    let applied = db.count_rows("__diesel_schema_migrations");
    assert!(applied >= 12, "{applied}");
    let ours = format!(
        "migration_versions WHERE equip_version = '{}'",
        equip_persistence::EQUIP_VERSION
    );
    assert_eq!(db.count_rows(&ours), applied);
    assert!(store.run_migrations().unwrap().is_empty());
    assert_eq!(db.count_rows("migration_versions"), applied);
}

/// A database whose recorded migrations this build does not know (one made by
/// a pre-release build, before the migrations became one baseline, or by a
/// newer build) is refused with a message saying so, not half-migrated.
fn a_database_of_another_build_is_refused_by_name(db: &TestDatabase, store: &Store) {
    db.execute("INSERT INTO __diesel_schema_migrations (version) VALUES ('20261124090000')");
    let err = store.run_migrations().unwrap_err().to_string();
    assert!(err.contains("20261124090000"), "{err}");
    assert!(err.contains("another build"), "{err}");
}

fn migrations_are_idempotent(db: &TestDatabase, store: &Store) {
    assert_eq!(store.run_migrations().unwrap(), Vec::<String>::new());
    // A second store on the same database finds nothing to do either.
    let again = Store::connect(db.url(), equip_persistence::PoolOptions::default()).unwrap();
    assert!(again.run_migrations().unwrap().is_empty());
    // Every table exists and is empty.
    for table in [
        "organizations",
        "api_keys",
        "warehouses",
        "warehouse_grants",
        "offices",
        "skus",
        "packages",
        "people",
        "person_emails",
        "inventory_items",
        "inventory_item_pricing",
        "inventory_item_tags",
        "return_orders",
        "return_order_items",
        "inventory_levels",
        "reminders",
        "outbox_messages",
        "groups",
        "group_members",
        "event_sequences",
        "events",
        "webhooks",
        "webhook_deliveries",
    ] {
        assert_eq!(db.count_rows(table), 0, "{table}");
    }
}

#[test]
fn postgres_fresh_database_is_migrated_once() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let store = Store::connect(db.url(), equip_persistence::PoolOptions::default()).unwrap();
    assert_eq!(store.backend(), Backend::Postgres);
    // Several starters at once: one applies the schema, the others wait for it.
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let store = store.clone();
            std::thread::spawn(move || store.run_migrations().unwrap())
        })
        .collect();
    let mut applied: Vec<Vec<String>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    applied.sort();
    assert!(
        applied[0].is_empty() && applied[1].is_empty(),
        "{applied:?}"
    );
    assert_eq!(
        applied[2].first().map(String::as_str),
        Some("2026-11-21-000000_baseline"),
        "one starter applies every migration"
    );
}

/// What the two schemas may differ in: facts (as the fact queries below
/// write them) found on one backend only, each for a reason. A fact listed
/// here that is no longer found fails the test too, so the list stays true.
const SQLITE_ONLY: &[(&str, &str)] = &[
    // SQLite's substring search is an FTS5 trigram index over the listing;
    // it addresses listing rows by a stable integer rowid, kept current by
    // three triggers. PostgreSQL's is the GIN index
    // `inventory_listing_search_idx`, and `item_id` is its primary key.
    (
        "column inventory_listing.row_id integer not null",
        "FTS5 rowid",
    ),
    ("primary key inventory_listing(row_id)", "FTS5 rowid"),
    (
        "unique inventory_listing(item_id)",
        "PostgreSQL: the primary key",
    ),
    (
        "trigger inventory_listing_search_insert on inventory_listing",
        "FTS5",
    ),
    (
        "trigger inventory_listing_search_update on inventory_listing",
        "FTS5",
    ),
    (
        "trigger inventory_listing_search_delete on inventory_listing",
        "FTS5",
    ),
    // SQLite cannot add a NOT NULL column without a default (migration
    // 2026-11-27-000000_return_lifecycle); PostgreSQL added it nullable,
    // filled it and then set NOT NULL. Every insert names the column.
    (
        "column return_orders.updated_at text not null default 1970-01-01 00:00:00",
        "ALTER TABLE ADD COLUMN NOT NULL",
    ),
];

const POSTGRES_ONLY: &[(&str, &str)] = &[
    (
        "index inventory_listing_search_idx inventory_listing(search_text)",
        "trigram GIN",
    ),
    (
        "primary key inventory_listing(item_id)",
        "SQLite: unique, the rowid is its key",
    ),
    (
        "column return_orders.updated_at text not null",
        "see SQLITE_ONLY",
    ),
    // The key memory follows api_keys by LISTEN/NOTIFY on PostgreSQL
    // (SQLite has one process and no notifications).
    ("trigger api_keys_notify_insert on api_keys", "key memory"),
    ("trigger api_keys_notify_update on api_keys", "key memory"),
    ("trigger api_keys_notify_delete on api_keys", "key memory"),
    // The item counts' changes a PostgreSQL transaction recorded before it
    // applies them under its organization's listing version (migration
    // 2026-12-02-120000_inventory_count_changes: concurrent writers locked
    // the count rows in opposite orders). SQLite's writers take turns and
    // its triggers write the counts directly.
    ("table inventory_count_changes", "count changes"),
    (
        "column inventory_count_changes.txid integer not null",
        "count changes",
    ),
    (
        "column inventory_count_changes.organization_id text not null",
        "count changes",
    ),
    (
        "column inventory_count_changes.deploy_status text not null",
        "count changes",
    ),
    (
        "column inventory_count_changes.category text not null",
        "count changes",
    ),
    (
        "column inventory_count_changes.n integer not null",
        "count changes",
    ),
    (
        "index inventory_count_changes_txid_idx inventory_count_changes(txid)",
        "count changes",
    ),
    (
        "trigger inventory_count_changes_flush on inventory_count_changes",
        "count changes",
    ),
];

#[derive(diesel::QueryableByName)]
struct Fact {
    #[diesel(sql_type = diesel::sql_types::Text)]
    fact: String,
}

fn facts<C>(c: &mut C, sql: &str) -> std::collections::BTreeSet<String>
where
    C: diesel::Connection,
    Fact: diesel::QueryableByName<C::Backend>,
    diesel::query_builder::SqlQuery: diesel::query_dsl::LoadQuery<'static, C, Fact>,
{
    use diesel::RunQueryDsl;
    diesel::sql_query(sql)
        .load::<Fact>(c)
        .unwrap()
        .into_iter()
        .map(|r| r.fact)
        .collect()
}

/// After migrating both, SQLite and PostgreSQL have one schema in two
/// dialects: the same tables; per column the same type (compared as the
/// SQLite storage class the PostgreSQL type is kept in: `date` and
/// `timestamp` are SQLite text, `bigint` its integer), nullability and
/// default; the same indexes (name, table, columns in order, unique,
/// partial), primary keys and unique constraints (by table and columns:
/// SQLite names those itself), foreign keys (columns, the referenced table
/// and columns, the delete and update actions) and triggers (name and
/// table) — except the listed differences, each with its reason. The facts
/// are written by one query per dialect (`schema_facts_*.sql`).
#[test]
fn sqlite_and_postgres_schemas_agree() {
    use diesel::Connection;
    let Some(pg) = TestDatabase::postgres() else {
        return;
    };
    let lite = TestDatabase::sqlite();
    drop((lite.store(), pg.store()));
    let mut sqlite = diesel::sqlite::SqliteConnection::establish(lite.url()).unwrap();
    let mut postgres = diesel::pg::PgConnection::establish(pg.url()).unwrap();
    let mut on_sqlite = facts(&mut sqlite, include_str!("schema_facts_sqlite.sql"));
    let mut on_postgres = facts(&mut postgres, include_str!("schema_facts_postgres.sql"));
    // The comparison saw the schema, not an empty database: each kind of fact.
    for seen in [
        "column inventory_listing.item_json text null",
        "foreign key group_members(organization_id,group_id) -> groups(organization_id,id) on delete cascade on update no action",
        "table people",
    ] {
        assert!(on_sqlite.contains(seen), "{seen}");
    }
    for prefix in ["index ", "unique ", "primary key ", "trigger "] {
        assert!(on_sqlite.iter().any(|f| f.starts_with(prefix)), "{prefix}");
    }
    for (fact, why) in SQLITE_ONLY {
        assert!(
            on_sqlite.remove(*fact),
            "{fact} ({why}) is no longer on SQLite: drop it from SQLITE_ONLY"
        );
    }
    for (fact, why) in POSTGRES_ONLY {
        assert!(
            on_postgres.remove(*fact),
            "{fact} ({why}) is no longer on PostgreSQL: drop it from POSTGRES_ONLY"
        );
    }
    let only_sqlite: Vec<_> = on_sqlite.difference(&on_postgres).collect();
    let only_postgres: Vec<_> = on_postgres.difference(&on_sqlite).collect();
    assert!(
        only_sqlite.is_empty() && only_postgres.is_empty(),
        "the two dialects differ (fix the migration, or list the difference with its reason)\n\
         SQLite only: {only_sqlite:#?}\nPostgreSQL only: {only_postgres:#?}"
    );
}
