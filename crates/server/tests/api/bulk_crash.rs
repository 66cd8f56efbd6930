//! SCIM Bulk interrupted by SIGKILL, on SQLite and on PostgreSQL: `equip serve`
//! (the real binary) runs Bulk requests of 1,000 creates each (the maximum,
//! `failOnErrors` unset), one after the other, while a second client creates
//! single users (`POST /scim/v2/Users`); the server is killed once at least
//! one Bulk was answered and the next one is under way.
//!
//! Afterwards, on the same database: every create whose 201 a client received
//! exists, with the id it was reported under; every stored person is whole
//! (both email rows, one primary); SQLite's integrity and foreign-key checks
//! pass. After a restart, sending the same Bulk requests again converges:
//! everything committed answers 409 `uniqueness`, the rest 201, and every user
//! exists once.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::consistency::{assert_whole_people, count_stored};
use crate::support::process::{Api, Serve};
use equip_persistence::test_support::TestDatabase;
use serde_json::{json, Value};

/// Bulk requests sent one after the other.
const BULKS: usize = 2;
/// Operations per Bulk request: the maximum (`maxOperations`).
const OPS: usize = 1_000;

#[test]
fn sqlite_killed_mid_bulk_keeps_reported_and_whole_users() {
    killed_mid_bulk(TestDatabase::sqlite());
}

#[test]
fn postgres_killed_mid_bulk_keeps_reported_and_whole_users() {
    let Some(db) = TestDatabase::postgres() else {
        return;
    };
    killed_mid_bulk(db);
}

/// A user with a primary work email (its userName) and a home email.
fn user(user_name: &str) -> Value {
    json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "userName": user_name,
        "name": {"givenName": "Ada", "familyName": "Lovelace"},
        "emails": [
            {"primary": true, "type": "work", "value": user_name},
            {"type": "home", "value": format!("home.{user_name}")}
        ],
        "active": true
    })
}

fn bulk_user(bulk: usize, op: usize) -> String {
    format!("bulk{bulk}.{op}@acme.example")
}

fn bulk_body(bulk: usize) -> Value {
    let ops: Vec<Value> = (0..OPS)
        .map(|i| {
            json!({
                "method": "POST",
                "bulkId": format!("b{bulk}.{i}"),
                "path": "/Users",
                "data": user(&bulk_user(bulk, i))
            })
        })
        .collect();
    json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        "Operations": ops
    })
}

/// The `Operations` of an answered Bulk request.
fn bulk_results(response: &crate::support::process::Response) -> Vec<Value> {
    assert_eq!(response.status, 200, "{}", response.text());
    let body = response.json();
    let ops = body["Operations"].as_array().unwrap().clone();
    assert_eq!(ops.len(), OPS);
    ops
}

fn id_of(result: &Value) -> String {
    let location = result["location"].as_str().unwrap();
    location.rsplit('/').next().unwrap().to_owned()
}

/// Creates reported to a client: (person id, userName).
type Reported = Arc<Mutex<Vec<(String, String)>>>;

/// Sends the Bulk requests in turn until one fails (the server was killed);
/// records each answered create. Returns how many Bulk requests were answered.
fn bulk_client(api: &Api, reported: &Reported, answered: &AtomicUsize) -> usize {
    for b in 0..BULKS {
        let Ok(response) = api.scim_post("/scim/v2/Bulk", &bulk_body(b)) else {
            return b;
        };
        let results = bulk_results(&response);
        let mut reported = reported.lock().unwrap();
        for (i, r) in results.iter().enumerate() {
            assert_eq!(r["status"], "201", "{r}");
            assert_eq!(r["bulkId"], format!("b{b}.{i}"));
            reported.push((id_of(r), bulk_user(b, i)));
        }
        answered.store(b + 1, Ordering::SeqCst);
    }
    BULKS
}

/// Creates single users in turn until a request fails (the server was
/// killed); records each 201. Returns how many it sent.
fn single_client(api: &Api, reported: &Reported) -> usize {
    let mut sent = 0;
    loop {
        let name = format!("single.{sent}@acme.example");
        sent += 1;
        let Ok(response) = api.scim_post("/scim/v2/Users", &user(&name)) else {
            return sent;
        };
        assert_eq!(response.status, 201, "{}", response.text());
        let id = response.json()["id"].as_str().unwrap().to_owned();
        reported.lock().unwrap().push((id, name));
    }
}

fn killed_mid_bulk(db: TestDatabase) {
    let key = crate::support::process::organization_with_key(&db, "Crash Org");
    let started = Instant::now();

    // 1. Bulk requests and single creates side by side; SIGKILL once a Bulk
    //    was answered and at least 100 operations of the next have committed.
    let mut server = Serve::start(db.url(), &["--workers", "2", "--no-dispatcher"]);
    let bulk_reported: Reported = Arc::default();
    let single_reported: Reported = Arc::default();
    let answered = Arc::new(AtomicUsize::new(0));
    let bulks = {
        let (api, reported, answered) = (
            server.client(&key),
            Arc::clone(&bulk_reported),
            Arc::clone(&answered),
        );
        std::thread::spawn(move || bulk_client(&api, &reported, &answered))
    };
    let singles = {
        let (api, reported) = (server.client(&key), Arc::clone(&single_reported));
        std::thread::spawn(move || single_client(&api, &reported))
    };
    let answered_at_kill = loop {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no Bulk request was answered"
        );
        let answered = answered.load(Ordering::SeqCst);
        let committed = db.count_rows("people WHERE user_name LIKE 'bulk%'");
        if answered >= 1 && committed >= i64::try_from(answered * OPS + 100).unwrap() {
            break answered;
        }
        assert!(
            !bulks.is_finished(),
            "the Bulk client stopped before the kill (every request answered, or it failed)"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    server.kill(); // SIGKILL
    let killed_at = started.elapsed();
    // A create PostgreSQL was running when equip died may still commit.
    db.wait_until_unused(Duration::from_secs(30));
    let answered = bulks.join().unwrap();
    let singles_sent = singles.join().unwrap();
    assert!(answered < BULKS, "the last Bulk request was answered");
    let bulk_reported = bulk_reported.lock().unwrap().clone();
    let single_reported = single_reported.lock().unwrap().clone();
    assert_eq!(bulk_reported.len(), answered * OPS);

    // 2. What was reported is there, whole, under the reported id.
    let committed = usize::try_from(db.count_rows("people WHERE user_name LIKE 'bulk%'")).unwrap();
    let singles_stored =
        usize::try_from(db.count_rows("people WHERE user_name LIKE 'single%'")).unwrap();
    eprintln!(
        "killed after {killed_at:?}: {answered} Bulk requests answered ({} creates reported), \
         {committed} Bulk creates stored; {} single creates reported of {singles_sent} sent, \
         {singles_stored} stored",
        bulk_reported.len(),
        single_reported.len()
    );
    assert_eq!(count_stored(&db, &bulk_reported), bulk_reported.len());
    assert_eq!(count_stored(&db, &single_reported), single_reported.len());
    assert!(singles_stored >= single_reported.len() && singles_stored <= singles_sent);
    let in_killed = committed - answered * OPS;
    assert!(in_killed < OPS, "{committed} Bulk creates stored");
    if answered == answered_at_kill {
        assert!(
            in_killed >= 100,
            "killed mid-request: {in_killed} of its {OPS} operations stored"
        );
    }
    assert_whole_people(&db, 2);
    assert_eq!(
        db.count_rows("people"),
        db.count_rows("(SELECT DISTINCT user_name_lower FROM people) u"),
        "one person per userName"
    );

    // 3. Restart on the same database: the reported users are served, and the
    //    same Bulk requests again converge.
    let mut server = Serve::start(db.url(), &["--workers", "2", "--no-dispatcher"]);
    let api = server.client(&key);
    for (id, name) in [
        bulk_reported.first().unwrap(),
        bulk_reported.last().unwrap(),
    ]
    .into_iter()
    .chain(single_reported.last())
    {
        let r = api.get(&format!("/scim/v2/Users/{id}")).unwrap();
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["userName"], name.as_str());
    }
    for b in 0..BULKS {
        let response = api.scim_post("/scim/v2/Bulk", &bulk_body(b)).unwrap();
        let results = bulk_results(&response);
        let conflicts = results.iter().filter(|r| r["status"] == "409").count();
        let created = results.iter().filter(|r| r["status"] == "201").count();
        assert_eq!(created + conflicts, OPS);
        let expected_conflicts = match b.cmp(&answered) {
            std::cmp::Ordering::Less => OPS,
            std::cmp::Ordering::Equal => in_killed,
            std::cmp::Ordering::Greater => 0,
        };
        assert_eq!(conflicts, expected_conflicts, "Bulk request {b}");
        for r in results.iter().filter(|r| r["status"] == "409") {
            assert_eq!(r["response"]["scimType"], "uniqueness", "{r}");
        }
    }
    server.kill();
    assert_eq!(
        db.count_rows("people WHERE user_name LIKE 'bulk%'"),
        i64::try_from(BULKS * OPS).unwrap()
    );
    assert_eq!(
        db.count_rows("people"),
        db.count_rows("(SELECT DISTINCT user_name_lower FROM people) u")
    );
    assert_whole_people(&db, 2);
    eprintln!("done in {:?}", started.elapsed());
}
