//! Long writes, on SQLite and PostgreSQL: a receipt entry rewrites the
//! listing rows of the items whose view changed, not of every item on its
//! return order (so an entry costs the same whatever the order's size), and
//! the listing then shows each item as `GET /api/v1/inventory/{id}` does, on
//! the listing index and on the SQL path (`serve --no-listing-index`). A
//! receipt or CSV upload stopped at its time limit (the real binary with
//! `--upload-timeout 1`) answers 503 with the result of every entry, and
//! writes nothing after the answer; an upload whose client disconnects stops
//! too.
use std::io::Write as _;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use actix_web::http::StatusCode;
use serde_json::{json, Value};

use crate::support::process::{csv_form, Api, Serve};
use crate::support::TestApp;

on_both_backends!(
    a_receipt_entry_rewrites_only_the_rows_whose_view_changed,
    a_receipt_stopped_at_its_limit_answers_what_ran_and_writes_no_more,
    a_csv_upload_stopped_at_its_limit_answers_what_ran_and_writes_no_more,
    a_csv_upload_whose_client_goes_stops,
);

/// A person of A with `n` items DEPLOYED to them (serials `{tag}-1`…),
/// offboarded over SCIM: each item is on one open return order. The items'
/// ids.
async fn leaver(app: &TestApp, tag: &str, n: usize) -> Vec<String> {
    let w = app.world();
    let user = json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "userName": format!("{tag}@acme.example"),
        "name": {"givenName": "Ada", "familyName": "Lovelace"},
        "emails": [{"primary": true, "value": format!("{tag}@acme.example"), "type": "work"}],
        "active": true
    });
    let (status, created) = app.call(w.a.scim_post("/scim/v2/Users", &user)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let person = created["id"].as_str().unwrap().to_owned();
    let mut items = Vec::new();
    for k in 1..=n {
        let body = json!({"skuId": w.a_sku, "deployStatus": "DEPLOYED", "condition": "USED_GOOD",
            "serialNumber": format!("{tag}-{k}"), "assignedTo": {"type": "PERSON", "id": person}});
        let (status, item) = app.call(w.a.post_json("/api/v1/inventory", &body)).await;
        assert_eq!(status, StatusCode::CREATED, "{item}");
        items.push(item["id"].as_str().unwrap().to_owned());
    }
    let (status, body) = app
        .call(w.a.delete(&format!("/scim/v2/Users/{person}")))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    items
}

/// The newest stamp of any listing row (SQLite: a listing version;
/// PostgreSQL: a transaction id; both grow with each write).
fn newest_stamp(app: &TestApp) -> i64 {
    app.db().read_number(
        "SELECT CAST(COALESCE(MAX(listing_stamp), 0) AS BIGINT) AS n FROM inventory_listing",
    )
}

/// Receives the item `id` at A's warehouse; the listing rows the entry
/// rewrote.
async fn receive_counting_rows(app: &TestApp, id: &str) -> i64 {
    let w = app.world();
    let before = newest_stamp(app);
    let path = format!("/api/v1/warehouses/{}/receipts", w.a_warehouse);
    let (status, body) = app
        .call(w.a.post_json(&path, &json!({"items": [{"itemId": id}]})))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["results"][0]["status"], 200, "{body}");
    app.db()
        .count_rows(&format!("inventory_listing WHERE listing_stamp > {before}"))
}

async fn a_receipt_entry_rewrites_only_the_rows_whose_view_changed(app: TestApp) {
    for (tag, n) in [("small", 3), ("large", 40)] {
        let items = leaver(&app, tag, n).await;
        // The first receipt moves the order to RECEIVED_IN_WAREHOUSE, which
        // every open line's item shows: each of them is rewritten once.
        let first = receive_counting_rows(&app, &items[0]).await;
        assert_eq!(first, i64::try_from(n).unwrap(), "{tag}: first entry");
        // Every later entry rewrites its own item's row alone, whatever the
        // order's size (it rewrote all of them: quadratic receipts).
        for id in &items[1..] {
            let rewritten = receive_counting_rows(&app, id).await;
            assert_eq!(rewritten, 1, "{tag}: a later entry of an order of {n}");
        }
    }
    // The listing shows each item as its own endpoint does, on the index
    // and on the SQL path, after the writes of another process.
    let key = app.world().a.key;
    for args in [&[][..], &["--no-listing-index"][..]] {
        let mut all = vec!["--workers", "1", "--no-dispatcher", "--no-hold-release"];
        all.extend_from_slice(args);
        let server = Serve::start(app.db().url(), &all);
        let api = server.client(&key);
        for query in ["size=1000", "size=1000&searchString=large"] {
            let page = api.get(&format!("/api/v1/inventory?{query}")).unwrap();
            assert_eq!(page.status, 200, "{}", page.text());
            let page = page.json();
            let listed = page["data"].as_array().unwrap();
            assert!(listed.len() >= 40, "{args:?} {query}: {page}");
            for shown in listed {
                let id = shown["id"].as_str().unwrap();
                let own = api.get(&format!("/api/v1/inventory/{id}")).unwrap().json();
                assert_eq!(shown, &own, "{args:?} {query}: item {id}");
            }
        }
    }
}

/// The real binary over the test's database, with uploads limited to 1 s.
fn limited_server(app: &TestApp) -> Serve {
    Serve::start(
        app.db().url(),
        &[
            "--workers",
            "1",
            "--no-dispatcher",
            "--no-hold-release",
            "--upload-timeout",
            "1",
        ],
    )
}

/// Reads `count` twice with a pause between: the writes have stopped when
/// both agree. The count.
fn settled(count: impl Fn() -> i64) -> i64 {
    let first = count();
    std::thread::sleep(Duration::from_millis(1500));
    let second = count();
    assert_eq!(first, second, "still written after the answer");
    second
}

async fn a_receipt_stopped_at_its_limit_answers_what_ran_and_writes_no_more(app: TestApp) {
    const ENTRIES: usize = 50;
    let w = app.world();
    for k in 0..ENTRIES {
        let body = json!({"skuId": w.a_sku, "deployStatus": "AWAITING_ARRIVAL", "condition": "NEW",
            "serialNumber": format!("LW-{k}"), "assignedTo": {"type": "WAREHOUSE", "id": w.a_warehouse}});
        let (status, item) = app.call(w.a.post_json("/api/v1/inventory", &body)).await;
        assert_eq!(status, StatusCode::CREATED, "{item}");
    }
    let server = limited_server(&app);
    let api = server.client(&w.a.key);
    // The first entry waits for a lock past the receipt's limit of 1 s.
    let lock = match app.db().lock_table("inventory_items") {
        Some(lock) => lock,
        None => app.db().lock_writes(),
    };
    let entries: Vec<Value> = (0..ENTRIES)
        .map(|k| json!({"serialNumber": format!("LW-{k}")}))
        .collect();
    let body = json!({ "items": entries }).to_string();
    let path = format!("/api/v1/warehouses/{}/receipts", w.a_warehouse);
    let sending = {
        let api = api.clone();
        std::thread::spawn(move || api.post(&path, "application/json", body.as_bytes()))
    };
    std::thread::sleep(Duration::from_secs(2));
    drop(lock);
    let answer = sending.join().unwrap().unwrap();
    assert_eq!(answer.status, 503, "{}", answer.text());
    let answer = answer.json();
    let results = answer["results"]
        .as_array()
        .expect("the results of every entry");
    assert_eq!(results.len(), ENTRIES, "{answer}");
    let ran = results.iter().filter(|r| r["status"] == 200).count();
    // The entry in flight at the limit ends; none starts after it.
    assert_eq!(ran, 1, "{answer}");
    for r in &results[ran..] {
        assert_eq!(r["status"], 503, "{answer}");
        assert!(
            r["detail"].as_str().unwrap().contains("not run"),
            "{answer}"
        );
    }
    assert!(
        answer["errors"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("time limit"),
        "{answer}"
    );
    let received = settled(|| {
        app.db().count_rows(
            "inventory_items WHERE serial_number LIKE 'LW-%' AND deploy_status = 'AVAILABLE'",
        )
    });
    assert_eq!(received, i64::try_from(ran).unwrap());
}

const HEADER: &str = "id,forename,surname,email,secondary_email,package_slug,address_line_1,addressLine2,state/region,city_code,country_code,postal_code,phone_number,send_activation_email,cpf_number";

fn csv(rows: usize, tag: &str) -> String {
    let mut csv = String::from(HEADER);
    csv.push('\n');
    for i in 0..rows {
        csv.push_str(&format!(
            ",First{i},Last{i},{tag}{i}@acme.example,,,{i} Main St,,CA,SF,US,94105,,no,\n"
        ));
    }
    csv
}

fn people_named(app: &TestApp, tag: &str) -> i64 {
    app.db()
        .count_rows(&format!("people WHERE user_name LIKE '{tag}%'"))
}

async fn a_csv_upload_stopped_at_its_limit_answers_what_ran_and_writes_no_more(app: TestApp) {
    const ROWS: usize = 200;
    let server = limited_server(&app);
    let api = server.client(&app.world().a.key);
    let lock = app.db().lock_writes();
    let (content_type, body) = csv_form(&csv(ROWS, "limit"));
    let sending = {
        let api = api.clone();
        std::thread::spawn(move || api.post("/scim/v2/Users/csv", &content_type, &body))
    };
    std::thread::sleep(Duration::from_secs(2));
    drop(lock);
    let answer = sending.join().unwrap().unwrap();
    assert_eq!(answer.status, 503, "{}", answer.text());
    let answer = answer.json();
    assert_eq!(answer["status"], "503", "{answer}");
    let ops = answer["Operations"].as_array().expect("every row's result");
    assert_eq!(ops.len(), ROWS, "{answer}");
    let ran = ops.iter().filter(|op| op["status"] == "201").count();
    assert!(ran >= 1, "the rows in flight at the limit end: {answer}");
    assert!(ran < ROWS, "{answer}");
    for op in &ops[ran..] {
        assert_eq!(op["status"], "503", "{op}");
    }
    let created = settled(|| people_named(&app, "limit"));
    assert_eq!(created, i64::try_from(ran).unwrap());
}

async fn a_csv_upload_whose_client_goes_stops(app: TestApp) {
    const ROWS: usize = 5_000;
    // The default limit (300 s): only the client's going stops the upload.
    let server = Serve::start(
        app.db().url(),
        &["--workers", "1", "--no-dispatcher", "--no-hold-release"],
    );
    let api: Api = server.client(&app.world().a.key);
    let (content_type, body) = csv_form(&csv(ROWS, "gone"));
    let mut conn = TcpStream::connect(&api.addr).unwrap();
    let head = format!(
        "POST /scim/v2/Users/csv HTTP/1.1\r\nHost: {}\r\nAuthorization: ApiKey {}\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        api.addr,
        api.key,
        body.len()
    );
    conn.write_all(head.as_bytes()).unwrap();
    conn.write_all(&body).unwrap();
    let start = Instant::now();
    while people_named(&app, "gone") < 60 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the upload did not start"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // The client gives up.
    conn.shutdown(std::net::Shutdown::Both).unwrap();
    drop(conn);
    std::thread::sleep(Duration::from_millis(500));
    let created = settled(|| people_named(&app, "gone"));
    assert!(
        created < i64::try_from(ROWS).unwrap(),
        "the whole upload ran: {created}"
    );
}
