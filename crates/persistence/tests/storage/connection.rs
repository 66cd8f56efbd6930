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
