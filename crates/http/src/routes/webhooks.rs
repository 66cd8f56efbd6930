//! `/api/v1/webhooks`: create, list, read and delete an organization's
//! webhooks, rotate a webhook's secret, and read a webhook's delivery log
//! (docs/webhooks.md). Scope `webhooks:write`.

use std::net::{IpAddr, ToSocketAddrs};

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpResponse};
use chrono::Utc;
use equip_api_types::error::ErrorBody;
use equip_api_types::webhook::{
    AttemptBody, AttemptPage, AttemptParams, SecretRotation, WebhookBody, WebhookCreate,
    WebhookCreatedBody, WebhookList,
};
use equip_domain::event_feed::{page_size, Cursor};
use equip_domain::ids::WebhookId;
use equip_domain::services::webhooks::{
    create_webhook, delete_webhook, get_webhook, list_attempts, list_webhooks, rotate_secret,
};
use equip_domain::webhook::{parse_types, AddressPolicy, RotationOverlap, UrlHost, WebhookUrl};
use equip_domain::DomainError;
use serde_json::Value;
use utoipa::OpenApi;

use crate::body::{self, path_id};
use crate::error::HttpError;
use crate::query::Query;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(list, create, get, delete, rotate, deliveries))]
pub struct Doc;

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
#[utoipa::path(
    post,
    path = "/api/v1/webhooks",
    operation_id = "createWebhook",
    tag = "webhooks",
    summary = "Subscribe a URL to the organization's events.",
    description = "The events recorded after the webhook's creation whose type is in `types` (every \
        type when `types` is empty or absent) are POSTed to the URL, one at a time, in sequence \
        order, signed with the secret returned here (and never again). The URL must use https or \
        http, hold no credentials, and its host must not be (or resolve to) a private, loopback or \
        otherwise reserved address unless the server allows them.",
    request_body = WebhookCreate,
    responses(
        (status = 201, description = "Created: the webhook with its signing secret.", body = WebhookCreatedBody, headers(
            ("Location" = String, description = "/api/v1/webhooks/{id} of the new webhook."),
        )),
        (status = 400, description = "url or types is missing or invalid, or the URL's host is not allowed (source names the field).", body = ErrorBody),
        (status = 409, description = "The organization has as many webhooks as it may have.", body = ErrorBody),
        (status = 413, description = "The body is larger than the limit.", body = ErrorBody),
        (status = 415, description = "The body is not application/json.", body = ErrorBody),
    ),
)]
pub async fn create(scoped: Scoped, body: web::Json<Value>) -> Result<HttpResponse, HttpError> {
    let input: WebhookCreate = body::parse(body.into_inner())?;
    let raw_types = input.types.unwrap_or_default();
    let types = parse_types(raw_types.iter().map(String::as_str))?;
    let url = WebhookUrl::parse(&input.url)?;
    let policy = scoped.state().webhook_addresses();
    let webhook = scoped
        .run(move |ports, org| {
            check_url_addresses(&url, policy)?;
            create_webhook(ports, org, &url, types, Utc::now())
        })
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((LOCATION, format!("/api/v1/webhooks/{}", webhook.id)))
        .json(WebhookCreatedBody::from(&webhook)))
}

/// `GET /api/v1/webhooks`: `{"data": [...]}`, oldest first.
#[utoipa::path(
    get,
    path = "/api/v1/webhooks",
    operation_id = "listWebhooks",
    tag = "webhooks",
    summary = "The organization's webhooks, oldest first.",
    responses((status = 200, description = "The webhooks.", body = inline(WebhookList))),
)]
pub async fn list(scoped: Scoped) -> Result<HttpResponse, HttpError> {
    let webhooks = scoped
        .run(move |ports, org| list_webhooks(ports, org))
        .await?;
    Ok(HttpResponse::Ok().json(WebhookList {
        data: webhooks.iter().map(WebhookBody::from).collect(),
    }))
}

/// `GET /api/v1/webhooks/{id}`.
#[utoipa::path(
    get,
    path = "/api/v1/webhooks/{id}",
    operation_id = "getWebhook",
    tag = "webhooks",
    summary = "A webhook and the state of its delivery.",
    params(("id" = uuid::Uuid, Path, description = "The webhook.")),
    responses(
        (status = 200, description = "The webhook.", body = WebhookBody),
        (status = 400, description = "The id is not a UUID.", body = ErrorBody),
        (status = 404, description = "No such webhook in the organization.", body = ErrorBody),
    ),
)]
pub async fn get(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, WebhookId::parse)?;
    let webhook = scoped
        .run(move |ports, org| get_webhook(ports, org, id))
        .await?;
    Ok(HttpResponse::Ok().json(WebhookBody::from(&webhook)))
}

/// `DELETE /api/v1/webhooks/{id}`: 204; its delivery log goes with it.
#[utoipa::path(
    delete,
    path = "/api/v1/webhooks/{id}",
    operation_id = "deleteWebhook",
    tag = "webhooks",
    summary = "Delete a webhook and its delivery log.",
    params(("id" = uuid::Uuid, Path, description = "The webhook.")),
    responses(
        (status = 204, description = "Deleted."),
        (status = 400, description = "The id is not a UUID.", body = ErrorBody),
        (status = 404, description = "No such webhook in the organization.", body = ErrorBody),
    ),
)]
pub async fn delete(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, WebhookId::parse)?;
    scoped
        .run(move |ports, org| delete_webhook(ports, org, id))
        .await?;
    Ok(HttpResponse::NoContent().finish())
}

/// `POST /api/v1/webhooks/{id}/rotate-secret` `{"overlapSeconds": N}`: 200
/// with the webhook and its new `secret` (shown only here).
#[utoipa::path(
    post,
    path = "/api/v1/webhooks/{id}/rotate-secret",
    operation_id = "rotateWebhookSecret",
    tag = "webhooks",
    summary = "Give a webhook a new signing secret, keeping its place in the feed.",
    description = "Deliveries made from now on are signed with the new secret returned here \
        (and never again) and, for `overlapSeconds` (its range and default are the body's), with \
        the old one too: `Equip-Signature` and `webhook-signature` then carry two signatures, the \
        new secret's first. A secret older than the old one stops signing at once. The webhook's \
        position, retries and delivery log are unchanged. Concurrent rotations take effect one \
        after the other.",
    params(("id" = uuid::Uuid, Path, description = "The webhook.")),
    request_body = SecretRotation,
    responses(
        (status = 200, description = "Rotated: the webhook with its new signing secret.", body = WebhookCreatedBody),
        (status = 400, description = "The id is not a UUID, or overlapSeconds is out of range (source names it).", body = ErrorBody),
        (status = 404, description = "No such webhook in the organization.", body = ErrorBody),
        (status = 413, description = "The body is larger than the limit.", body = ErrorBody),
        (status = 415, description = "The body is not application/json.", body = ErrorBody),
    ),
)]
pub async fn rotate(
    scoped: Scoped,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, WebhookId::parse)?;
    let input: SecretRotation = body::parse(body.into_inner())?;
    let overlap = RotationOverlap::parse(input.overlap_seconds)?;
    let webhook = scoped
        .run(move |ports, org| rotate_secret(ports, org, id, overlap, Utc::now()))
        .await?;
    Ok(HttpResponse::Ok().json(WebhookCreatedBody::from(&webhook)))
}

/// `GET /api/v1/webhooks/{id}/deliveries?after=&size=`: the delivery log,
/// newest first: `{"data": [...], "next": "<cursor>" | null}`.
#[utoipa::path(
    get,
    path = "/api/v1/webhooks/{id}/deliveries",
    operation_id = "listWebhookDeliveries",
    tag = "webhooks",
    summary = "A webhook's delivery attempts, newest first.",
    params(("id" = uuid::Uuid, Path, description = "The webhook."), AttemptParams),
    responses(
        (status = 200, description = "A page of attempts.", body = inline(AttemptPage)),
        (status = 400, description = "A malformed id, cursor or size, or an unknown parameter.", body = ErrorBody),
        (status = 404, description = "No such webhook in the organization.", body = ErrorBody),
    ),
)]
pub async fn deliveries(
    scoped: Scoped,
    id: web::Path<String>,
    query: Query<AttemptParams>,
) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, WebhookId::parse)?;
    let params = query.into_inner();
    let before = params
        .after
        .as_deref()
        .map(|raw| Cursor::decode(raw, "after"))
        .transpose()?;
    let size = page_size(params.size.as_deref())?;
    let (attempts, next) = scoped
        .run(move |ports, org| list_attempts(ports, org, id, before, size))
        .await?;
    Ok(HttpResponse::Ok().json(AttemptPage {
        data: attempts.iter().map(AttemptBody::from).collect(),
        next: next.map(Cursor::encode),
    }))
}
