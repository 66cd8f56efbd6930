//! Webhooks end to end, on SQLite and PostgreSQL: management through the
//! real application (scopes, tenant isolation, URL refusals), and deliveries
//! of events made by real API writes to receivers on loopback, by the
//! dispatcher `equip serve` runs (here in the test process, with short
//! time-outs and back-off; and as the spawned binary, killed with SIGKILL and
//! restarted).

use std::sync::Arc;
use std::time::Duration;

use actix_web::http::StatusCode;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

use equip_delivery::webhooks::{
    HttpTransport, RunningDispatcher, WebhookDispatcher, WebhookOptions,
};
use equip_domain::webhook::{AddressPolicy, RetryPolicy};

use crate::support::process::{organization_with_key, Serve};
use crate::support::receiver::{Receiver, Reply};
use crate::support::{repo_root, venv_python, Client, TestApp};

on_both_backends!(
    webhooks_are_created_listed_read_and_deleted,
    deliveries_are_signed_and_logged,
    failed_deliveries_are_retried_in_order,
    many_events_arrive_in_sequence_order,
    a_receiver_that_hangs_is_timed_out_and_retried,
    a_webhook_failing_for_its_window_gives_up_and_is_disabled,
    private_and_malformed_urls_are_refused,
    other_organizations_webhooks_and_events_stay_apart,
    webhooks_need_their_scope,
    types_select_the_events_delivered,
    concurrent_creates_stop_at_the_limit,
    a_failed_delivery_logs_the_host_never_the_url,
    no_delivery_starts_after_a_delete_is_answered,
    verifier_libraries_accept_deliveries_and_a_rotation_overlaps,
    rotation_is_refused_as_it_should_be,
);

const WAIT: Duration = Duration::from_secs(30);

fn fast() -> WebhookOptions {
    WebhookOptions {
        poll_interval: Duration::from_millis(50),
        timeout: Duration::from_secs(1),
        flush_interval: Duration::from_millis(200),
        retry: RetryPolicy {
            base: Duration::from_millis(100),
            max: Duration::from_millis(400),
            ..RetryPolicy::default()
        },
        ..WebhookOptions::default()
    }
}

fn dispatcher(app: &TestApp, options: WebhookOptions) -> RunningDispatcher {
    let transport = HttpTransport::new(
        options.timeout,
        AddressPolicy {
            allow_private: true,
        },
    )
    .unwrap();
    WebhookDispatcher::new(app.store.clone(), Arc::new(transport), options)
        .start()
        .unwrap()
}

async fn create_webhook(app: &TestApp, client: &Client, url: &str, types: Value) -> Value {
    let (status, body) = app
        .call(client.post_json("/api/v1/webhooks", &json!({"url": url, "types": types})))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body
}

/// Creates an inventory item of organization A through the API.
async fn create_item(app: &TestApp, serial: &str) -> String {
    let w = app.world();
    let body = json!({"skuId": w.a_sku, "deployStatus": "AVAILABLE", "condition": "NEW",
        "serialNumber": serial, "assignedTo": {"type": "WAREHOUSE", "id": w.a_warehouse}});
    let (status, item) = app.call(w.a.post_json("/api/v1/inventory", &body)).await;
    assert_eq!(status, StatusCode::CREATED, "{item}");
    item["id"].as_str().unwrap().to_owned()
}

async fn deliveries(app: &TestApp, client: &Client, id: &str) -> Vec<Value> {
    let (status, body) = app
        .call(client.get(&format!("/api/v1/webhooks/{id}/deliveries?size=1000")))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

fn assert_error(body: &Value, source: &str) {
    assert_eq!(body["errors"][0]["source"], source, "{body}");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

async fn webhooks_are_created_listed_read_and_deleted(app: TestApp) {
    let app = app.allowing_private_webhooks();
    let w = app.world();
    let created = create_webhook(
        &app,
        &w.a,
        "http://127.0.0.1:9/hook",
        json!(["inventory.item.updated", "person.created"]),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_owned();
    let secret = created["secret"].as_str().unwrap();
    assert!(
        secret.starts_with("whsec_") && secret.len() == 70,
        "{created}"
    );
    assert_eq!(created["status"], "ACTIVE");
    assert_eq!(
        created["types"],
        json!(["inventory.item.updated", "person.created"])
    );
    assert_eq!(created["disabledAt"], Value::Null);
    assert_eq!(created["failingSince"], Value::Null);
    // Absent types: every type.
    let all = create_webhook(&app, &w.a, "https://127.0.0.1/x", Value::Null).await;
    assert_eq!(all["types"], json!([]));

    let (status, list) = app.call(w.a.get("/api/v1/webhooks")).await;
    assert_eq!(status, StatusCode::OK);
    let data = list["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    assert_eq!(data[0]["id"], id.as_str());
    // The secret is shown once only.
    assert!(data.iter().all(|h| h.get("secret").is_none()), "{list}");
    let (status, one) = app.call(w.a.get(&format!("/api/v1/webhooks/{id}"))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(one.get("secret").is_none());
    assert_eq!(one["url"], "http://127.0.0.1:9/hook");
    assert!(deliveries(&app, &w.a, &id).await.is_empty());

    let (status, _) = app
        .call(w.a.delete(&format!("/api/v1/webhooks/{id}")))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    for path in [
        format!("/api/v1/webhooks/{id}"),
        format!("/api/v1/webhooks/{id}/deliveries"),
    ] {
        let (status, body) = app.call(w.a.get(&path)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_error(&body, "webhook");
    }
    let (status, _) = app
        .call(w.a.delete(&format!("/api/v1/webhooks/{id}")))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = app.call(w.a.get("/api/v1/webhooks/not-a-uuid")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_error(&body, "id");
    let (status, body) = app
        .call(w.a.get(&format!(
            "/api/v1/webhooks/{}/deliveries?size=0",
            all["id"].as_str().unwrap()
        )))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_error(&body, "size");
    let (status, body) = app
        .call(w.a.get(&format!(
            "/api/v1/webhooks/{}/deliveries?after=xyz",
            all["id"].as_str().unwrap()
        )))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_error(&body, "after");
}

async fn deliveries_are_signed_and_logged(app: TestApp) {
    let app = app.allowing_private_webhooks();
    let w = app.world();
    let receiver = Receiver::ok();
    let hook = create_webhook(&app, &w.a, &receiver.url, json!([])).await;
    let secret = hook["secret"].as_str().unwrap().to_owned();
    let _running = dispatcher(&app, fast());
    let item = create_item(&app, "SIG-1").await;
    let got = receiver.wait_for(1, WAIT);
    let r = &got[0];
    assert_eq!(r.headers["content-type"], "application/json");
    let event = r.json();
    assert_eq!(event["type"], "inventory.item.created");
    assert_eq!(event["subject"]["id"], item.as_str());
    assert_eq!(r.headers["equip-event-id"], event["id"].as_str().unwrap());
    // Equip-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">.
    let header = &r.headers["equip-signature"];
    let (t, v1) = header
        .strip_prefix("t=")
        .and_then(|rest| rest.split_once(",v1="))
        .unwrap_or_else(|| panic!("{header}"));
    let t: i64 = t.parse().unwrap();
    assert!((chrono::Utc::now().timestamp() - t).abs() < 60);
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(&r.body);
    assert_eq!(v1, hex(&mac.finalize().into_bytes()));
    // The body is the feed's JSON of the event.
    let (_, feed) = app.call(w.a.get("/api/v1/events")).await;
    let in_feed = feed["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == event["id"])
        .cloned()
        .unwrap();
    assert_eq!(in_feed, event);
    // The log, once written.
    let id = hook["id"].as_str().unwrap();
    let log = wait_for_log(&app, &w.a, id, 1).await;
    assert_eq!(log[0]["statusCode"], 200);
    assert_eq!(log[0]["outcome"], "SUCCEEDED");
    assert_eq!(log[0]["error"], Value::Null);
    assert_eq!(log[0]["eventId"], event["id"]);
    assert_eq!(log[0]["sequence"], event["sequence"]);
    assert!(log[0]["latencyMs"].as_u64().is_some());
    let (_, one) = app.call(w.a.get(&format!("/api/v1/webhooks/{id}"))).await;
    assert_eq!(one["lastDeliveredSequence"], event["sequence"]);
}

async fn wait_for_log(app: &TestApp, client: &Client, id: &str, n: usize) -> Vec<Value> {
    let start = std::time::Instant::now();
    loop {
        let log = deliveries(app, client, id).await;
        if log.len() >= n {
            return log;
        }
        assert!(start.elapsed() < WAIT, "{} of {n} log rows", log.len());
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Asserts that the successful deliveries are `n` distinct events in
/// increasing sequence order, and that no event was attempted before the
/// one before it had succeeded.
fn assert_in_order(receiver: &Receiver, n: usize) {
    let all = receiver.received();
    let mut last_ok = 0;
    let mut in_flight: Option<i64> = None;
    let mut ok = 0;
    for r in &all {
        let seq = r.sequence();
        if let Some(pending) = in_flight {
            assert_eq!(seq, pending, "event {seq} sent before {pending} succeeded");
        }
        assert!(seq > last_ok, "sequence {seq} after {last_ok}");
        if r.succeeded() {
            last_ok = seq;
            in_flight = None;
            ok += 1;
        } else {
            in_flight = Some(seq);
        }
    }
    assert_eq!(ok, n);
}

async fn failed_deliveries_are_retried_in_order(app: TestApp) {
    let app = app.allowing_private_webhooks();
    let w = app.world();
    // The first three answers are errors, then every other one.
    let receiver = Receiver::start(|n| {
        if n < 3 || n % 2 == 1 {
            Reply::Status(503)
        } else {
            Reply::Status(204)
        }
    });
    let hook = create_webhook(&app, &w.a, &receiver.url, json!([])).await;
    for i in 0..5 {
        create_item(&app, &format!("RETRY-{i}")).await;
    }
    let _running = dispatcher(&app, fast());
    receiver.wait_for(5, WAIT);
    assert_in_order(&receiver, 5);
    let received = receiver.received();
    // The first event was attempted four times.
    let first = received[0].json()["id"].clone();
    assert!(received[..4].iter().all(|r| r.json()["id"] == first));
    // Every attempt is logged, newest first; the failures say why.
    let id = hook["id"].as_str().unwrap();
    let log = wait_for_log(&app, &w.a, id, received.len()).await;
    assert_eq!(log.len(), received.len());
    let oldest = log.last().unwrap();
    assert_eq!(oldest["statusCode"], 503);
    assert_eq!(oldest["outcome"], "RETRYING");
    assert!(oldest["error"].as_str().unwrap().contains("503"));
    assert_eq!(log[0]["outcome"], "SUCCEEDED");
    // Success clears the failure state.
    let (_, one) = app.call(w.a.get(&format!("/api/v1/webhooks/{id}"))).await;
    assert_eq!(one["failingSince"], Value::Null);
    assert_eq!(one["status"], "ACTIVE");
}

async fn many_events_arrive_in_sequence_order(app: TestApp) {
    let app = app.allowing_private_webhooks();
    let w = app.world();
    let receiver = Receiver::ok();
    create_webhook(&app, &w.a, &receiver.url, json!([])).await;
    let _running = dispatcher(&app, fast());
    let n = 150;
    for i in 0..n {
        create_item(&app, &format!("MANY-{i}")).await;
    }
    let got = receiver.wait_for(n, WAIT);
    let sequences: Vec<i64> = got.iter().map(|r| r.sequence()).collect();
    let first = sequences[0];
    assert_eq!(sequences, (first..first + n as i64).collect::<Vec<_>>());
}

async fn a_receiver_that_hangs_is_timed_out_and_retried(app: TestApp) {
    let app = app.allowing_private_webhooks();
    let w = app.world();
    let receiver = Receiver::start(|n| {
        if n == 0 {
            Reply::Hang(Duration::from_secs(4))
        } else {
            Reply::Status(200)
        }
    });
    let hook = create_webhook(&app, &w.a, &receiver.url, json!([])).await;
    create_item(&app, "HANG-1").await;
    let _running = dispatcher(&app, fast());
    receiver.wait_for(1, WAIT);
    let received = receiver.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].body, received[1].body);
    let log = wait_for_log(&app, &w.a, hook["id"].as_str().unwrap(), 2).await;
    let timed_out = &log[1];
    assert_eq!(timed_out["statusCode"], Value::Null, "{timed_out}");
    assert!(
        timed_out["error"].as_str().unwrap().contains("timed out"),
        "{timed_out}"
    );
    assert!(
        timed_out["latencyMs"].as_u64().unwrap() >= 900,
        "{timed_out}"
    );
    assert!(
        timed_out["latencyMs"].as_u64().unwrap() < 3000,
        "{timed_out}"
    );
    assert_eq!(log[0]["outcome"], "SUCCEEDED");
}

async fn a_webhook_failing_for_its_window_gives_up_and_is_disabled(app: TestApp) {
    let app = app.allowing_private_webhooks();
    let w = app.world();
    let receiver = Receiver::start(|_| Reply::Status(500));
    let hook = create_webhook(&app, &w.a, &receiver.url, json!([])).await;
    let id = hook["id"].as_str().unwrap();
    create_item(&app, "DEAD-1").await;
    create_item(&app, "DEAD-2").await;
    let mut options = fast();
    options.retry.retry_window = Duration::from_secs(1);
    options.retry.disable_after = Duration::from_secs(1);
    let _running = dispatcher(&app, options);
    let start = std::time::Instant::now();
    let one = loop {
        let (_, one) = app.call(w.a.get(&format!("/api/v1/webhooks/{id}"))).await;
        if one["status"] == "DISABLED" {
            break one;
        }
        assert!(start.elapsed() < WAIT, "{one}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        one["disabledReason"]
            .as_str()
            .unwrap()
            .contains("failed continuously"),
        "{one}"
    );
    assert!(one["disabledAt"].is_string());
    assert!(one["failingSince"].is_string());
    let log = deliveries(&app, &w.a, id).await;
    assert_eq!(log[0]["outcome"], "FAILED", "{log:?}");
    assert!(log[1..].iter().all(|a| a["outcome"] == "RETRYING"));
    // Only the first event was tried; disabled, the webhook receives nothing more.
    let tried = receiver.received().len();
    assert!(receiver
        .received()
        .iter()
        .all(|r| r.json()["id"] == log[0]["eventId"]));
    create_item(&app, "DEAD-3").await;
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(receiver.received().len(), tried);
}

async fn private_and_malformed_urls_are_refused(app: TestApp) {
    let w = app.world();
    for url in [
        "http://127.0.0.1:8080/hook",
        "https://localhost/hook",
        "http://10.1.2.3/",
        "http://192.168.0.10/",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/",
        "http://[fd00::1]/",
        "http://100.64.1.1/",
        "http://0.0.0.0/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:0:7f00:1]/",
    ] {
        let (status, body) = app
            .call(w.a.post_json("/api/v1/webhooks", &json!({"url": url})))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{url}: {body}");
        assert_error(&body, "url");
    }
    for url in [
        json!("ftp://example.com/"),
        json!("https://user:secret@example.com/"),
        json!("not a url"),
        json!(""),
        json!(42),
        Value::Null,
    ] {
        let (status, body) = app
            .call(w.a.post_json("/api/v1/webhooks", &json!({"url": url})))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{url}: {body}");
        assert_error(&body, "url");
    }
    for types in [
        json!(["person.exploded"]),
        json!("person.created"),
        json!([1]),
    ] {
        let (status, body) = app
            .call(w.a.post_json(
                "/api/v1/webhooks",
                &json!({"url": "https://203.0.113.1/", "types": types}),
            ))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{types}: {body}");
        assert_error(&body, "types");
    }
    let (status, body) = app
        .call(w.a.post_json(
            "/api/v1/webhooks",
            &json!({"url": "https://8.8.8.8/", "secret": "x"}),
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_error(&body, "secret");
    // Nothing was created.
    let (_, list) = app.call(w.a.get("/api/v1/webhooks")).await;
    assert_eq!(list["data"], json!([]));
    // A public literal address is accepted without the flag; loopback with it.
    let (status, _) = app
        .call(w.a.post_json("/api/v1/webhooks", &json!({"url": "https://8.8.8.8/hook"})))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let app = app.allowing_private_webhooks();
    let (status, _) = app
        .call(w.a.post_json(
            "/api/v1/webhooks",
            &json!({"url": "http://127.0.0.1:8080/hook"}),
        ))
        .await;
    assert_eq!(status, StatusCode::CREATED);
}

async fn other_organizations_webhooks_and_events_stay_apart(app: TestApp) {
    let app = app.allowing_private_webhooks();
    let w = app.world();
    let a_receiver = Receiver::ok();
    let b_receiver = Receiver::ok();
    let a_hook = create_webhook(&app, &w.a, &a_receiver.url, json!([])).await;
    let b_hook = create_webhook(&app, &w.b, &b_receiver.url, json!([])).await;
    let b_id = b_hook["id"].as_str().unwrap();
    for path in [
        format!("/api/v1/webhooks/{b_id}"),
        format!("/api/v1/webhooks/{b_id}/deliveries"),
    ] {
        let (status, _) = app.call(w.a.get(&path)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
    let (status, _) = app
        .call(w.a.delete(&format!("/api/v1/webhooks/{b_id}")))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, list) = app.call(w.a.get("/api/v1/webhooks")).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert_eq!(list["data"][0]["id"], a_hook["id"]);
    // An event of B reaches B's receiver only.
    let _running = dispatcher(&app, fast());
    let body = json!({"skuId": w.b_sku, "deployStatus": "AVAILABLE", "condition": "NEW",
        "assignedTo": {"type": "WAREHOUSE", "id": w.b_warehouse}});
    let (status, item) = app.call(w.b.post_json("/api/v1/inventory", &body)).await;
    assert_eq!(status, StatusCode::CREATED, "{item}");
    let got = b_receiver.wait_for(1, WAIT);
    assert_eq!(got[0].json()["subject"]["id"], item["id"]);
    // A's webhook still exists after B's was not deletable by A.
    let (status, _) = app.call(w.b.get(&format!("/api/v1/webhooks/{b_id}"))).await;
    assert_eq!(status, StatusCode::OK);
    std::thread::sleep(Duration::from_millis(500));
    assert!(a_receiver.received().is_empty());
    // And A's own event reaches A only.
    create_item(&app, "ISO-A").await;
    a_receiver.wait_for(1, WAIT);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(b_receiver.received().len(), 1);
}

async fn webhooks_need_their_scope(app: TestApp) {
    let w = app.world();
    let some = uuid::Uuid::new_v4();
    for req in [
        w.limited.get("/api/v1/webhooks"),
        w.limited
            .post_json("/api/v1/webhooks", &json!({"url": "https://8.8.8.8/"})),
        w.limited.get(&format!("/api/v1/webhooks/{some}")),
        w.limited.delete(&format!("/api/v1/webhooks/{some}")),
        w.limited
            .get(&format!("/api/v1/webhooks/{some}/deliveries")),
        w.limited.post_json(
            &format!("/api/v1/webhooks/{some}/rotate-secret"),
            &json!({}),
        ),
    ] {
        let (status, body) = app.call(req).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
        assert_error(&body, "authorization");
    }
    let (status, _) = app
        .call(actix_web::test::TestRequest::get().uri("/api/v1/webhooks"))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app
        .call(w.a.with(actix_web::test::TestRequest::put().uri("/api/v1/webhooks")))
        .await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
}

async fn types_select_the_events_delivered(app: TestApp) {
    let app = app.allowing_private_webhooks();
    let w = app.world();
    let receiver = Receiver::ok();
    create_webhook(&app, &w.a, &receiver.url, json!(["inventory.item.updated"])).await;
    let _running = dispatcher(&app, fast());
    let item = create_item(&app, "TYPES-1").await;
    create_item(&app, "TYPES-2").await;
    let req =
        w.a.with(actix_web::test::TestRequest::patch().uri(&format!("/api/v1/inventory/{item}")))
            .set_json(json!({"description": "dented"}));
    let (status, body) = app.call(req).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let got = receiver.wait_for(1, WAIT);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(receiver.received().len(), 1);
    assert_eq!(got[0].json()["type"], "inventory.item.updated");
    assert_eq!(got[0].json()["subject"]["id"], item.as_str());
}

/// `equip serve` killed with SIGKILL in the middle of a run of deliveries
/// resumes after a restart: every event arrives (in order of first arrival),
/// an event in flight may arrive twice.
#[test]
fn a_killed_server_resumes_delivery_after_a_restart_sqlite() {
    killed_server_resumes(equip_persistence::test_support::TestDatabase::sqlite());
}

#[test]
fn a_killed_server_resumes_delivery_after_a_restart_postgres() {
    let Some(db) = equip_persistence::test_support::TestDatabase::postgres() else {
        return;
    };
    killed_server_resumes(db);
}

fn killed_server_resumes(db: equip_persistence::test_support::TestDatabase) {
    let key = organization_with_key(&db, "Kill Org");
    // Slow answers, so that the kill lands in the middle of the run.
    let receiver = Receiver::start(|_| Reply::SlowStatus(200, Duration::from_millis(15)));
    let args = [
        "--allow-private-webhooks",
        "--no-dispatcher",
        "--webhook-lease-ms",
        "2000",
    ];
    let mut serve = Serve::start(db.url(), &args);
    let api = serve.client(&key);
    let hook = api
        .post(
            "/api/v1/webhooks",
            "application/json",
            json!({"url": receiver.url}).to_string().as_bytes(),
        )
        .unwrap();
    assert_eq!(hook.status, 201, "{}", hook.text());
    let n = 200;
    for i in 0..n {
        let user = json!({
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
            "userName": format!("kill{i}@example.com"),
        });
        let r = api.scim_post("/scim/v2/Users", &user).unwrap();
        assert_eq!(r.status, 201, "{}", r.text());
    }
    receiver.wait_for(20, WAIT);
    serve.kill();
    let before = receiver.delivered().len();
    assert!(before < n, "all {n} were delivered before the kill");
    let _serve = Serve::start(db.url(), &args);
    let start = std::time::Instant::now();
    loop {
        let mut ids: Vec<String> = receiver
            .delivered()
            .iter()
            .map(|r| r.headers["equip-event-id"].clone())
            .collect();
        ids.sort();
        ids.dedup();
        if ids.len() == n {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{} of {n} events delivered after the restart",
            ids.len()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // In order of first arrival; re-deliveries only of events already sent.
    let mut seen = std::collections::BTreeSet::new();
    let mut last = 0;
    for r in receiver.delivered() {
        let seq = r.sequence();
        if seen.insert(seq) {
            assert!(seq > last, "{seq} first arrived after {last}");
            last = seq;
        }
    }
    assert_eq!(seen.len(), n);
    assert_eq!(*seen.last().unwrap() - *seen.first().unwrap() + 1, n as i64);
}

/// 99 webhooks, then twelve creates at once: exactly one more is created,
/// the others answer 409, and the organization has the limit (before, each
/// create counted outside its transaction: 104–108 on PostgreSQL).
async fn concurrent_creates_stop_at_the_limit(app: TestApp) {
    let app = app.allowing_private_webhooks();
    let w = app.world();
    let create = |i: usize| {
        w.a.post_json(
            "/api/v1/webhooks",
            &json!({"url": format!("http://127.0.0.1:9/hook{i}")}),
        )
    };
    for i in 0..99 {
        let (status, body) = app.call(create(i)).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let statuses = app
        .call_concurrently((100..112).map(create).collect())
        .await;
    assert_eq!(
        statuses
            .iter()
            .filter(|s| **s == StatusCode::CREATED)
            .count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses
            .iter()
            .all(|s| *s == StatusCode::CREATED || *s == StatusCode::CONFLICT),
        "{statuses:?}"
    );
    let (_, list) = app.call(w.a.get("/api/v1/webhooks")).await;
    assert_eq!(list["data"].as_array().map(Vec::len), Some(100), "{list}");
}

/// A receiver that cannot be reached: the delivery log names the host and
/// the kind of failure, never the URL's path or query (where receivers keep
/// their tokens).
async fn a_failed_delivery_logs_the_host_never_the_url(app: TestApp) {
    let app = app.allowing_private_webhooks();
    let w = app.world();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/hook/TOKEN-IN-PATH?key=TOKEN-IN-QUERY");
    let (status, hook) = app
        .call(w.a.post_json("/api/v1/webhooks", &json!({"url": url})))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    let id = hook["id"].as_str().unwrap().to_owned();
    create_item(&app, "UNREACHABLE-1").await;
    let _running = dispatcher(&app, fast());
    let log = wait_for_log(&app, &w.a, &id, 1).await;
    let error = log[0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("127.0.0.1"), "{log:?}");
    assert!(
        !error.contains("TOKEN") && !error.contains("/hook"),
        "{log:?}"
    );
}

/// A webhook with many events to deliver to a receiver that takes 20 ms an
/// answer is deleted mid-delivery: after the 204, at most the delivery
/// already under way arrives (before, 3–4 more started within 0.7 s: the
/// dispatcher noticed the delete only when it next saved its progress).
async fn no_delivery_starts_after_a_delete_is_answered(app: TestApp) {
    let app = app.allowing_private_webhooks();
    let w = app.world();
    let receiver = Receiver::start(|_| Reply::SlowStatus(204, Duration::from_millis(20)));
    let hook = create_webhook(&app, &w.a, &receiver.url, json!([])).await;
    for i in 0..60 {
        create_item(&app, &format!("DELETED-{i}")).await;
    }
    let _running = dispatcher(
        &app,
        WebhookOptions {
            flush_interval: Duration::from_secs(5),
            ..fast()
        },
    );
    receiver.wait_for(3, WAIT);
    let id = hook["id"].as_str().unwrap();
    let (status, _) = app
        .call(w.a.delete(&format!("/api/v1/webhooks/{id}")))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let at_delete = receiver.received().len();
    std::thread::sleep(Duration::from_millis(700));
    let after = receiver.received().len();
    assert!(
        after <= at_delete + 1,
        "{} deliveries arrived after the DELETE was answered",
        after - at_delete
    );
}

/// What Stripe's and Standard Webhooks' libraries say of a delivery under
/// each of `secrets` (scripts/verify_webhook.py runs docs/webhooks.md's
/// snippets): `{label: {"stripe": bool, "standard-webhooks": bool}}`.
fn verified_by_libraries(
    python: &std::path::Path,
    r: &crate::support::receiver::Received,
    secrets: &[(&str, &str)],
) -> Value {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let input = json!({
        "body": String::from_utf8(r.body.clone()).unwrap(),
        "headers": r.headers,
        "secrets": secrets.iter().map(|(l, s)| ((*l).to_owned(), json!(s))).collect::<serde_json::Map<_, _>>(),
    });
    let mut child = Command::new(python)
        .arg(repo_root().join("scripts/verify_webhook.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The webhook once its log has reached `sequence` (its position is written
/// in batches).
async fn webhook_at(app: &TestApp, client: &Client, id: &str, sequence: i64) -> Value {
    let start = std::time::Instant::now();
    loop {
        let (status, hook) = app
            .call(client.get(&format!("/api/v1/webhooks/{id}")))
            .await;
        assert_eq!(status, StatusCode::OK, "{hook}");
        if hook["lastDeliveredSequence"].as_i64() == Some(sequence) {
            return hook;
        }
        assert!(start.elapsed() < WAIT, "{hook}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every delivery verifies with the real `stripe` and `standardwebhooks`
/// packages (Equip-Signature; webhook-id, webhook-timestamp and
/// webhook-signature). A rotation answers a new secret and keeps the
/// webhook's position: the next event is the one after the last delivered.
/// During the overlap both headers carry both secrets' signatures and each
/// secret verifies with both libraries; after it only the new one does.
async fn verifier_libraries_accept_deliveries_and_a_rotation_overlaps(app: TestApp) {
    let Some(python) = venv_python("webhooks-venv.sh", "webhook verifier libraries") else {
        return;
    };
    let app = app.allowing_private_webhooks();
    let w = app.world();
    let receiver = Receiver::ok();
    let hook = create_webhook(&app, &w.a, &receiver.url, json!([])).await;
    let id = hook["id"].as_str().unwrap().to_owned();
    let old = hook["secret"].as_str().unwrap().to_owned();
    assert_eq!(hook["previousSecretExpiresAt"], Value::Null);
    let _running = dispatcher(&app, fast());

    create_item(&app, "ROT-1").await;
    let first = receiver.wait_for(1, WAIT)[0].clone();
    assert_eq!(first.headers["webhook-id"], first.headers["equip-event-id"]);
    assert_eq!(
        first.headers["webhook-timestamp"],
        first.headers["equip-signature"][2..]
            .split(',')
            .next()
            .unwrap()
    );
    assert_eq!(first.headers["equip-signature"].matches("v1=").count(), 1);
    assert_eq!(first.headers["webhook-signature"].matches("v1,").count(), 1);
    let both = json!({"stripe": true, "standard-webhooks": true});
    let neither = json!({"stripe": false, "standard-webhooks": false});
    assert_eq!(
        verified_by_libraries(
            &python,
            &first,
            &[("old", &old), ("wrong", "whsec_0123456789abcdef")]
        ),
        json!({"old": both, "wrong": neither})
    );
    let before = webhook_at(&app, &w.a, &id, first.sequence()).await;

    // Rotate, with an overlap of 8 seconds.
    const OVERLAP: i64 = 8;
    let rotated_at = chrono::Utc::now();
    let (status, rotated) = app
        .call(w.a.post_json(
            &format!("/api/v1/webhooks/{id}/rotate-secret"),
            &json!({"overlapSeconds": OVERLAP}),
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{rotated}");
    let new = rotated["secret"].as_str().unwrap().to_owned();
    assert!(new.starts_with("whsec_") && new != old, "{rotated}");
    assert_eq!(
        rotated["lastDeliveredSequence"],
        before["lastDeliveredSequence"]
    );
    for field in ["id", "url", "types", "createdAt", "status", "failingSince"] {
        assert_eq!(rotated[field], before[field], "{field}");
    }
    let until =
        chrono::DateTime::parse_from_rfc3339(rotated["previousSecretExpiresAt"].as_str().unwrap())
            .unwrap()
            .with_timezone(&chrono::Utc);
    let expected = rotated_at + chrono::Duration::seconds(OVERLAP);
    assert!(
        (until - expected).num_milliseconds().abs() < 2_000,
        "{until} vs {expected}"
    );
    let (_, shown) = app.call(w.a.get(&format!("/api/v1/webhooks/{id}"))).await;
    assert_eq!(
        shown["previousSecretExpiresAt"],
        rotated["previousSecretExpiresAt"]
    );
    assert!(shown.get("secret").is_none(), "{shown}");

    // During the overlap: the next event (nothing skipped, nothing sent
    // again), signed with both secrets in both forms.
    create_item(&app, "ROT-2").await;
    let second = receiver.wait_for(2, WAIT)[1].clone();
    assert_eq!(second.sequence(), first.sequence() + 1);
    assert!(
        chrono::Utc::now() < until,
        "the machine was too slow to deliver within the overlap"
    );
    assert_eq!(second.headers["equip-signature"].matches("v1=").count(), 2);
    assert_eq!(
        second.headers["webhook-signature"].matches("v1,").count(),
        2
    );
    assert_eq!(
        verified_by_libraries(&python, &second, &[("old", &old), ("new", &new)]),
        json!({"old": both, "new": both})
    );
    webhook_at(&app, &w.a, &id, second.sequence()).await;

    // After the overlap: the new secret only.
    let left = until - chrono::Utc::now();
    if let Ok(left) = left.to_std() {
        std::thread::sleep(left + Duration::from_millis(200));
    }
    create_item(&app, "ROT-3").await;
    let third = receiver.wait_for(3, WAIT)[2].clone();
    assert_eq!(third.sequence(), second.sequence() + 1);
    assert_eq!(third.headers["equip-signature"].matches("v1=").count(), 1);
    assert_eq!(third.headers["webhook-signature"].matches("v1,").count(), 1);
    assert_eq!(
        verified_by_libraries(&python, &third, &[("old", &old), ("new", &new)]),
        json!({"old": neither, "new": both})
    );
    let after = webhook_at(&app, &w.a, &id, third.sequence()).await;
    assert_eq!(after["previousSecretExpiresAt"], Value::Null);
    // Each event was delivered once.
    assert_eq!(receiver.received().len(), 3);
}

/// A rotation needs the scope and the organization's webhook; its overlap
/// is 0 to 7 days; zero stops the old secret at once; the default is a day.
async fn rotation_is_refused_as_it_should_be(app: TestApp) {
    let app = app.allowing_private_webhooks();
    let w = app.world();
    let hook = create_webhook(&app, &w.a, "http://127.0.0.1:9/hook", json!([])).await;
    let id = hook["id"].as_str().unwrap();
    let path = format!("/api/v1/webhooks/{id}/rotate-secret");
    let (status, body) = app.call(w.b.post_json(&path, &json!({}))).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "another organization's: {body}"
    );
    let unknown = format!("/api/v1/webhooks/{}/rotate-secret", uuid::Uuid::new_v4());
    let (status, _) = app.call(w.a.post_json(&unknown, &json!({}))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    for bad in [
        json!({"overlapSeconds": -1}),
        json!({"overlapSeconds": 604_801}),
        json!({"overlapSeconds": "1"}),
        json!({"overlap": 1}),
    ] {
        let (status, body) = app.call(w.a.post_json(&path, &bad)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
    }
    let (status, body) = app
        .call(w.a.post_json(&path, &json!({"overlapSeconds": -1})))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_error(&body, "overlapSeconds");

    let (status, day) = app.call(w.a.post_json(&path, &json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{day}");
    let until =
        chrono::DateTime::parse_from_rfc3339(day["previousSecretExpiresAt"].as_str().unwrap())
            .unwrap();
    let hours = (until.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_minutes();
    assert!((23 * 60..=24 * 60).contains(&hours), "{day}");
    // A whole number written with a fraction of zero is a whole number
    // (JSON Schema's integer), as everywhere in the API.
    let (status, body) = app
        .call(w.a.post_json(&path, &json!({"overlapSeconds": 60.0})))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, now) = app
        .call(w.a.post_json(&path, &json!({"overlapSeconds": null, "x": 1})))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "unknown member: {now}");
    let (status, now) = app
        .call(w.a.post_json(&path, &json!({"overlapSeconds": 0})))
        .await;
    assert_eq!(status, StatusCode::OK, "{now}");
    assert_eq!(now["previousSecretExpiresAt"], Value::Null);
    assert_ne!(now["secret"], day["secret"]);

    // The scope: a key without webhooks:write is refused before anything.
    let (status, _) = app.call(w.limited.post_json(&path, &json!({}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}
