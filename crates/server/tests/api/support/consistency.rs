//! Checks of a database after `equip serve` was killed: no half-written person,
//! and on SQLite the file's own integrity and foreign-key checks.

use equip_persistence::test_support::TestDatabase;

/// Every person has exactly `emails` email rows, one of them primary, and
/// every email row has its person; on SQLite, `PRAGMA integrity_check` and
/// `PRAGMA foreign_key_check` report nothing.
pub fn assert_whole_people(db: &TestDatabase, emails: i64) {
    assert_eq!(
        db.count_rows(&format!(
            "people p WHERE (SELECT COUNT(*) FROM person_emails e WHERE e.person_id = p.id) <> {emails}"
        )),
        0,
        "a person without all {emails} of their emails: a half-written user"
    );
    assert_eq!(
        db.count_rows(
            "people p WHERE (SELECT COUNT(*) FROM person_emails e \
             WHERE e.person_id = p.id AND e.is_primary) <> 1"
        ),
        0,
        "a person without exactly one primary email"
    );
    assert_eq!(
        db.count_rows(
            "person_emails e WHERE NOT EXISTS (SELECT 1 FROM people p WHERE p.id = e.person_id)"
        ),
        0,
        "an email row without its person"
    );
    if db.url().starts_with("postgres") {
        return;
    }
    assert_eq!(
        db.count_rows("pragma_integrity_check() WHERE integrity_check <> 'ok'"),
        0,
        "SQLite integrity check"
    );
    assert_eq!(
        db.count_rows("pragma_foreign_key_check()"),
        0,
        "SQLite foreign key check"
    );
}

/// How many of `pairs` (person id, userName) are stored as exactly that: a
/// person with that id and that userName.
pub fn count_stored(db: &TestDatabase, pairs: &[(String, String)]) -> usize {
    let mut found = 0;
    // A few hundred literals per query keeps every statement small.
    for chunk in pairs.chunks(500) {
        let list = chunk
            .iter()
            .map(|(id, user)| format!("'{} {}'", sql_text(id), sql_text(user)))
            .collect::<Vec<_>>()
            .join(",");
        let n = db.count_rows(&format!(
            "people WHERE status = 'ACTIVE' AND (id || ' ' || user_name) IN ({list})"
        ));
        found += usize::try_from(n).unwrap();
    }
    found
}

fn sql_text(s: &str) -> String {
    s.replace('\'', "''")
}
