//! Connections: URLs, SQLite files and pragmas, write sessions.

use crate::support::*;

storage_tests!(write_sessions_commit_each_write_durably,);

#[test]
fn sqlite_pragmas_are_set_on_pooled_connections() {
    let db = TestDatabase::sqlite();
    let store = db.store();
    let n = 4;
    assert_eq!(store.pooled_sqlite_pragma("foreign_keys", n), vec!["1"; n]);
    assert_eq!(
        store.pooled_sqlite_pragma("journal_mode", n),
        vec!["wal"; n]
    );
    assert_eq!(
        store.pooled_sqlite_pragma("busy_timeout", n),
        vec!["5000"; n]
    );
    // synchronous = NORMAL is 1.
    assert_eq!(store.pooled_sqlite_pragma("synchronous", n), vec!["1"; n]);
    // The memory defaults: 1 GiB mapped, 2 MiB of page cache.
    assert_eq!(
        store.pooled_sqlite_pragma("mmap_size", n),
        vec!["1073741824"; n]
    );
    assert_eq!(
        store.pooled_sqlite_pragma("cache_size", n),
        vec!["-2048"; n]
    );
}

#[test]
fn sqlite_memory_settings_reach_every_connection() {
    let db = TestDatabase::sqlite();
    let store = Store::connect(
        db.url(),
        equip_persistence::PoolOptions {
            sqlite_memory: equip_persistence::SqliteMemory {
                mmap_mib: 16,
                cache_mib: 5,
            },
            ..equip_persistence::PoolOptions::default()
        },
    )
    .unwrap();
    let n = 3;
    assert_eq!(
        store.pooled_sqlite_pragma("mmap_size", n),
        vec!["16777216"; n]
    );
    assert_eq!(
        store.pooled_sqlite_pragma("cache_size", n),
        vec!["-5120"; n]
    );
}

#[test]
fn sqlite_file_is_created_in_an_existing_directory_only() {
    let db = TestDatabase::sqlite();
    let dir = std::path::Path::new(db.url()).parent().unwrap().to_owned();
    // A directory that does not exist (a typo) is refused by name, not created.
    let nested = dir.join("a/b/equip.db");
    let err = Store::connect(
        &format!("sqlite://{}", nested.display()),
        equip_persistence::PoolOptions::default(),
    )
    .unwrap_err();
    match &err {
        equip_persistence::PersistenceError::MissingDirectory(missing) => {
            assert_eq!(missing, &dir.join("a/b"));
        }
        other => panic!("{other:?}"),
    }
    assert!(err
        .to_string()
        .contains(&dir.join("a/b").display().to_string()));
    assert!(!dir.join("a").exists());
    // In a directory that exists, the file is created and migrated.
    let file = dir.join("other.db");
    let url = format!("sqlite://{}", file.display());
    let store = Store::connect(&url, equip_persistence::PoolOptions::default()).unwrap();
    let applied = store.run_migrations().unwrap();
    assert_eq!(
        applied.first().map(String::as_str),
        Some("2026-11-21-000000_baseline")
    );
    assert!(file.exists());
    assert!(store.run_migrations().unwrap().is_empty());
}

/// SQLite's writer queue is one database's: a store holding it does not
/// hold up a write to another file, and a second store on its own file
/// waits in the same queue.
#[test]
fn sqlite_writers_queue_per_database_file() {
    use std::sync::mpsc::channel;
    use std::time::Duration;
    let (a, b) = (TestDatabase::sqlite(), TestDatabase::sqlite());
    let (store_a, store_b) = (a.store(), b.store());
    let org_b = new_org(&store_b, "Other File");
    let again = a.store();
    let org_a = new_org(&again, "Same File");
    let held = store_a.hold_sqlite_writer();
    let (store_b, again) = (&store_b, &again);
    let (org_a, org_b) = (&org_a, &org_b);
    std::thread::scope(|s| {
        let (other_done, other) = channel();
        s.spawn(move || {
            store_b
                .insert_person(&person(org_b, "ada@example.com"))
                .unwrap();
            other_done.send(()).unwrap();
        });
        other
            .recv_timeout(Duration::from_secs(10))
            .expect("a write to another file waited for this file's writer");
        let (same_done, same) = channel();
        s.spawn(move || {
            again
                .insert_person(&person(org_a, "grace@example.com"))
                .unwrap();
            same_done.send(()).unwrap();
        });
        assert!(
            same.recv_timeout(Duration::from_millis(300)).is_err(),
            "a write to the same file did not wait for its writer"
        );
        drop(held);
        same.recv_timeout(Duration::from_secs(10)).unwrap();
    });
}

#[test]
fn unsupported_urls_are_refused() {
    for url in [
        "mysql://localhost/db",
        // Mistyped schemes: never a SQLite path.
        "postgres//localhost/db",
        "postgres:/localhost/db",
        // A password that is not percent-encoded.
        "postgres://u:pa@ss%word@localhost/db",
    ] {
        let err = Store::connect(url, equip_persistence::PoolOptions::default()).unwrap_err();
        assert!(
            matches!(err, equip_persistence::PersistenceError::InvalidUrl(_)),
            "{url}: {err:?}"
        );
        assert!(!err.to_string().contains("ss%word"), "{err}");
    }
}

fn write_sessions_commit_each_write_durably(_db: &TestDatabase, store: &Store) {
    let session = store.session().unwrap();
    if store.backend() == Backend::Postgres {
        // A commit waits for the WAL flush: what a session reports, or lets
        // another reader see, a crash of the server cannot take back.
        assert_eq!(
            session.postgres_setting("synchronous_commit").as_deref(),
            Some("on")
        );
    }
    // A session of a session is the same connection.
    let nested = session.session().unwrap();
    let now = Utc::now();
    let org = Organization {
        id: OrganizationId::new(),
        name: OrganizationName::parse("Session Org").unwrap(),
        created_at: now,
    };
    nested.insert_organization(&org).unwrap();
    // Committed on its own: visible to another connection at once.
    assert!(store.find_organization(org.id).unwrap().is_some());
    drop(nested);
    drop(session);
}

// ---------------------------------------------------------------------------
// Non-ASCII case folding
// ---------------------------------------------------------------------------
