//! `equip demo` writes no history in the future: after it ran, no event, no
//! creation, update, assignment, shipment or return time that the API shows
//! is later than the moment it finished; its events read forward (in the
//! feed's order, each at or after the one before); and no hold it made is
//! due already (the first `serve` would release it at once). Through the
//! real binary, on SQLite and PostgreSQL.
use chrono::{DateTime, NaiveDate, Utc};
use equip_persistence::test_support::TestDatabase;
use serde_json::Value;

use crate::support::process::{Api, Serve};
use crate::support::scratch::Scratch;

fn demo_writes_nothing_later_than_the_moment_it_ran(db: &TestDatabase) {
    let scratch = Scratch::new();
    let run = scratch.equip_on(db.url(), &["demo", "--items", "150"]);
    let ended = Utc::now();
    run.ok();
    let key = run.single_line();
    // Read it back without the hold release (what it would release is
    // checked below) or the dispatchers.
    let serve = Serve::start(db.url(), &["--no-dispatcher", "--no-hold-release"]);
    let api = serve.client(&key);

    let events = feed(&api);
    assert!(events.len() > 100, "{} events", events.len());
    let mut later = Vec::new();
    for event in &events {
        later.extend(times_after(event, ended, ""));
    }
    let mut before: Option<DateTime<Utc>> = None;
    for event in &events {
        let at = time(&event["occurredAt"]);
        assert!(
            before.is_none_or(|b| b <= at),
            "the feed reads backwards at {event}"
        );
        before = Some(at);
    }

    let items = all(&api, "/api/v1/inventory?size=1000");
    assert!(items.len() >= 150, "{} items", items.len());
    let today = ended.date_naive();
    let mut held = 0;
    for item in &items {
        later.extend(times_after(item, ended, ""));
        if item["deployStatus"] == "ON_HOLD" {
            held += 1;
            let unlock = item["unlockDate"].as_str().expect("a hold's unlockDate");
            let unlock = NaiveDate::parse_from_str(unlock, "%Y-%m-%d").unwrap();
            assert!(
                unlock > today,
                "a hold is due already (the first serve releases it at once): {item}"
            );
        }
    }
    assert!(held > 0, "the demo has holds");
    for path in [
        "/api/v1/orders?size=1000",
        "/api/v1/return-orders?size=1000",
    ] {
        let orders = all(&api, path);
        assert!(!orders.is_empty(), "{path}");
        for order in &orders {
            later.extend(times_after(order, ended, ""));
        }
    }
    assert!(
        later.is_empty(),
        "times later than the moment equip demo ran ({ended}): {} of them, e.g. {:?}",
        later.len(),
        &later[..later.len().min(10)]
    );
}

mod sqlite {
    #[test]
    fn demo_writes_nothing_later_than_the_moment_it_ran() {
        super::demo_writes_nothing_later_than_the_moment_it_ran(&super::TestDatabase::sqlite());
    }
}

mod postgres {
    #[test]
    fn demo_writes_nothing_later_than_the_moment_it_ran() {
        let Some(db) = super::TestDatabase::postgres() else {
            return;
        };
        super::demo_writes_nothing_later_than_the_moment_it_ran(&db);
    }
}

/// Every event of the key's organization, in the feed's order.
fn feed(api: &Api) -> Vec<Value> {
    let mut events = Vec::new();
    let mut path = "/api/v1/events?size=1000".to_owned();
    loop {
        let r = api.get(&path).unwrap();
        assert_eq!(r.status, 200, "{}", r.text());
        let page = r.json();
        let data = page["data"].as_array().unwrap().clone();
        if data.is_empty() {
            return events;
        }
        events.extend(data);
        path = format!(
            "/api/v1/events?size=1000&after={}",
            page["next"].as_str().unwrap()
        );
    }
}

/// The `data` of a listing that fits in one page of 1000.
fn all(api: &Api, path: &str) -> Vec<Value> {
    let r = api.get(path).unwrap();
    assert_eq!(r.status, 200, "{path}: {}", r.text());
    let page = r.json();
    let data = page["data"].as_array().unwrap().clone();
    if let Some(pages) = page["totalPages"].as_u64() {
        assert!(pages <= 1, "{path}: {pages} pages");
    }
    data
}

fn time(value: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(value.as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc)
}

/// Every member named `…At` (a time something happened) anywhere in `value`
/// whose time is later than `ended`: its path and time.
fn times_after(value: &Value, ended: DateTime<Utc>, path: &str) -> Vec<String> {
    match value {
        Value::Object(members) => members
            .iter()
            .flat_map(|(name, member)| {
                let here = format!("{path}.{name}");
                if name.ends_with("At") && member.is_string() && time(member) > ended {
                    vec![format!("{here} = {member}")]
                } else {
                    times_after(member, ended, &here)
                }
            })
            .collect(),
        Value::Array(elements) => elements
            .iter()
            .enumerate()
            .flat_map(|(n, e)| times_after(e, ended, &format!("{path}[{n}]")))
            .collect(),
        _ => Vec::new(),
    }
}
