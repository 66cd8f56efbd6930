//! Health: the database answers, and takes writes (the readiness probe).

use crate::support::*;

storage_tests!(ping_answers, fresh_databases_are_writable,);

fn ping_answers(_db: &TestDatabase, store: &Store) {
    store.ping().unwrap();
}

/// The readiness write check passes on a fresh database (its write matches
/// no row of `health_probe` and is rolled back) and leaves the table's one row.
fn fresh_databases_are_writable(db: &TestDatabase, store: &Store) {
    store.check_writable().unwrap();
    store.check_writable().unwrap();
    assert_eq!(db.count_rows("health_probe"), 1);
}
