//! Rolling back: an older `equip` started on a database a newer one migrated
//! refuses it, says which migration and which equip version applied it, and
//! says what to do (run that version, or restore the backup taken before the
//! upgrade), not to start from a new database. Through the real binary, on
//! SQLite and PostgreSQL.
use equip_persistence::test_support::TestDatabase;

use crate::support::scratch::Scratch;

fn an_older_equip_names_the_newer_one_and_the_backup(db: &TestDatabase) {
    let scratch = Scratch::new();
    scratch.equip_on(db.url(), &["migrate"]).ok();
    // What a newer equip, 9.9.9, would leave: a migration this build does
    // not know, recorded with the version that applied it.
    db.execute(
        "INSERT INTO __diesel_schema_migrations (version) VALUES ('20991231000000');
         INSERT INTO migration_versions (migration, name, equip_version, applied_at)
             VALUES ('20991231000000', '2099-12-31-000000_future', '9.9.9', '2099-12-31 00:00:00')",
    );
    for command in [&["migrate"][..], &["serve", "--bind", "127.0.0.1:0"][..]] {
        let run = scratch.equip_on(db.url(), command);
        run.failed();
        let err = run.stderr();
        assert!(
            err.contains("migrated by a newer equip"),
            "{command:?}: {err}"
        );
        assert!(
            err.contains(&format!("equip {}", env!("CARGO_PKG_VERSION"))),
            "{command:?}: {err}"
        );
        assert!(
            err.contains("2099-12-31-000000_future (applied by equip 9.9.9)"),
            "{command:?}: {err}"
        );
        assert!(
            err.contains("run equip 9.9.9 (or newer)"),
            "{command:?}: {err}"
        );
        assert!(
            err.contains("restore the backup taken before the upgrade"),
            "{command:?}: {err}"
        );
        assert!(!err.contains("new database"), "{command:?}: {err}");
    }
}

mod sqlite {
    #[test]
    fn an_older_equip_names_the_newer_one_and_the_backup() {
        super::an_older_equip_names_the_newer_one_and_the_backup(&super::TestDatabase::sqlite());
    }
}

mod postgres {
    #[test]
    fn an_older_equip_names_the_newer_one_and_the_backup() {
        let Some(db) = super::TestDatabase::postgres() else {
            return;
        };
        super::an_older_equip_names_the_newer_one_and_the_backup(&db);
    }
}
