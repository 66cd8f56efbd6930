//! `/api/v1/new-joiners/{personId}/remind` (docs/reminders.md) and
//! `/api/v1/new-joiners/{personId}/reminders` (extension: a person's reminders
//! with the delivery state of their emails). Scope `new-joiners:write`.

use actix_web::http::header::{CONTENT_TYPE, LOCATION};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::Utc;
use equip_api_types::error::ErrorBody;
use equip_api_types::reminder::{
    ReminderBody, ReminderDeliveryBody, ReminderList, ReminderRequest,
};
use equip_domain::ids::PersonId;
use equip_domain::services::reminders::{list_reminders, send_reminder};
use serde_json::Value;
use utoipa::openapi::Required;
use utoipa::{Modify, OpenApi};

use crate::body::{self, path_id};
use crate::error::HttpError;
use crate::scoped::Scoped;

/// Largest body accepted by the remind endpoint (it is at most a small object).
pub const REMIND_BODY_LIMIT: usize = 64 * 1024;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(remind, list), modifiers(&OptionalBody))]
pub struct Doc;

/// The remind body may be absent. utoipa writes an optional body
/// (`Option<ReminderRequest>`) as a schema that also takes a JSON `null`,
/// which the endpoint refuses; the body is declared as the object and made
/// optional here.
struct OptionalBody;

impl Modify for OptionalBody {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let remind = doc
            .paths
            .paths
            .get_mut("/api/v1/new-joiners/{personId}/remind")
            .and_then(|item| item.post.as_mut())
            .and_then(|op| op.request_body.as_mut());
        if let Some(body) = remind {
            body.required = Some(Required::False);
        }
    }
}

/// The remind request's body: absent or white space only (then no sender),
/// else a JSON object (`ReminderRequest`: `{}`, `{"senderPersonId": null}`
/// and a body without a sender mean none).
fn request_of(req: &HttpRequest, body: &[u8]) -> Result<ReminderRequest, HttpError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(ReminderRequest::default());
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
    body::parse(value)
}

/// `POST /api/v1/new-joiners/{personId}/remind`: 202 with the reminder, whose
/// email is queued in the outbox (written in the same transaction) and
/// delivered by the dispatcher. 400 malformed ids or JSON; 403 without
/// `new-joiners:write`; 404 person or sender not in the organization; 409 the
/// person is not a new joiner.
#[utoipa::path(
    post,
    path = "/api/v1/new-joiners/{personId}/remind",
    operation_id = "remindNewJoiner",
    tag = "new-joiners",
    summary = "Send a reminder email to a new joiner.",
    description = "The reminder and its email are written to an outbox in one transaction and \
        delivered in the background. The body may be absent, empty or {}.",
    params(("personId" = uuid::Uuid, Path, description = "The new joiner.")),
    request_body = ReminderRequest,
    responses(
        (status = 202, description = "Accepted: the email is queued.", body = ReminderBody, headers(
            ("Location" = String, description = "/api/v1/new-joiners/{personId}/reminders."),
        )),
        (status = 400, description = "A malformed id or body.", body = ErrorBody),
        (status = 404, description = "The person or the sender is not in the organization.", body = ErrorBody),
        (status = 409, description = "The person is not a new joiner (offboarded, or already started).", body = ErrorBody),
        (status = 413, description = format!("The body is larger than {REMIND_BODY_LIMIT} bytes."), body = ErrorBody),
        (status = 415, description = "The body is not application/json.", body = ErrorBody),
    ),
)]
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
    let sender = request_of(&req, &body)?.sender_person_id;
    let reminder = scoped
        .run(move |ports, org| send_reminder(ports, org, person, sender, Utc::now()))
        .await?;
    Ok(HttpResponse::Accepted()
        .insert_header((LOCATION, format!("/api/v1/new-joiners/{person}/reminders")))
        .json(ReminderBody::from(&reminder)))
}

/// `GET /api/v1/new-joiners/{personId}/reminders` (extension): `{"data": [...]}`,
/// newest first, each with `status` (PENDING, SENT, DEAD), `attempts`,
/// `lastError`, `sentAt` and `nextAttemptAt` (while pending).
#[utoipa::path(
    get,
    path = "/api/v1/new-joiners/{personId}/reminders",
    operation_id = "listReminders",
    tag = "new-joiners",
    summary = "A person's reminders with the delivery state of their emails, newest first (extension).",
    params(("personId" = uuid::Uuid, Path, description = "The person.")),
    responses(
        (status = 200, description = "The reminders.", body = inline(ReminderList)),
        (status = 400, description = "The id is not a UUID.", body = ErrorBody),
        (status = 404, description = "The person is not in the organization.", body = ErrorBody),
    ),
)]
pub async fn list(scoped: Scoped, person_id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let person = path_id("personId", &person_id, PersonId::parse)?;
    let reminders = scoped
        .run(move |ports, org| list_reminders(ports, org, person))
        .await?;
    Ok(HttpResponse::Ok().json(ReminderList {
        data: reminders.iter().map(ReminderDeliveryBody::from).collect(),
    }))
}
