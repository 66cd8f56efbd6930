//! The `equip` binary as a script would use it: on a fresh SQLite file per test,
//! ids and keys alone on stdout, messages on stderr, imports that are atomic.
use std::process::Command;

use equip_domain::ids::{OrganizationId, WarehouseId};
use equip_domain::orders::order::Order;
use equip_domain::orders::query::{OrderQuery, RawOrderQuery};
use equip_domain::orders::LineStatus;
use equip_domain::ports::{ApiKeyRepository, OrderRepository, WarehouseRepository};
use equip_persistence::{PoolOptions, Store};
use serde_json::Value;

use crate::support::scratch::Scratch;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/sample-import.json");
const SAMPLE_WAREHOUSE: &str = "5b7c1d0e-8f4a-4c3e-9d2b-1a6e7f8c9d01";
/// The ALLOCATED orders `equip demo --items 150` (default seed) leaves.
const DEMO_ALLOCATED: usize = 1;

impl Scratch {
    /// Creates an organization; its id.
    fn org(&self) -> String {
        let run = self.equip(&["org", "create", "--name", "Acme"]);
        run.ok();
        run.stdout().trim().to_owned()
    }

    /// The directory's database.
    fn store(&self) -> Store {
        Store::connect(self.db().to_str().unwrap(), PoolOptions::default()).unwrap()
    }
}

fn sample() -> Value {
    serde_json::from_str(&std::fs::read_to_string(SAMPLE).unwrap()).unwrap()
}

fn warehouse_name(store: &Store, org: &str) -> String {
    store
        .find_accessible_warehouse(
            OrganizationId::parse(org).unwrap(),
            WarehouseId::parse(SAMPLE_WAREHOUSE).unwrap(),
        )
        .unwrap()
        .expect("the sample warehouse")
        .name
}

#[test]
fn org_create_prints_the_id_alone() {
    let dir = Scratch::new();
    let run = dir.equip(&["org", "create", "--name", "Acme"]);
    run.ok();
    let id = run.single_line();
    assert!(OrganizationId::parse(&id).is_ok(), "{id:?}");
    assert!(run.stderr().contains("equip key create --org"));

    dir.equip(&["org", "create", "--name", "   "]).failed();
}

#[test]
fn database_url_flag_works_like_the_environment() {
    let dir = Scratch::new();
    let other = dir.path("other.db");
    let run = Command::new(env!("CARGO_BIN_EXE_equip"))
        .args(["org", "create", "--name", "Flag", "--database-url"])
        .arg(&other)
        .env_remove("DATABASE_URL")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(other.exists());
    assert!(!dir.db().exists());
}

#[test]
fn migrate_lists_what_it_applied() {
    let dir = Scratch::new();
    let first = dir.equip(&["migrate"]);
    first.ok();
    assert!(first.stdout().is_empty());
    assert!(first.stderr().contains("applied"), "{}", first.stderr());
    let second = dir.equip(&["migrate"]);
    second.ok();
    assert!(
        second.stderr().contains("up to date"),
        "{}",
        second.stderr()
    );
}

#[test]
fn key_create_prints_the_key_alone_and_revoke_works() {
    let dir = Scratch::new();
    let org = dir.org();
    let run = dir.equip(&["key", "create", "--org", &org, "--label", "ci"]);
    run.ok();
    let key = run.single_line();
    assert!(key.starts_with("equip_"), "{key}");
    let err = run.stderr();
    assert!(err.contains("key id: "), "{err}");
    assert!(
        err.contains("scim") && err.contains("inventory:read"),
        "{err}"
    );
    assert!(!err.contains(&key), "the key is not repeated on stderr");

    let scoped = dir.equip(&["key", "create", "--org", &org, "--scope", "warehouses:read"]);
    scoped.ok();
    assert!(scoped.stderr().contains("scopes: warehouses:read\n"));
    let key_id = scoped
        .stderr()
        .lines()
        .find_map(|l| l.strip_prefix("key id: "))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_owned();
    dir.equip(&["key", "revoke", &key_id]).ok();
    dir.equip(&["key", "revoke", &uuid::Uuid::new_v4().to_string()])
        .failed();

    // --no-scopes: a key without any scope; not together with --scope.
    let none = dir.equip(&["key", "create", "--org", &org, "--no-scopes"]);
    none.ok();
    let none_key = none.single_line();
    assert!(none_key.starts_with("equip_"), "{none_key}");
    assert!(none.stderr().contains("scopes: none"), "{}", none.stderr());
    let prefix = &none_key[6..22];
    let stored = dir.store().find_api_key_by_prefix(prefix).unwrap().unwrap();
    assert!(stored.scopes.as_slice().is_empty(), "{stored:?}");
    assert_eq!(stored.organization_id.to_string(), org);
    let both = dir.equip(&[
        "key",
        "create",
        "--org",
        &org,
        "--no-scopes",
        "--scope",
        "scim",
    ]);
    both.failed();
    assert!(
        both.stderr().contains("--no-scopes") && both.stderr().contains("--scope"),
        "{}",
        both.stderr()
    );
    // The help lists every scope.
    let help = dir.equip(&["key", "create", "--help"]);
    help.ok();
    for scope in equip_domain::api_key::Scope::ALL {
        assert!(help.stdout().contains(scope.as_str()), "{}", help.stdout());
    }
    assert!(help.stdout().contains("--no-scopes"));

    let bad = dir.equip(&[
        "key",
        "create",
        "--org",
        &org,
        "--scope",
        "inventory:delete",
    ]);
    bad.failed();
    assert!(bad.stderr().contains("inventory:delete"));
    let unknown_org = dir.equip(&["key", "create", "--org", &uuid::Uuid::new_v4().to_string()]);
    unknown_org.failed();
    assert!(
        unknown_org.stderr().contains("not found"),
        "{}",
        unknown_org.stderr()
    );
}

#[test]
fn the_sample_imports_and_imports_again() {
    let dir = Scratch::new();
    let org = dir.org();
    let first = dir.equip(&["import", "--org", &org, SAMPLE]);
    first.ok();
    assert!(first.stdout().is_empty());
    assert!(
        first
            .stderr()
            .contains("imported 3 warehouses, 2 offices, 3 SKUs, 2 packages, 3 people, 8 inventory items, 2 inventory levels"),
        "{}",
        first.stderr()
    );
    dir.equip(&["import", "--org", &org, SAMPLE]).ok();
    assert_eq!(warehouse_name(&dir.store(), &org), "Berlin Tempelhof");

    // From standard input too, with a change that the upsert applies.
    let mut doc = sample();
    doc["warehouses"][0]["name"] = "Berlin Tempelhof (renamed)".into();
    dir.equip_with_stdin(&["import", "--org", &org, "-"], &doc.to_string())
        .ok();
    assert_eq!(
        warehouse_name(&dir.store(), &org),
        "Berlin Tempelhof (renamed)"
    );
}

#[test]
fn a_broken_file_names_the_entry_and_changes_nothing() {
    let dir = Scratch::new();
    let org = dir.org();
    dir.equip(&["import", "--org", &org, SAMPLE]).ok();

    // A bad value: refused while reading the document.
    let mut doc = sample();
    doc["warehouses"][0]["name"] = "SHOULD NOT BE WRITTEN".into();
    doc["inventory"][6]["deployStatus"] = "GIFTED".into();
    let path = dir.file(
        "bad-status.json",
        &serde_json::to_string_pretty(&doc).unwrap(),
    );
    let run = dir.equip(&["import", "--org", &org, path.to_str().unwrap()]);
    run.failed();
    let err = run.stderr();
    assert!(
        err.contains("inventory[6].deployStatus: unknown value 'GIFTED'"),
        "{err}"
    );
    assert!(err.contains("line "), "{err}");
    assert!(err.contains("nothing was imported"), "{err}");
    assert_eq!(warehouse_name(&dir.store(), &org), "Berlin Tempelhof");

    // A reference the store cannot resolve, in the last entry: the warehouses
    // written before it in the same transaction are rolled back.
    let mut doc = sample();
    doc["warehouses"][0]["name"] = "SHOULD NOT BE WRITTEN".into();
    doc["inventory"][7]["assignedTo"] =
        serde_json::json!({"type": "PERSON", "id": uuid::Uuid::new_v4().to_string()});
    let path = dir.file("bad-reference.json", &doc.to_string());
    let run = dir.equip(&["import", "--org", &org, path.to_str().unwrap()]);
    run.failed();
    assert!(run.stderr().contains("inventory[7]"), "{}", run.stderr());
    assert_eq!(warehouse_name(&dir.store(), &org), "Berlin Tempelhof");

    // A domain rule: an UNAVAILABLE item without a reason.
    let mut doc = sample();
    doc["warehouses"][0]["name"] = "SHOULD NOT BE WRITTEN".into();
    doc["inventory"][3]
        .as_object_mut()
        .unwrap()
        .remove("deployReason");
    let path = dir.file("bad-rule.json", &doc.to_string());
    let run = dir.equip(&["import", "--org", &org, path.to_str().unwrap()]);
    run.failed();
    assert!(
        run.stderr().contains("inventory[3].deployReason"),
        "{}",
        run.stderr()
    );
    assert_eq!(warehouse_name(&dir.store(), &org), "Berlin Tempelhof");

    // The good file still imports.
    dir.equip(&["import", "--org", &org, SAMPLE]).ok();
}

#[test]
fn import_refuses_an_unknown_organization_and_a_missing_file() {
    let dir = Scratch::new();
    dir.equip(&["migrate"]).ok();
    let run = dir.equip(&["import", "--org", &uuid::Uuid::new_v4().to_string(), SAMPLE]);
    run.failed();
    assert!(run.stderr().contains("not found"), "{}", run.stderr());
    let org = dir.org();
    let missing = dir.path("missing.json");
    let run = dir.equip(&["import", "--org", &org, missing.to_str().unwrap()]);
    run.failed();
    assert!(run.stderr().contains("cannot read"), "{}", run.stderr());
    dir.equip(&["import", "--org", "not-a-uuid", SAMPLE])
        .failed();
}

#[test]
fn demo_prints_a_key_and_loads_data() {
    let dir = Scratch::new();
    let run = dir.equip(&["demo", "--items", "150"]);
    run.ok();
    let key = run.single_line();
    assert!(key.starts_with("equip_"), "{key}");
    let err = run.stderr();
    assert!(!err.contains(&key), "the key is not repeated on stderr");
    assert!(err.contains("150 inventory items"), "{err}");
    assert!(err.contains("/api/v1/warehouses/"), "{err}");
    let org = err
        .lines()
        .find_map(|l| l.strip_prefix("demo organization 'Demo Org': "))
        .unwrap()
        .trim()
        .to_owned();
    let warehouse = err
        .split("/api/v1/warehouses/")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    let found = dir
        .store()
        .find_accessible_warehouse(
            OrganizationId::parse(&org).unwrap(),
            WarehouseId::parse(&warehouse).unwrap(),
        )
        .unwrap();
    assert!(found.is_some());

    // Joiners' orders at every stage: the same counts on every run (the
    // seed decides them, not the organization's random ids).
    let joiners = err
        .lines()
        .find_map(|l| l.strip_prefix("joiners' orders: "))
        .unwrap_or_else(|| panic!("no joiners' line: {err}"));
    assert_eq!(
        joiners,
        format!(
            "{DEMO_ALLOCATED} allocated, 2 shipped (1 with a delivery exception), 1 delivered, \
             1 cancelled, 1 waiting for stock"
        ),
        "{err}"
    );
    let organization = OrganizationId::parse(&org).unwrap();
    let orders = |filter: &str| -> Vec<Order> {
        let query = OrderQuery::parse(&RawOrderQuery {
            status: Some(filter.into()),
            size: Some("1000".into()),
            ..RawOrderQuery::default()
        })
        .unwrap();
        dir.store()
            .list_orders(organization, &query)
            .unwrap()
            .orders
    };
    assert_eq!(orders("ALLOCATED").len(), DEMO_ALLOCATED);
    let shipped = orders("SHIPPED");
    assert_eq!(shipped.len(), 2, "one in transit, one stopped");
    let exceptions: Vec<_> = shipped
        .iter()
        .flat_map(|o| &o.shipments)
        .map(|s| s.status)
        .collect();
    let mut exceptions: Vec<&str> = exceptions.iter().map(|s| s.as_str()).collect();
    exceptions.sort_unstable();
    assert_eq!(exceptions, ["DELIVERY_EXCEPTION", "SHIPPED"]);
    assert_eq!(orders("DELIVERED").len(), 1);
    let cancelled = orders("CANCELLED");
    assert_eq!(cancelled.len(), 1, "a joiner deactivated before shipping");
    assert!(cancelled[0]
        .lines
        .iter()
        .all(|l| l.status == LineStatus::Cancelled && l.item_id.is_none()));
    let waiting = orders("PENDING");
    assert_eq!(waiting.len(), 1, "one backorder");
    assert!(waiting[0]
        .lines
        .iter()
        .any(|l| l.status == LineStatus::Backordered));

    // A second demo into the same database: its ids do not collide.
    dir.equip(&["demo", "--items", "20", "--name", "Second Demo"])
        .ok();
}

#[test]
fn org_list_and_key_list_find_lost_ids_and_never_show_a_key() {
    let dir = Scratch::new();
    let empty = dir.equip(&["org", "list"]);
    empty.ok();
    assert_eq!(empty.stdout(), "ID  CREATED  NAME\n");
    assert!(
        empty.stderr().contains("no organization yet"),
        "{}",
        empty.stderr()
    );

    let acme = dir.org();
    let other = dir.equip(&["org", "create", "--name", "Beta Corp"]);
    other.ok();
    let beta = other.single_line();
    let list = dir.equip(&["org", "list"]);
    list.ok();
    let listed = list.stdout();
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 3, "{listed}");
    assert!(
        lines[0].starts_with("ID") && lines[0].ends_with("NAME"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with(&acme) && lines[1].ends_with("  Acme"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with(&beta) && lines[2].ends_with("  Beta Corp"),
        "{}",
        lines[2]
    );
    let json = dir.equip(&["org", "list", "--json"]);
    json.ok();
    let orgs: Value = serde_json::from_str(&json.stdout()).unwrap();
    assert_eq!(orgs[0]["id"], acme.as_str());
    assert_eq!(orgs[1]["name"], "Beta Corp");
    assert!(orgs[1]["createdAt"].as_str().unwrap().ends_with('Z'));

    // Keys: every scope, some, none; one revoked; another organization's.
    let make = |args: &[&str]| {
        let run = dir.equip(&[&["key", "create", "--org", &acme][..], args].concat());
        run.ok();
        let id = run
            .stderr()
            .lines()
            .find_map(|l| l.strip_prefix("key id: "))
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap()
            .to_owned();
        (run.single_line(), id)
    };
    let (all_key, all_id) = make(&["--label", "Okta provisioning"]);
    let (some_key, some_id) = make(&["--scope", "scim,inventory:read"]);
    let (none_key, none_id) = make(&["--no-scopes", "--label", "who am i"]);
    dir.equip(&["key", "revoke", &some_id]).ok();
    let (beta_key, _) = {
        let run = dir.equip(&["key", "create", "--org", &beta]);
        run.ok();
        (run.single_line(), ())
    };

    let keys = dir.equip(&["key", "list", "--org", &acme]);
    keys.ok();
    let out = &keys.stdout();
    for secret in [&all_key, &some_key, &none_key, &beta_key] {
        assert!(!out.contains(secret.as_str()), "a key is shown: {out}");
        // Not even the secret part after the prefix.
        assert!(!out.contains(&secret[23..]), "{out}");
        assert!(!keys.stderr().contains(&secret[23..]));
    }
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(
        lines[0]
            .split_whitespace()
            .eq(["ID", "PREFIX", "CREATED", "REVOKED", "SCOPES", "LABEL"]),
        "{}",
        lines[0]
    );
    let row = |id: &str| -> Vec<&str> {
        lines
            .iter()
            .find(|l| l.starts_with(id))
            .unwrap_or_else(|| panic!("{id} missing: {out}"))
            .split_whitespace()
            .collect()
    };
    let all = row(&all_id);
    assert_eq!(
        all[1],
        format!("{}…", &all_key[..23]),
        "the prefix as the key starts"
    );
    assert_eq!(all[3], "-");
    assert_eq!(all[4], "all");
    assert_eq!(all[5..].join(" "), "Okta provisioning");
    let some = row(&some_id);
    assert!(some[3].ends_with('Z'), "revoked: {some:?}");
    assert_eq!(some[4], "inventory:read,scim", "in the stored order");
    assert_eq!(some.len(), 5, "no label: {some:?}");
    let none = row(&none_id);
    assert_eq!(none[4], "none");
    assert_eq!(none[5..].join(" "), "who am i");

    let json = dir.equip(&["key", "list", "--org", &acme, "--json"]);
    json.ok();
    assert!(!json.stdout().contains(&all_key[23..]));
    let listed: Value = serde_json::from_str(&json.stdout()).unwrap();
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 3);
    assert_eq!(listed[0]["id"], all_id.as_str());
    assert_eq!(listed[0]["prefix"], &all_key[6..22]);
    assert_eq!(listed[0]["label"], "Okta provisioning");
    assert_eq!(listed[0]["revokedAt"], Value::Null);
    assert_eq!(
        listed[1]["scopes"],
        serde_json::json!(["inventory:read", "scim"])
    );
    assert!(listed[1]["revokedAt"].is_string());
    assert_eq!(listed[2]["scopes"], serde_json::json!([]));
    assert_eq!(
        listed[0].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["createdAt", "id", "label", "prefix", "revokedAt", "scopes"]
    );

    let unknown = dir.equip(&["key", "list", "--org", &uuid::Uuid::new_v4().to_string()]);
    unknown.failed();
    assert!(
        unknown.stderr().contains("not found"),
        "{}",
        unknown.stderr()
    );
    dir.equip(&["key", "list", "--org", "nope"]).failed();
}

#[test]
fn version_names_the_commit() {
    let dir = Scratch::new();
    let run = dir.equip(&["--version"]);
    run.ok();
    let line = run.single_line();
    let version = env!("CARGO_PKG_VERSION");
    let commit = line
        .strip_prefix(&format!("equip {version} (commit "))
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{line}"));
    // The checkout's HEAD, when the tests run in one and the build was not
    // told another commit.
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    match (head, std::env::var("EQUIP_COMMIT")) {
        (Some(head), Err(_)) => assert_eq!(commit, head, "{line}"),
        _ => assert!(!commit.is_empty(), "{line}"),
    }
    // Every subcommand says the same (after its own name).
    let serve = dir.equip(&["serve", "--version"]);
    serve.ok();
    assert_eq!(
        serve.single_line(),
        line.replacen("equip ", "equip-serve ", 1)
    );
}

#[test]
fn a_second_demo_gives_a_new_key_of_the_first_instead_of_a_second_organization() {
    let dir = Scratch::new();
    let first = dir.equip(&["demo", "--items", "20"]);
    first.ok();
    let first_key = first.single_line();
    let org_of = |stderr: &str| {
        stderr
            .lines()
            .find_map(|l| l.strip_prefix("demo organization 'Demo Org': "))
            .unwrap_or_else(|| panic!("{stderr}"))
            .trim()
            .to_owned()
    };
    let org = org_of(&first.stderr());
    let items = |store: &Store| {
        store
            .count_organizations()
            .map(|n| {
                (
                    n,
                    store
                        .list_api_keys(OrganizationId::parse(&org).unwrap())
                        .unwrap()
                        .len(),
                )
            })
            .unwrap()
    };
    use equip_domain::ports::OrganizationRepository as _;
    assert_eq!(items(&dir.store()), (1, 1));

    let second = dir.equip(&["demo", "--items", "20"]);
    second.ok();
    let key = second.single_line();
    assert!(key.starts_with("equip_") && key != first_key, "{key}");
    let err = &second.stderr();
    assert_eq!(org_of(err), org, "the same organization");
    assert!(err.contains("has it already"), "{err}");
    assert!(
        !err.contains(&key[23..]),
        "the key is not repeated on stderr"
    );
    // No second organization, a second key of the first, which works.
    assert_eq!(items(&dir.store()), (1, 2));
    let stored = dir
        .store()
        .find_api_key_by_prefix(&key[6..22])
        .unwrap()
        .unwrap();
    assert_eq!(stored.organization_id.to_string(), org);
    assert_eq!(stored.label.as_deref(), Some("demo"));
    assert_eq!(stored.scopes, equip_domain::api_key::Scopes::all());
    let listed = dir.equip(&["org", "list"]);
    assert_eq!(
        listed.stdout().matches("Demo Org").count(),
        1,
        "{}",
        listed.stdout()
    );

    // Another name makes another organization.
    dir.equip(&["demo", "--items", "20", "--name", "Other Demo"])
        .ok();
    assert_eq!(dir.store().count_organizations().unwrap(), 2);
}

#[test]
fn healthcheck_exits_zero_only_when_serve_is_ready() {
    let dir = Scratch::new();
    let db = dir.db().display().to_string();
    let serve = crate::support::process::Serve::start(&db, &[]);
    let ok = dir.equip(&["healthcheck", "--bind", &serve.addr]);
    ok.ok();
    assert!(ok.stdout().is_empty(), "{}", ok.stdout());
    assert!(ok.stderr().contains("is ready"), "{}", ok.stderr());
    // An unspecified host is asked on loopback, as a container's
    // EQUIP_BIND=0.0.0.0:8080 says.
    let port = serve.addr.rsplit(':').next().unwrap().to_owned();
    dir.equip(&["healthcheck", "--bind", &format!("0.0.0.0:{port}")])
        .ok();
    drop(serve);
    // Nothing listening there any more.
    let down = dir.equip(&["healthcheck", "--bind", &format!("127.0.0.1:{port}")]);
    down.failed();
    assert!(
        down.stderr().contains("cannot connect"),
        "{}",
        down.stderr()
    );
    dir.equip(&["healthcheck", "--bind", "8080"]).failed();
}
