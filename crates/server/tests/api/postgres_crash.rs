//! PostgreSQL itself crashes (`pg_ctl stop -m immediate`: every server
//! process ends at once, as in a power cut) while `equip serve` runs SCIM Bulk
//! requests and a reader follows the organization's feed. On a server of the
//! test's own (support/pg_cluster.rs), so no other test is disturbed.
//!
//! After crash recovery: every create a client was answered `201` for is
//! stored under its id; every event the reader was shown is stored with the
//! same id at the same sequence (none was taken back); and the reader, going
//! on from its last cursor, sees every sequence once, without a gap. Before
//! write sessions committed durably, commits were acknowledged (and shown on
//! the feed) before the WAL reached the disk: a crash lost reported creates
//! and their events, and reused their sequence numbers.
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::consistency::count_stored;
use crate::support::pg_cluster::PgCluster;
use crate::support::process::{Api, Serve};
use equip_persistence::test_support::TestDatabase;
use serde_json::{json, Value};

const BULKS: usize = 4;
const OPS: usize = 1_000;

fn bulk_user(bulk: usize, op: usize) -> String {
    format!("crash{bulk}.{op}@acme.example")
}

fn bulk_body(bulk: usize) -> Value {
    let ops: Vec<Value> = (0..OPS)
        .map(|i| {
            let name = bulk_user(bulk, i);
            json!({
                "method": "POST",
                "bulkId": format!("b{i}"),
                "path": "/Users",
                "data": {
                    "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
                    "userName": name,
                    "emails": [{"primary": true, "value": name}]
                }
            })
        })
        .collect();
    json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:BulkRequest"],
        "Operations": ops
    })
}

/// Sends the Bulk requests in turn (a failed exchange is tried once more,
/// then given up); records every `201` as (id, userName).
fn bulk_client(api: &Api, reported: &Mutex<Vec<(String, String)>>) {
    for b in 0..BULKS {
        let Ok(response) = api.scim_post("/scim/v2/Bulk", &bulk_body(b)) else {
            continue;
        };
        if response.status != 200 {
            continue;
        }
        let body = response.json();
        let mut reported = reported.lock().unwrap();
        for (i, op) in body["Operations"].as_array().unwrap().iter().enumerate() {
            if op["status"] == "201" {
                let id = op["location"].as_str().unwrap().rsplit('/').next().unwrap();
                reported.push((id.to_owned(), bulk_user(b, i)));
            }
        }
    }
}

/// What the reader was shown: sequence → event id, and how often each
/// sequence came (a sequence shown twice is a skip in disguise).
#[derive(Default)]
struct Seen {
    events: BTreeMap<i64, String>,
    repeated: Vec<i64>,
    cursor: Option<String>,
}

/// Follows the feed with `next` until `stop`; errors (the database is down)
/// are waited out.
fn reader(api: &Api, seen: &Mutex<Seen>, stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        let path = match &seen.lock().unwrap().cursor {
            Some(c) => format!("/api/v1/events?size=1000&after={c}"),
            None => "/api/v1/events?size=1000".to_owned(),
        };
        let Ok(response) = api.get(&path) else {
            std::thread::sleep(Duration::from_millis(20));
            continue;
        };
        if response.status != 200 {
            assert!(
                response.status >= 500,
                "the feed refused the reader's cursor: {} {}",
                response.status,
                response.text()
            );
            std::thread::sleep(Duration::from_millis(20));
            continue;
        }
        let page = response.json();
        let mut s = seen.lock().unwrap();
        for e in page["data"].as_array().unwrap() {
            let sequence = e["sequence"].as_i64().unwrap();
            let id = e["id"].as_str().unwrap().to_owned();
            if s.events.insert(sequence, id).is_some() {
                s.repeated.push(sequence);
            }
        }
        s.cursor = page["next"].as_str().map(str::to_owned);
        let empty = page["data"].as_array().unwrap().is_empty();
        drop(s);
        if empty {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

#[test]
fn postgres_crash_mid_bulk_keeps_every_reported_create_and_every_event_shown() {
    let Some(cluster) = PgCluster::start() else {
        return;
    };
    let db = TestDatabase::postgres_at(&cluster.admin_url()).expect("the test's own server");
    let key = crate::support::process::organization_with_key(&db, "Crash Org");
    let started = Instant::now();
    let server = Serve::start(db.url(), &["--workers", "2", "--no-dispatcher"]);

    let reported: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let bulks = {
        let (api, reported) = (server.client(&key), Arc::clone(&reported));
        std::thread::spawn(move || bulk_client(&api, &reported))
    };
    let feed = {
        let (api, seen, stop) = (server.client(&key), Arc::clone(&seen), Arc::clone(&stop));
        std::thread::spawn(move || reader(&api, &seen, &stop))
    };

    // Crash once the reader has been shown some of the second request's
    // events: some creates are answered, some shown, some under way.
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "the reader never reached the second Bulk request's events"
        );
        if seen.lock().unwrap().events.len() > OPS + 200 || bulks.is_finished() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(
        !bulks.is_finished(),
        "every Bulk request finished before the crash"
    );
    cluster.crash();
    let shown_at_crash = seen.lock().unwrap().events.len();
    std::thread::sleep(Duration::from_millis(300));
    cluster.start_again();
    bulks.join().unwrap();

    // One more create after recovery: the reader must reach it.
    let api = server.client(&key);
    let last = loop {
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "equip did not recover"
        );
        let name = "after.crash@acme.example";
        match api.scim_post(
            "/scim/v2/Users",
            &json!({"userName": name, "emails": [{"value": name, "primary": true}]}),
        ) {
            Ok(r) if r.status == 201 => {
                let id = r.json()["id"].as_str().unwrap().to_owned();
                reported.lock().unwrap().push((id.clone(), name.to_owned()));
                break id;
            }
            _ => std::thread::sleep(Duration::from_millis(100)),
        }
    };
    // The reader catches up with every stored event (the last create's
    // among them).
    assert!(db.count_rows(&format!("events WHERE subject_id = '{last}'")) == 1);
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the reader did not catch up"
        );
        let shown = i64::try_from(seen.lock().unwrap().events.len()).unwrap();
        if shown >= db.count_rows("events") || feed.is_finished() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::SeqCst);
    feed.join().unwrap();

    let reported = reported.lock().unwrap().clone();
    let seen = seen.lock().unwrap();
    eprintln!(
        "crashed after {:?}: {} creates answered 201, {} events shown at the crash, {} in all",
        started.elapsed(),
        reported.len(),
        shown_at_crash,
        seen.events.len()
    );
    // Every 201 is stored under its id.
    assert_eq!(
        count_stored(&db, &reported),
        reported.len(),
        "a reported create was lost"
    );
    // Every event shown is stored as it was shown.
    for chunk in seen.events.iter().collect::<Vec<_>>().chunks(500) {
        let values = chunk
            .iter()
            .map(|(s, id)| format!("({s}, '{id}')"))
            .collect::<Vec<_>>()
            .join(",");
        assert_eq!(
            db.count_rows(&format!(
                "(VALUES {values}) AS shown(sequence, id) WHERE NOT EXISTS \
                 (SELECT 1 FROM events e WHERE e.sequence = shown.sequence AND e.id = shown.id)"
            )),
            0,
            "an event the reader was shown is gone, or its sequence now names another event"
        );
    }
    // Each sequence shown once, none skipped.
    assert!(
        seen.repeated.is_empty(),
        "sequences shown twice: {:?}",
        seen.repeated
    );
    let sequences: Vec<i64> = seen.events.keys().copied().collect();
    let first = sequences[0];
    assert_eq!(
        sequences,
        (first..first + i64::try_from(sequences.len()).unwrap()).collect::<Vec<_>>(),
        "the reader skipped sequences"
    );
    assert_eq!(
        i64::try_from(sequences.len()).unwrap(),
        db.count_rows("events"),
        "the reader missed stored events"
    );
    drop(server);
    drop(db);
    drop(cluster);
}
