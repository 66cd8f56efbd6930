//! Planner statistics after large writes.

use crate::support::*;

#[test]
fn postgres_statistics_are_refreshed_when_stale() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let store = db.store();
    let org = new_org(&store, "Stats");
    for i in 0..120 {
        store
            .insert_person(&person(&org, &format!("u{i}@stats.example")))
            .unwrap();
    }
    // The server's activity counters reach pg_stat_user_tables within a
    // second or so of the commits.
    let start = std::time::Instant::now();
    let analyzed = loop {
        let tables = store.refresh_statistics().unwrap();
        if tables.iter().any(|t| t == "people") {
            break tables;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "people never analyzed: {tables:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert!(
        analyzed.iter().any(|t| t == "person_emails"),
        "{analyzed:?}"
    );
    // Nothing changed since: nothing to do.
    let again = store.refresh_statistics().unwrap();
    assert!(!again.iter().any(|t| t == "people"), "{again:?}");
}

#[test]
fn sqlite_statistics_refresh_does_nothing() {
    let db = TestDatabase::sqlite();
    let store = db.store();
    assert!(store.refresh_statistics().unwrap().is_empty());
}
