//! `/api/v1/webhooks`: create, list, read and delete an organization's
//! webhooks, and read a webhook's delivery log (docs/webhooks.md). Scope
//! `webhooks:write`.

use std::net::{IpAddr, ToSocketAddrs};

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpResponse};
use chrono::{DateTime, SecondsFormat, Utc};
use equip_domain::event_feed::{page_size, Cursor};
use equip_domain::ids::WebhookId;
use equip_domain::services::webhooks::{
    create_webhook, delete_webhook, get_webhook, list_attempts, list_webhooks,
};
use equip_domain::webhook::{
    parse_types, AddressPolicy, DeliveryAttempt, UrlHost, Webhook, WebhookUrl,
};
use equip_domain::DomainError;
use serde_json::{json, Value};

use crate::body::{path_id, Fields};
use crate::error::HttpError;
use crate::scoped::Scoped;

fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The JSON of a webhook (never its secret).
#[must_use]
pub fn webhook_json(w: &Webhook) -> Value {
    json!({
        "id": w.id,
        "url": w.url,
        "types": w.types.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
        "createdAt": time(w.created_at),
        "status": w.status.as_str(),
        "disabledAt": w.disabled_at.map(time),
        "disabledReason": w.disabled_reason,
        "failingSince": w.failing_since.map(time),
        "lastDeliveredSequence": w.delivery.position,
    })
}

/// The JSON of one delivery attempt.
#[must_use]
pub fn attempt_json(a: &DeliveryAttempt) -> Value {
    json!({
        "attemptedAt": time(a.attempted_at),
        "eventId": a.event_id,
        "sequence": a.sequence,
        "statusCode": a.status_code,
        "latencyMs": a.latency_ms,
        "error": a.error,
        "outcome": a.outcome.as_str(),
    })
}

/// Resolves the URL's host (a literal address as it is) and checks every
/// address against `policy`. Blocking (name resolution).
///
/// # Errors
/// [`DomainError::Invalid`] naming `url`.
pub fn check_url_addresses(url: &WebhookUrl, policy: AddressPolicy) -> Result<(), DomainError> {
    let addrs: Vec<IpAddr> = match url.host() {
        UrlHost::Ip(ip) => vec![ip],
        UrlHost::Name(name) => (name.as_str(), url.port())
            .to_socket_addrs()
            .map_err(|e| {
                DomainError::invalid("url", format!("the host '{name}' cannot be resolved: {e}"))
            })?
            .map(|a| a.ip())
            .collect(),
    };
    policy
        .check(&addrs)
        .map_err(|why| DomainError::invalid("url", why))
}

/// `POST /api/v1/webhooks` `{"url", "types"}`: 201 with the webhook and its
/// `secret` (shown only here) and its `Location`.
pub async fn create(scoped: Scoped, body: web::Json<Value>) -> Result<HttpResponse, HttpError> {
    let fields = Fields::of(&body)?;
    fields.only(&["url", "types"])?;
    let raw_url = fields.require("url", "a URL string", |v| v.as_str().map(str::to_owned))?;
    let raw_types = fields
        .get("types", "an array of event type names", |v| {
            v.as_array().and_then(|items| {
                items
                    .iter()
                    .map(|i| i.as_str().map(str::to_owned))
                    .collect::<Option<Vec<String>>>()
            })
        })?
        .into_option()
        .unwrap_or_default();
    let types = parse_types(raw_types.iter().map(String::as_str))?;
    let url = WebhookUrl::parse(&raw_url)?;
    let policy = scoped.state().webhook_addresses();
    let webhook = scoped
        .run(move |ports, org| {
            check_url_addresses(&url, policy)?;
            create_webhook(ports, org, &url, types, Utc::now())
        })
        .await?;
    let mut body = webhook_json(&webhook);
    body["secret"] = Value::String(webhook.secret.clone());
    Ok(HttpResponse::Created()
        .insert_header((LOCATION, format!("/api/v1/webhooks/{}", webhook.id)))
        .json(body))
}

/// `GET /api/v1/webhooks`: `{"data": [...]}`, oldest first.
pub async fn list(scoped: Scoped) -> Result<HttpResponse, HttpError> {
    let webhooks = scoped
        .run(move |ports, org| list_webhooks(ports, org))
        .await?;
    let data: Vec<Value> = webhooks.iter().map(webhook_json).collect();
    Ok(HttpResponse::Ok().json(json!({ "data": data })))
}

/// `GET /api/v1/webhooks/{id}`.
pub async fn get(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, WebhookId::parse)?;
    let webhook = scoped
        .run(move |ports, org| get_webhook(ports, org, id))
        .await?;
    Ok(HttpResponse::Ok().json(webhook_json(&webhook)))
}

/// `DELETE /api/v1/webhooks/{id}`: 204; its delivery log goes with it.
pub async fn delete(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, WebhookId::parse)?;
    scoped
        .run(move |ports, org| delete_webhook(ports, org, id))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `GET /api/v1/webhooks/{id}/deliveries?after=&size=`: the delivery log,
/// newest first: `{"data": [...], "next": "<cursor>" | null}`.
pub async fn deliveries(
    scoped: Scoped,
    id: web::Path<String>,
    query: web::Query<Vec<(String, String)>>,
) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, WebhookId::parse)?;
    let (mut after, mut size) = (None, None);
    for (name, value) in query.into_inner() {
        let slot = match name.as_str() {
            "after" => &mut after,
            "size" => &mut size,
            other => {
                return Err(HttpError::invalid(
                    other,
                    format!("unknown parameter '{other}'; known parameters: after, size"),
                ))
            }
        };
        if slot.replace(value).is_some() {
            return Err(HttpError::invalid(
                name.as_str(),
                format!("'{name}' may be given once"),
            ));
        }
    }
    let before = after
        .as_deref()
        .map(|raw| Cursor::decode(raw, "after"))
        .transpose()?;
    let size = page_size(size.as_deref())?;
    let (attempts, next) = scoped
        .run(move |ports, org| list_attempts(ports, org, id, before, size))
        .await?;
    let data: Vec<Value> = attempts.iter().map(attempt_json).collect();
    Ok(HttpResponse::Ok().json(json!({
        "data": data,
        "next": next.map(Cursor::encode),
    })))
}
