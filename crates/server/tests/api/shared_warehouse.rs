//! Review finding 11: an organization's import cannot change or grant a
//! shared (operator) warehouse; `equip warehouse grant` / `revoke` are the
//! operator's way. The real binary, on SQLite and on PostgreSQL.
use std::process::{Command, Output};

use equip_domain::ids::{OrganizationId, WarehouseId};
use equip_domain::ports::WarehouseRepository;
use equip_persistence::test_support::TestDatabase;
use serde_json::json;

const SHARED: &str = "a1000000-0000-4000-8000-0000000000aa";

fn equip(db: &TestDatabase, args: &[&str], stdin: Option<&str>) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_equip"))
        .args(args)
        .env("DATABASE_URL", db.url())
        .env("RUST_LOG", "warn")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input
        .write_all(stdin.unwrap_or_default().as_bytes())
        .unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn org(db: &TestDatabase, name: &str) -> OrganizationId {
    let out = equip(db, &["org", "create", "--name", name], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    OrganizationId::parse(text(&out.stdout).trim()).unwrap()
}

/// A document with the shared warehouse named `name`.
fn document(name: &str) -> String {
    json!({"warehouses": [{
        "id": SHARED,
        "name": name,
        "address": {"street1": "Waalhaven Zuidzijde 19", "street2": null, "city": "Rotterdam",
                    "province": "Zuid-Holland", "postalCode": "3089 JH", "countryCode": "NL",
                    "phoneNumber": null},
        "shared": true
    }]})
    .to_string()
}

fn import(db: &TestDatabase, org: OrganizationId, doc: &str) -> Output {
    equip(db, &["import", "--org", &org.to_string(), "-"], Some(doc))
}

#[test]
fn sqlite_an_import_cannot_change_or_grant_a_shared_warehouse() {
    an_import_cannot_change_or_grant_a_shared_warehouse(&TestDatabase::sqlite());
}

#[test]
fn postgres_an_import_cannot_change_or_grant_a_shared_warehouse() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    an_import_cannot_change_or_grant_a_shared_warehouse(&db);
}

fn an_import_cannot_change_or_grant_a_shared_warehouse(db: &TestDatabase) {
    let a = org(db, "Operator customer A");
    let b = org(db, "Customer B");
    let w = WarehouseId::parse(SHARED).unwrap();
    // A new shared warehouse in an import is created and granted (docs/import.md).
    let out = import(db, a, &document("Operator EU Hub Rotterdam"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let store = db.store();
    // What A (granted it from its own import) sees.
    let stored_name = |store: &equip_persistence::Store| {
        store
            .find_accessible_warehouse(a, w)
            .unwrap()
            .map(|w| w.name)
    };
    assert_eq!(
        stored_name(&store).as_deref(),
        Some("Operator EU Hub Rotterdam")
    );
    assert_eq!(db.count_rows("warehouse_grants"), 1);

    // B's import renaming it: refused, naming the warehouse; nothing written.
    let out = import(db, b, &document("Hijacked by B"));
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains(SHARED) && err.contains("warehouses[0]"),
        "{err}"
    );
    assert!(err.contains("shared operator warehouse"), "{err}");
    assert_eq!(
        stored_name(&store).as_deref(),
        Some("Operator EU Hub Rotterdam")
    );
    assert_eq!(db.count_rows("warehouse_grants"), 1);
    assert!(store.find_accessible_warehouse(b, w).unwrap().is_none());

    // Restating it unchanged does not grant it either.
    let out = import(db, b, &document("Operator EU Hub Rotterdam"));
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains(SHARED) && err.contains("cannot grant"),
        "{err}"
    );
    assert_eq!(db.count_rows("warehouse_grants"), 1);
    assert!(store.find_accessible_warehouse(b, w).unwrap().is_none());

    // A, which is granted it, cannot rename it for everyone either.
    let out = import(db, a, &document("Renamed by A"));
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("cannot change"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        stored_name(&store).as_deref(),
        Some("Operator EU Hub Rotterdam")
    );
    // Re-importing the same file stays possible.
    let out = import(db, a, &document("Operator EU Hub Rotterdam"));
    assert!(out.status.success(), "{}", text(&out.stderr));

    // The operator grants it: B sees it, and B's import may restate it.
    let grant = |command: &str, org: OrganizationId| {
        equip(
            db,
            &[
                "warehouse",
                command,
                "--warehouse",
                SHARED,
                "--org",
                &org.to_string(),
            ],
            None,
        )
    };
    let out = grant("grant", b);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("granted"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(db.count_rows("warehouse_grants"), 2);
    let seen = store.find_accessible_warehouse(b, w).unwrap();
    assert_eq!(
        seen.map(|w| w.name).as_deref(),
        Some("Operator EU Hub Rotterdam")
    );
    let out = import(db, b, &document("Operator EU Hub Rotterdam"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Granting twice is harmless.
    assert!(grant("grant", b).status.success());
    assert_eq!(db.count_rows("warehouse_grants"), 2);

    // Revoke takes it back.
    let out = grant("revoke", b);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(store.find_accessible_warehouse(b, w).unwrap().is_none());
    assert!(store.find_accessible_warehouse(a, w).unwrap().is_some());
    assert_eq!(db.count_rows("warehouse_grants"), 1);

    // An owned warehouse is not granted; unknown ids are named.
    let owned = "a1000000-0000-4000-8000-0000000000bb";
    let doc = json!({"warehouses": [{"id": owned, "name": "A's own", "address": null}]});
    assert!(import(db, a, &doc.to_string()).status.success());
    let out = equip(
        db,
        &[
            "warehouse",
            "grant",
            "--warehouse",
            owned,
            "--org",
            &b.to_string(),
        ],
        None,
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("owned by organization"),
        "{}",
        text(&out.stderr)
    );
    let missing = "a1000000-0000-4000-8000-0000000000cc";
    let out = equip(
        db,
        &[
            "warehouse",
            "grant",
            "--warehouse",
            missing,
            "--org",
            &b.to_string(),
        ],
        None,
    );
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains(missing), "{}", text(&out.stderr));
    assert_eq!(db.count_rows("warehouse_grants"), 1);
}
