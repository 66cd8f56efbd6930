//! Black-box tests of the new-joiner reminder endpoints through the real
//! application (routes, extractors, error mapping, the Diesel store), on SQLite
//! and on PostgreSQL: every status of `POST /api/v1/new-joiners/{id}/remind`,
//! the listing, and the outbox rows written with the reminder.
use crate::support::reminders::{seed_people, People};
use crate::support::TestApp;
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use chrono::Utc;
use equip_domain::ids::{OutboxMessageId, PersonId, ReminderId};
use equip_domain::ports::{OutboxRepository, ReminderRepository};
use equip_domain::reminder::{DeliveryStatus, OutboxMessage, Reminder};
use serde_json::{json, Value};

on_both_backends!(
    remind_accepts_absent_empty_and_empty_object_bodies,
    remind_records_the_sender_and_queues_the_email,
    reminders_are_listed_newest_first_with_delivery_status,
    malformed_ids_and_bodies_are_400,
    missing_key_is_401_and_missing_scope_is_403,
    people_outside_the_organization_are_404,
    people_who_are_not_new_joiners_are_409,
    other_methods_are_405,
    reminder_and_email_are_written_together_or_not_at_all,
    the_email_names_the_package_and_the_order_status,
);

fn people(app: &TestApp) -> People {
    let w = app.world();
    seed_people(&app.store, w.a_org, w.b_org)
}

fn remind_path(id: impl std::fmt::Display) -> String {
    format!("/api/v1/new-joiners/{id}/remind")
}

fn assert_api_error(body: &Value, source: &str) {
    let errors = body["errors"].as_array().expect("errors array");
    assert_eq!(errors.len(), 1, "{body}");
    assert_eq!(errors[0]["source"], source, "{body}");
    assert!(
        errors[0]["detail"].as_str().is_some_and(|d| !d.is_empty()),
        "{body}"
    );
}

/// Every pending outbox message (claimed, so the caller sees its content).
fn queued(app: &TestApp) -> Vec<OutboxMessage> {
    let now = Utc::now();
    app.store
        .claim_outbox_messages(now, now + chrono::Duration::minutes(5), 1000)
        .unwrap()
}

fn assert_reminder(body: &Value, person: PersonId, sender: Option<PersonId>) {
    let keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        ["createdAt", "id", "personId", "senderPersonId", "status"],
        "{body}"
    );
    assert!(ReminderId::parse(body["id"].as_str().unwrap()).is_ok());
    assert_eq!(body["personId"], person.to_string());
    assert_eq!(body["senderPersonId"], json!(sender.map(|s| s.to_string())));
    assert_eq!(body["status"], "PENDING");
    assert!(chrono::DateTime::parse_from_rfc3339(body["createdAt"].as_str().unwrap()).is_ok());
}

async fn remind_accepts_absent_empty_and_empty_object_bodies(app: TestApp) {
    let w = app.world();
    let p = people(&app);
    let path = remind_path(p.joiner.id);
    let requests = vec![
        // No body, no Content-Type.
        w.a.with(TestRequest::post().uri(&path)),
        // Empty body declared as JSON.
        w.a.with(
            TestRequest::post()
                .uri(&path)
                .insert_header(("Content-Type", "application/json")),
        ),
        // Whitespace only.
        w.a.with(
            TestRequest::post()
                .uri(&path)
                .insert_header(("Content-Type", "application/json"))
                .set_payload(" \n"),
        ),
        w.a.post_json(&path, &json!({})),
        w.a.post_json(&path, &json!({"senderPersonId": null})),
    ];
    for req in requests {
        let raw = app.call_raw(req).await;
        assert_eq!(raw.status, StatusCode::ACCEPTED, "{:?}", raw.body);
        assert_eq!(raw.content_type.as_deref(), Some("application/json"));
        assert_eq!(
            raw.location.as_deref(),
            Some(format!("/api/v1/new-joiners/{}/reminders", p.joiner.id).as_str())
        );
        let body: Value = serde_json::from_slice(&raw.body).unwrap();
        assert_reminder(&body, p.joiner.id, None);
    }
    // A start date of today still counts.
    let (status, body) = app
        .call(w.a.post_json(&remind_path(p.joiner_today.id), &json!({})))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_eq!(queued(&app).len(), 6);
}

async fn remind_records_the_sender_and_queues_the_email(app: TestApp) {
    let w = app.world();
    let p = people(&app);
    let (status, body) = app
        .call(w.a.post_json(
            &remind_path(p.joiner.id),
            &json!({"senderPersonId": p.sender.id.to_string()}),
        ))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_reminder(&body, p.joiner.id, Some(p.sender.id));
    // Upper-case UUIDs are UUIDs too.
    let upper = p.sender.id.to_string().to_uppercase();
    let (status, body) = app
        .call(w.a.post_json(
            &remind_path(p.joiner.id.to_string().to_uppercase()),
            &json!({"senderPersonId": upper}),
        ))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_reminder(&body, p.joiner.id, Some(p.sender.id));

    let messages = queued(&app);
    assert_eq!(messages.len(), 2);
    let m = &messages[0];
    assert_eq!(m.organization_id, w.a_org);
    assert_eq!(m.recipient, "ana.silva@acme.example", "the primary email");
    assert!(m.subject.contains("Ana Silva"), "{}", m.subject);
    let start = equip_domain::email::long_date(p.joiner.start_date.unwrap());
    for body in [&m.body_text, &m.body_html] {
        assert!(body.contains("Ana Silva"), "{body}");
        assert!(body.contains(&start), "{body}");
        assert!(body.contains("Engineering Mac Kit"), "{body}");
        // Nobody else's data, not even the sender's.
        assert!(!body.contains("private."), "{body}");
        assert!(!body.contains("Hana"), "{body}");
        assert!(!body.contains("hr.lead"), "{body}");
    }
    assert!(m.body_html.contains("<strong>Engineering Mac Kit</strong>"));
}

async fn reminders_are_listed_newest_first_with_delivery_status(app: TestApp) {
    let w = app.world();
    let p = people(&app);
    let list = format!("/api/v1/new-joiners/{}/reminders", p.joiner.id);
    let (status, body) = app.call(w.a.get(&list)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body, json!({"data": []}));

    let mut ids = Vec::new();
    for sender in [None, Some(p.sender.id)] {
        let body = match sender {
            Some(s) => json!({"senderPersonId": s.to_string()}),
            None => json!({}),
        };
        let (status, body) = app
            .call(w.a.post_json(&remind_path(p.joiner.id), &body))
            .await;
        assert_eq!(status, StatusCode::ACCEPTED);
        ids.push(body["id"].as_str().unwrap().to_owned());
    }
    let (status, body) = app.call(w.a.get(&list)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let data = body["data"].as_array().unwrap();
    assert_eq!(data.len(), 2, "{body}");
    assert_eq!(data[0]["id"], ids[1], "newest first: {body}");
    assert_eq!(data[1]["id"], ids[0]);
    assert_eq!(data[0]["senderPersonId"], p.sender.id.to_string());
    assert_eq!(data[1]["senderPersonId"], Value::Null);
    for r in data {
        assert_eq!(r["status"], "PENDING");
        assert_eq!(r["attempts"], 0);
        assert_eq!(r["lastError"], Value::Null);
        assert_eq!(r["sentAt"], Value::Null);
        assert!(r["nextAttemptAt"].is_string(), "{r}");
    }

    // A delivered message shows as SENT.
    let messages = queued(&app);
    let first = messages
        .iter()
        .find(|m| m.reminder_id.to_string() == ids[0])
        .unwrap();
    assert!(app
        .store
        .mark_outbox_sent(first.id, first.claimed_until.unwrap(), Utc::now())
        .unwrap());
    let (_, body) = app.call(w.a.get(&list)).await;
    let older = &body["data"][1];
    assert_eq!(older["status"], "SENT", "{body}");
    assert_eq!(older["attempts"], 1);
    assert!(older["sentAt"].is_string());
    assert_eq!(older["nextAttemptAt"], Value::Null);
    // The feed records both reminders (the caller's key) and the delivery
    // (equip's own dispatcher: SYSTEM).
    let (_, feed) = app
        .call(w.a.get("/api/v1/events?types=reminder.created,reminder.delivered"))
        .await;
    let events: Vec<(&str, &str, &str)> = feed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap(),
                e["subject"]["id"].as_str().unwrap(),
                e["actor"]["type"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            ("reminder.created", ids[0].as_str(), "API_KEY"),
            ("reminder.created", ids[1].as_str(), "API_KEY"),
            ("reminder.delivered", ids[0].as_str(), "SYSTEM"),
        ]
    );

    // Another organization's person, or an unknown one: 404.
    let (status, body) = app.call(w.b.get(&list)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_api_error(&body, "person");
    let (status, body) = app
        .call(w.a.get("/api/v1/new-joiners/not-a-uuid/reminders"))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_api_error(&body, "personId");
}

async fn malformed_ids_and_bodies_are_400(app: TestApp) {
    let w = app.world();
    let p = people(&app);
    let path = remind_path(p.joiner.id);

    let (status, body) = app
        .call(w.a.post_json(&remind_path("nope"), &json!({})))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_api_error(&body, "personId");

    for bad in [
        json!({"senderPersonId": "nope"}),
        json!({"senderPersonId": 42}),
        json!({"senderPersonId": ""}),
    ] {
        let (status, body) = app.call(w.a.post_json(&path, &bad)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert_api_error(&body, "senderPersonId");
    }
    // A member the body does not have is refused, not ignored (a misspelt
    // sender would otherwise be dropped silently).
    let (status, body) = app
        .call(w.a.post_json(&path, &json!({"senderPersonID": p.sender.id.to_string()})))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_api_error(&body, "senderPersonID");
    for raw in ["{", "{\"senderPersonId\":", "[]", "\"x\"", "null"] {
        let req = w.a.with(
            TestRequest::post()
                .uri(&path)
                .insert_header(("Content-Type", "application/json"))
                .set_payload(raw),
        );
        let (status, body) = app.call(req).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{raw}");
        assert_api_error(&body, "request");
    }
    // A body that is not JSON at all.
    let req = w.a.with(
        TestRequest::post()
            .uri(&path)
            .insert_header(("Content-Type", "text/plain"))
            .set_payload("hello"),
    );
    let (status, body) = app.call(req).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_api_error(&body, "Content-Type");
    // Too large.
    let big = format!("{{\"pad\":\"{}\"}}", "x".repeat(70 * 1024));
    let req = w.a.with(
        TestRequest::post()
            .uri(&path)
            .insert_header(("Content-Type", "application/json"))
            .set_payload(big),
    );
    let (status, body) = app.call(req).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_api_error(&body, "request");
    assert!(queued(&app).is_empty(), "nothing queued by bad requests");
}

async fn missing_key_is_401_and_missing_scope_is_403(app: TestApp) {
    let w = app.world();
    let p = people(&app);
    let path = remind_path(p.joiner.id);
    let (status, body) = app.call(TestRequest::post().uri(&path)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_api_error(&body, "authorization");
    let (status, body) = app.call(w.limited.post_json(&path, &json!({}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_api_error(&body, "authorization");
    let list = format!("/api/v1/new-joiners/{}/reminders", p.joiner.id);
    let (status, _) = app.call(w.limited.get(&list)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    // Scope is checked before the id is parsed: no information for the caller.
    let (status, _) = app
        .call(w.limited.post_json(&remind_path("nope"), &json!({})))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(queued(&app).is_empty());
}

async fn people_outside_the_organization_are_404(app: TestApp) {
    let w = app.world();
    let p = people(&app);
    for person in [PersonId::new(), p.other_org_joiner.id] {
        let (status, body) = app
            .call(w.a.post_json(&remind_path(person), &json!({})))
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_api_error(&body, "person");
    }
    for sender in [PersonId::new(), p.other_org_joiner.id] {
        let (status, body) = app
            .call(w.a.post_json(
                &remind_path(p.joiner.id),
                &json!({"senderPersonId": sender.to_string()}),
            ))
            .await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert_api_error(&body, "senderPersonId");
    }
    // Organization B sees its own person, not A's.
    let (status, _) = app
        .call(w.b.post_json(&remind_path(p.other_org_joiner.id), &json!({})))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let (status, _) = app
        .call(w.b.post_json(&remind_path(p.joiner.id), &json!({})))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(queued(&app).len(), 1);
}

async fn people_who_are_not_new_joiners_are_409(app: TestApp) {
    let w = app.world();
    let p = people(&app);
    for (person, why) in [
        (&p.started, "already started"),
        (&p.offboarding, "offboarded"),
        (&p.no_start, "no start date"),
        (&p.sender, "no start date"),
    ] {
        let (status, body) = app
            .call(w.a.post_json(&remind_path(person.id), &json!({})))
            .await;
        assert_eq!(status, StatusCode::CONFLICT, "{why}: {body}");
        assert_api_error(&body, "person");
        assert!(
            body["errors"][0]["detail"].as_str().unwrap().contains(why),
            "{body}"
        );
    }
    assert!(queued(&app).is_empty(), "nothing queued for a 409");
}

async fn other_methods_are_405(app: TestApp) {
    let w = app.world();
    let p = people(&app);
    let raw = app.call_raw(w.a.get(&remind_path(p.joiner.id))).await;
    assert_eq!(raw.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(raw.allow.as_deref(), Some("POST"));
    let list = format!("/api/v1/new-joiners/{}/reminders", p.joiner.id);
    let raw = app.call_raw(w.a.with(TestRequest::post().uri(&list))).await;
    assert_eq!(raw.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(raw.allow.as_deref(), Some("GET, HEAD"));
}

async fn reminder_and_email_are_written_together_or_not_at_all(app: TestApp) {
    let w = app.world();
    let p = people(&app);
    let now = Utc::now();
    let reminder = |id| Reminder {
        id,
        organization_id: w.a_org,
        person_id: p.joiner.id,
        sender_person_id: None,
        status: DeliveryStatus::Pending,
        created_at: now,
    };
    let message = |id, reminder_id| OutboxMessage {
        id,
        organization_id: w.a_org,
        reminder_id,
        recipient: "ana.silva@acme.example".into(),
        subject: "s".into(),
        body_text: "t".into(),
        body_html: "h".into(),
        status: DeliveryStatus::Pending,
        attempts: 0,
        next_attempt_at: now,
        last_error: None,
        sent_at: None,
        claimed_until: None,
        created_at: now,
    };
    let first = reminder(ReminderId::new());
    let message_id = OutboxMessageId::new();
    app.store
        .insert_reminder(&first, &message(message_id, first.id))
        .unwrap();
    // The second reminder's email clashes with the first's id: the reminder
    // must not be kept either.
    let second = reminder(ReminderId::new());
    assert!(app
        .store
        .insert_reminder(&second, &message(message_id, second.id))
        .is_err());
    let listed = app.store.list_reminders(w.a_org, p.joiner.id).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].reminder.id, first.id);
}

async fn the_email_names_the_package_and_the_order_status(app: TestApp) {
    let w = app.world();
    let p = people(&app);
    let remind = || w.a.post_json(&remind_path(p.joiner.id), &json!({}));
    let (status, body) = app.call(remind()).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let m = queued(&app).pop().unwrap();
    for body in [&m.body_text, &m.body_html] {
        assert!(body.contains("Engineering Mac Kit"), "{body}");
        assert!(body.contains("no order yet"), "{body}");
    }
    // The joiner's order (written here as the order creation writes it).
    let order = uuid::Uuid::new_v4();
    app.db().execute(&format!(
        "INSERT INTO orders (id, organization_id, person_id, package_id, status, created_at, \
         updated_at) VALUES ('{order}', '{}', '{}', '{}', 'SHIPPED', CURRENT_TIMESTAMP, \
         CURRENT_TIMESTAMP)",
        w.a_org, p.joiner.id, p.package.id
    ));
    let (status, _) = app.call(remind()).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let m = queued(&app).pop().unwrap();
    for body in [&m.body_text, &m.body_html] {
        assert!(body.contains("Your equipment order: SHIPPED"), "{body}");
        assert!(body.contains("on its way"), "{body}");
    }
    // A cancelled order is no order.
    app.db().execute(&format!(
        "UPDATE orders SET status = 'CANCELLED' WHERE id = '{order}'"
    ));
    let (status, _) = app.call(remind()).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let m = queued(&app).pop().unwrap();
    assert!(m.body_text.contains("no order yet"), "{}", m.body_text);
    // Another person's order is not theirs.
    let (status, _) = app
        .call(w.a.post_json(&remind_path(p.joiner_today.id), &json!({})))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let m = queued(&app).pop().unwrap();
    assert!(m.body_text.contains("no order yet"), "{}", m.body_text);
}
