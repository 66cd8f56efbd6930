//! Review finding 3: PostgreSQL connections terminated
//! (`pg_terminate_backend`, as an administrator or a failover does) while
//! `equip serve` (the real binary) runs a SCIM Bulk request, a CSV upload, or
//! a stream of single SCIM reads.
//!
//! - A Bulk or CSV run goes on with a fresh connection; its answer is a
//!   BulkResponse with one result per operation: 201 for each create that
//!   committed (a batch of creates whose connection was lost is settled on
//!   the fresh one: what it stored is read back, the rest written again), 503
//!   for an operation a lost connection interrupted otherwise (or, when the
//!   database stays unavailable, "not run"). The users reported created are
//!   exactly the users stored (compared with the database and with a SCIM
//!   list afterwards).
//! - A single request on a lost connection answers 503 with the SCIM error
//!   body, never 500.
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::support::consistency::count_stored;
use crate::support::process::{Api, Response, Serve};
use equip_persistence::test_support::TestDatabase;
use serde_json::{json, Value};

/// Operations of the Bulk request: the maximum.
const BULK_OPS: usize = 1_000;
/// Rows of the CSV upload.
const CSV_ROWS: usize = 3_000;
/// The server's connections are terminated each time this many more people
/// are stored.
const STEP: i64 = 150;
/// Clients reading at once while connections are terminated.
const READERS: usize = 4;
const CSV_HEADER: &str = "id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number";

fn serve(db: &TestDatabase) -> Serve {
    Serve::start(db.url(), &["--workers", "2", "--no-dispatcher"])
}

/// Runs `work` while a helper thread terminates every connection to the
/// database each time [`STEP`] more people are stored; returns what `work`
/// returned and how many times connections were terminated.
fn with_terminations<T: Send>(db: &TestDatabase, work: impl FnOnce() -> T + Send) -> (T, usize) {
    let done = AtomicBool::new(false);
    let terminations = AtomicUsize::new(0);
    let result = std::thread::scope(|s| {
        s.spawn(|| {
            let mut next = STEP;
            while !done.load(Ordering::Relaxed) {
                let stored = db.count_rows("people");
                if stored >= next {
                    if db.terminate_connections() > 0 {
                        terminations.fetch_add(1, Ordering::Relaxed);
                    }
                    next = stored + STEP;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        let result = work();
        done.store(true, Ordering::Relaxed);
        result
    });
    (result, terminations.into_inner())
}

/// A SCIM request answered, retried while it answers 503 (the first requests
/// after a termination may still meet a connection that was lost); never 500.
fn until_served(mut send: impl FnMut() -> Response) -> Response {
    let start = Instant::now();
    loop {
        let resp = send();
        assert_ne!(resp.status, 500, "500: {}", resp.text());
        if resp.status != 503 || start.elapsed() > Duration::from_secs(20) {
            return resp;
        }
        assert_scim_error(&resp);
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn assert_scim_error(resp: &Response) {
    let body = resp.json();
    assert_eq!(
        body["schemas"][0], "urn:ietf:params:scim:api:messages:2.0:Error",
        "{body}"
    );
    assert_eq!(body["status"], resp.status.to_string(), "{body}");
}

/// Checks a BulkResponse of `expected` operations and returns the (person id,
/// userName) of every operation reported created; `user_name` maps a
/// `bulkId` to the userName its operation created.
fn reported_creates(
    resp: &Response,
    expected: usize,
    user_name: impl Fn(&str) -> String,
) -> (Vec<(String, String)>, usize) {
    assert_eq!(resp.status, 200, "{}", resp.text());
    let body = resp.json();
    assert_eq!(
        body["schemas"][0],
        "urn:ietf:params:scim:api:messages:2.0:BulkResponse"
    );
    let ops = body["Operations"].as_array().unwrap();
    assert_eq!(ops.len(), expected, "one result per operation");
    let mut created = Vec::new();
    let mut unavailable = 0;
    for op in ops {
        let bulk_id = op["bulkId"].as_str().unwrap();
        match op["status"].as_str().unwrap() {
            "201" => {
                let location = op["location"].as_str().unwrap();
                let id = location.rsplit('/').next().unwrap().to_owned();
                created.push((id, user_name(bulk_id)));
            }
            "503" => {
                assert_eq!(op["response"]["status"], "503", "{op}");
                if std::env::var("DEBUG_LOST").is_ok() && unavailable < 4 {
                    eprintln!("{op}");
                }
                unavailable += 1;
            }
            other => panic!("unexpected status {other}: {op}"),
        }
    }
    (created, unavailable)
}

/// The users reported created are stored, under the ids reported, and
/// nothing else is: in the database and in a SCIM list.
fn assert_exactly_stored(db: &TestDatabase, api: &Api, created: &[(String, String)]) {
    assert_eq!(
        count_stored(db, created),
        created.len(),
        "reported but not stored"
    );
    assert_eq!(
        db.count_rows("people"),
        i64::try_from(created.len()).unwrap(),
        "stored but not reported"
    );
    let list = until_served(|| api.get("/scim/v2/Users?count=1").unwrap());
    assert_eq!(list.status, 200, "{}", list.text());
    assert_eq!(list.json()["totalResults"], created.len());
}

#[test]
fn postgres_bulk_with_terminated_connections_reports_exactly_what_is_stored() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let key = crate::support::process::organization_with_key(&db, "Lost Org");
    let server = serve(&db);
    let api = server.client(&key);
    let user = |i: usize| format!("lost{i}@acme.example");
    let operations: Vec<Value> = (0..BULK_OPS)
        .map(|i| {
            json!({
                "method": "POST",
                "path": "/Users",
                "bulkId": format!("b{i}"),
                "data": {
                    "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                    "userName": user(i),
                    "name": {"givenName": "Ada", "familyName": format!("L{i}")},
                    "emails": [{"primary": true, "type": "work", "value": user(i)}],
                    "active": true
                }
            })
        })
        .collect();
    let body = json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        "Operations": operations
    });
    let (resp, terminations) =
        with_terminations(&db, || api.scim_post("/scim/v2/Bulk", &body).unwrap());
    assert!(terminations > 0, "no connection was terminated mid-run");
    let (created, unavailable) = reported_creates(&resp, BULK_OPS, |bulk_id| {
        user(bulk_id.trim_start_matches('b').parse().unwrap())
    });
    // A batch of creates that met a lost connection is settled on a fresh
    // one (what it stored is read back, the rest written again): it answers
    // 201s, not 503s.
    assert!(
        unavailable > 0 || server.log().contains("checking which were stored"),
        "no operation met a lost connection"
    );
    assert!(
        created.len() > BULK_OPS / 2,
        "the run went on with fresh connections: {} created, {unavailable} unavailable",
        created.len()
    );
    assert_exactly_stored(&db, &api, &created);
    eprintln!(
        "bulk: {terminations} terminations, {} created, {unavailable} answered 503",
        created.len()
    );
}

#[test]
fn postgres_csv_upload_with_terminated_connections_reports_exactly_what_is_stored() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let key = crate::support::process::organization_with_key(&db, "Lost CSV Org");
    let server = serve(&db);
    let api = server.client(&key);
    let user = |i: usize| format!("csvlost{i}@acme.example");
    let mut csv = String::from(CSV_HEADER);
    csv.push('\n');
    let mut by_row = HashMap::new();
    for i in 0..CSV_ROWS {
        csv.push_str(&format!(",First{i},Last{i},{},,,,,,,,,,yes,\n", user(i)));
        by_row.insert(format!("row-{}", i + 2), user(i));
    }
    let (content_type, body) = crate::support::process::csv_form(&csv);
    let (resp, terminations) = with_terminations(&db, || {
        api.post("/scim/v2/Users/csv", &content_type, &body)
            .unwrap()
    });
    if std::env::var("DEBUG_LOST").is_ok() {
        for line in server.log().lines().filter(|l| l.contains("WARN")).take(40) {
            eprintln!("{line}");
        }
    }
    assert!(terminations > 0, "no connection was terminated mid-run");
    let (created, unavailable) =
        reported_creates(&resp, CSV_ROWS, |bulk_id| by_row[bulk_id].clone());
    assert!(
        unavailable > 0 || server.log().contains("checking which were stored"),
        "no row met a lost connection"
    );
    assert!(created.len() > CSV_ROWS / 2, "{} created", created.len());
    assert_exactly_stored(&db, &api, &created);
    eprintln!(
        "csv: {terminations} terminations, {} created, {unavailable} answered 503",
        created.len()
    );
}

#[test]
fn postgres_single_scim_reads_answer_503_never_500_while_connections_are_terminated() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    let key = crate::support::process::organization_with_key(&db, "Reads Org");
    let server = serve(&db);
    let api = server.client(&key);
    // 1,000 users, so that a list page takes a while (its count and page
    // run in one transaction, which a termination may interrupt: that was
    // a 500).
    let operations: Vec<Value> = (0..BULK_OPS)
        .map(|i| {
            let email = format!("read{i}@acme.example");
            json!({
                "method": "POST", "path": "/Users", "bulkId": format!("r{i}"),
                "data": {
                    "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                    "userName": email,
                    "name": {"givenName": "Ada", "familyName": "Lovelace"},
                    "emails": [{"primary": true, "type": "work", "value": email}]
                }
            })
        })
        .collect();
    let resp = api
        .scim_post(
            "/scim/v2/Bulk",
            &json!({
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
                "Operations": operations
            }),
        )
        .unwrap();
    assert_eq!(resp.status, 200, "{}", resp.text());
    let ids: Vec<String> = resp.json()["Operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|op| {
            let location = op["location"].as_str().unwrap();
            location.rsplit('/').next().unwrap().to_owned()
        })
        .collect();
    let done = AtomicBool::new(false);
    let ok = AtomicUsize::new(0);
    let unavailable = AtomicUsize::new(0);
    let terminations = std::thread::scope(|s| {
        let killer = s.spawn(|| {
            let mut n = 0;
            while !done.load(Ordering::Relaxed) {
                n += db.terminate_connections();
                std::thread::sleep(Duration::from_millis(20));
            }
            n
        });
        let readers: Vec<_> = (0..READERS)
            .map(|r| {
                let (api, ids, ok, unavailable) = (&api, &ids, &ok, &unavailable);
                s.spawn(move || {
                    let start = Instant::now();
                    let mut i = r;
                    while start.elapsed() < Duration::from_secs(8) {
                        let path = match i % 3 {
                            0 => format!("/scim/v2/Users?count=200&startIndex={}", i % 800),
                            1 => format!(
                                "/scim/v2/Users?filter=userName%20eq%20%22read{}%40acme.example%22",
                                i % 1000
                            ),
                            _ => format!("/scim/v2/Users/{}", ids[i % ids.len()]),
                        };
                        let resp = api.get(&path).unwrap();
                        match resp.status {
                            200 => ok.fetch_add(1, Ordering::Relaxed),
                            503 => {
                                assert_scim_error(&resp);
                                unavailable.fetch_add(1, Ordering::Relaxed)
                            }
                            other => panic!("{path}: {other} {}", resp.text()),
                        };
                        i += 1;
                    }
                })
            })
            .collect();
        let results: Vec<_> = readers.into_iter().map(|r| r.join()).collect();
        // Stop terminating before any failure is reported.
        done.store(true, Ordering::Relaxed);
        let terminations = killer.join().unwrap();
        for result in results {
            if let Err(panic) = result {
                std::panic::resume_unwind(panic);
            }
        }
        terminations
    });
    let (ok, unavailable) = (ok.into_inner(), unavailable.into_inner());
    eprintln!(
        "reads: {ok} answered 200, {unavailable} answered 503, {terminations} sessions terminated"
    );
    assert!(
        terminations > 20,
        "connections were terminated: {terminations}"
    );
    assert!(unavailable > 0, "no request met a lost connection");
    assert!(ok > 0);
}
