//! `/api/v1/new-joiners/{personId}/remind` (docs/reminders.md) and
//! `/api/v1/new-joiners/{personId}/reminders` (extension: a person's reminders
//! with the delivery state of their emails). Scope `new-joiners:write`.

use actix_web::http::header::{CONTENT_TYPE, LOCATION};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::{DateTime, SecondsFormat, Utc};
use equip_domain::ids::PersonId;
use equip_domain::reminder::{Reminder, ReminderDelivery};
use equip_domain::services::reminders::{list_reminders, send_reminder};
use serde_json::{json, Value};

use crate::body::path_id;
use crate::error::HttpError;
use crate::scoped::Scoped;

/// Largest body accepted by the remind endpoint (it is at most a small object).
pub const REMIND_BODY_LIMIT: usize = 64 * 1024;

fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The JSON of a reminder: `{"id","personId","senderPersonId","status","createdAt"}`.
#[must_use]
pub fn reminder_json(r: &Reminder) -> Value {
    json!({
        "id": r.id,
        "personId": r.person_id,
        "senderPersonId": r.sender_person_id,
        "status": r.status,
        "createdAt": time(r.created_at),
    })
}

/// The JSON of a reminder with its delivery state.
#[must_use]
pub fn delivery_json(d: &ReminderDelivery) -> Value {
    let mut v = reminder_json(&d.reminder);
    if let Value::Object(map) = &mut v {
        map.insert("attempts".into(), json!(d.attempts));
        map.insert("lastError".into(), json!(d.last_error));
        map.insert("sentAt".into(), json!(d.sent_at.map(time)));
        map.insert(
            "nextAttemptAt".into(),
            json!(
                (d.reminder.status == equip_domain::reminder::DeliveryStatus::Pending)
                    .then(|| time(d.next_attempt_at))
            ),
        );
    }
    v
}

/// The optional `senderPersonId` of a remind body: absent, empty, `{}` or
/// `{"senderPersonId": null}` mean none.
fn sender_of(req: &HttpRequest, body: &[u8]) -> Result<Option<PersonId>, HttpError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    if let Some(ct) = req.headers().get(CONTENT_TYPE) {
        let json = ct
            .to_str()
            .ok()
            .and_then(|s| s.parse::<mime::Mime>().ok())
            .is_some_and(|m| m.subtype() == mime::JSON || m.suffix() == Some(mime::JSON));
        if !json {
            return Err(HttpError::with_status(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Content-Type",
                "expected Content-Type application/json",
            ));
        }
    }
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| HttpError::invalid("request", format!("malformed JSON body: {e}")))?;
    let Value::Object(map) = value else {
        return Err(HttpError::invalid(
            "request",
            "the body must be a JSON object",
        ));
    };
    match map.get("senderPersonId") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => PersonId::parse(s).map(Some).map_err(|_| {
            HttpError::invalid("senderPersonId", format!("'{s}' is not a valid UUID"))
        }),
        Some(_) => Err(HttpError::invalid(
            "senderPersonId",
            "senderPersonId must be a UUID string",
        )),
    }
}

/// `POST /api/v1/new-joiners/{personId}/remind`: 202 with the reminder, whose
/// email is queued in the outbox (written in the same transaction) and
/// delivered by the dispatcher. 400 malformed ids or JSON; 403 without
/// `new-joiners:write`; 404 person or sender not in the organization; 409 the
/// person is not a new joiner.
pub async fn remind(
    scoped: Scoped,
    person_id: web::Path<String>,
    req: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, HttpError> {
    let person = path_id("personId", &person_id, PersonId::parse)?;
    let body = match payload.to_bytes_limited(REMIND_BODY_LIMIT).await {
        Ok(Ok(body)) => body,
        Ok(Err(e)) => {
            return Err(HttpError::invalid(
                "request",
                format!("unreadable body: {e}"),
            ))
        }
        Err(_) => {
            return Err(HttpError::with_status(
                StatusCode::PAYLOAD_TOO_LARGE,
                "request",
                format!("request body is larger than the limit ({REMIND_BODY_LIMIT} bytes)"),
            ))
        }
    };
    let sender = sender_of(&req, &body)?;
    let reminder = scoped
        .run(move |ports, org| send_reminder(ports, org, person, sender, Utc::now()))
        .await?;
    Ok(HttpResponse::Accepted()
        .insert_header((LOCATION, format!("/api/v1/new-joiners/{person}/reminders")))
        .json(reminder_json(&reminder)))
}

/// `GET /api/v1/new-joiners/{personId}/reminders` (extension): `{"data": [...]}`,
/// newest first, each with `status` (PENDING, SENT, DEAD), `attempts`,
/// `lastError`, `sentAt` and `nextAttemptAt` (while pending).
pub async fn list(scoped: Scoped, person_id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let person = path_id("personId", &person_id, PersonId::parse)?;
    let reminders = scoped
        .run(move |ports, org| list_reminders(ports, org, person))
        .await?;
    let data: Vec<Value> = reminders.iter().map(delivery_json).collect();
    Ok(HttpResponse::Ok().json(json!({ "data": data })))
}
