//! Warehouse receipts, early hold releases and the organization's settings
//! (docs/returns.md): `POST /api/v1/warehouses/{id}/receipts`,
//! `POST /api/v1/inventory/{id}/release-hold`,
//! `GET`/`PUT /api/v1/organization/settings`. The bodies are
//! `equip_api_types::receipt`; the rules are the domain's
//! (`equip_domain::services::receipts`).

use actix_web::http::StatusCode;
use actix_web::{web, HttpMessage as _, HttpRequest, HttpResponse};
use chrono::Utc;
use equip_api_types::error::{ErrorBody, ErrorEntry};
use equip_api_types::item::ItemBody;
use equip_api_types::receipt::{
    OrganizationSettings, ReceiptRequest, ReceiptResult, ReceiptResults, ReceiptStopped,
};
use equip_domain::api_key::Scope;
use equip_domain::ids::{InventoryItemId, WarehouseId};
use equip_domain::returns::receipt::MAX_ENTRIES;
use equip_domain::services::receipts;
use serde_json::Value;
use utoipa::OpenApi;

use crate::body::{parse, path_id};
use crate::error::HttpError;
use crate::limits::Deadline;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(receive, release_hold, get_settings, put_settings))]
pub struct Doc;

/// `POST /api/v1/warehouses/{id}/receipts`: each entry received in its own
/// transaction and answered with its own status, in the order sent.
#[utoipa::path(
    post,
    path = "/api/v1/warehouses/{id}/receipts",
    operation_id = "receiveItems",
    tag = "returns",
    summary = "Receive items at a warehouse (extension).",
    description = "Each entry names an item by itemId or serialNumber and is received on its own (atomic per \
        entry), answered per entry like a SCIM Bulk request, in the order sent. An item on an open return is \
        assigned to the warehouse, UNAVAILABLE with PENDING_HOLD_RELEASE, its hold stamped (holdStartDate the \
        receipt's date in UTC, unlockDate that plus the organization's hold period, itadRequested from its \
        return line) and its return line received; with a hold period of 0 the hold is released at once. An \
        item AWAITING_ARRIVAL becomes AVAILABLE at the warehouse. Any other item: 409 for that entry; an \
        unknown item or another organization's: 404 for that entry.",
    params(("id" = uuid::Uuid, Path, description = "The receiving warehouse's id.")),
    request_body = ReceiptRequest,
    responses(
        (status = 200, description = "One result per entry, in the order sent; each carries its own status (200, 404, 409).", body = ReceiptResults),
        (status = 400, description = "The id is not a UUID, the body is malformed, has an unknown field, no entry, or an entry with neither or both of itemId and serialNumber. Nothing was received.", body = ErrorBody),
        (status = 404, description = "The warehouse is not accessible to the organization. Nothing was received.", body = ErrorBody),
        (status = 413, description = "More than 1,000 entries, or the body is larger than the limit. Nothing was received.", body = ErrorBody),
        (status = 415, description = "The body is not application/json.", body = ErrorBody),
        (status = 503, description = "The receipt reached its time limit (equip serve --upload-timeout) and stopped: the entry in flight ended, no later one started, and nothing more is written after this answer. One result per entry, in the order sent: each entry that ran with its own status, each one not run with 503 (nothing of it written; safe to send again). (Past the limit plus the request limit, or when refused at capacity, the plain error body instead.)", body = ReceiptStopped),
    ),
)]
pub async fn receive(
    scoped: Scoped,
    req: HttpRequest,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let warehouse = path_id("id", &id, WarehouseId::parse)?;
    let request = parse::<ReceiptRequest>(body.into_inner())?;
    if request.items.len() > MAX_ENTRIES {
        return Err(HttpError::with_status(
            StatusCode::PAYLOAD_TOO_LARGE,
            "items",
            format!(
                "a receipt holds at most {MAX_ENTRIES} entries (got {})",
                request.items.len()
            ),
        ));
    }
    if request.items.is_empty() {
        return Err(HttpError::invalid(
            "items",
            "a receipt holds at least one entry",
        ));
    }
    let entries = request.entries()?;
    let outcomes = scoped
        .run_in_session(move |ports, org| {
            receipts::receive(ports, org, warehouse, &entries, Utc::now())
        })
        .await?;
    let stopped = outcomes.iter().filter(|o| receipts::not_run(o)).count();
    let total = outcomes.len();
    let results = outcomes
        .into_iter()
        .map(|mut outcome| {
            let not_run = receipts::not_run(&outcome);
            let failure = std::mem::replace(&mut outcome.result, Ok(()))
                .err()
                .map(|e| {
                    if not_run {
                        return (StatusCode::SERVICE_UNAVAILABLE.as_u16(), NOT_RUN.to_owned());
                    }
                    let e = HttpError::from(e);
                    (e.status().as_u16(), e.detail().to_owned())
                });
            ReceiptResult::new(outcome, failure)
        })
        .collect();
    if stopped == 0 {
        return Ok(HttpResponse::Ok().json(ReceiptResults { results }));
    }
    // Stopped at the time limit (or for a client that has gone, which reads
    // nothing): what ran, and what did not.
    let limit = req
        .extensions()
        .get::<Deadline>()
        .map_or(0, |d| d.limit.as_secs());
    let detail = format!(
        "the receipt reached its time limit of {limit} s and stopped: {} of {total} entries ran \
         (each with its own status), {stopped} did not run (status 503; safe to send again); \
         nothing more is written",
        total - stopped
    );
    tracing::warn!("a receipt stopped at its time limit with {stopped} of {total} entries not run");
    Ok(HttpResponse::ServiceUnavailable().json(ReceiptStopped {
        errors: vec![ErrorEntry {
            detail: &detail,
            source: "server",
        }],
        results,
    }))
}

/// The detail of an entry not run: the receipt stopped before it.
const NOT_RUN: &str = "not run: the receipt stopped at its time limit before this entry; \
     nothing of it was written, and it is safe to send again";

/// `POST /api/v1/inventory/{id}/release-hold`: the hold released now; 200
/// with the item to a key that may read items (`inventory:read`), 204 to one
/// that may not.
#[utoipa::path(
    post,
    path = "/api/v1/inventory/{id}/release-hold",
    operation_id = "releaseHold",
    tag = "returns",
    summary = "Release an item's hold early (extension).",
    description = "As the release on the unlockDate does it: an item with itadRequested becomes UNAVAILABLE \
        MARKED_FOR_DESTRUCTION, any other AVAILABLE without a deployReason; holdStartDate, unlockDate and \
        itadRequested become null. The item's inventory.item.updated event names the key as its actor.",
    params(("id" = uuid::Uuid, Path, description = "The item's id.")),
    responses(
        (status = 200, description = "The item after the release (to a key that also holds inventory:read).", body = ItemBody),
        (status = 204, description = "Released, answered without the item to a key that may not read items."),
        (status = 400, description = "The id is not a UUID.", body = ErrorBody),
        (status = 404, description = "No such item in the organization.", body = ErrorBody),
        (status = 409, description = "The item holds no active hold.", body = ErrorBody),
    ),
)]
pub async fn release_hold(
    scoped: Scoped,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let may_read = scoped.holds(Scope::InventoryRead);
    let id = path_id("id", &id, InventoryItemId::parse)?;
    let view = scoped
        .run(move |ports, org| receipts::release_hold(ports, org, id, Utc::now()))
        .await?;
    if !may_read {
        return Ok(HttpResponse::NoContent().finish());
    }
    Ok(HttpResponse::Ok().json(ItemBody::from(&view)))
}

/// `GET /api/v1/organization/settings`.
#[utoipa::path(
    get,
    path = "/api/v1/organization/settings",
    operation_id = "getOrganizationSettings",
    tag = "returns",
    summary = "Read the organization's settings (extension).",
    responses(
        (status = 200, description = "The settings.", body = OrganizationSettings),
    ),
)]
pub async fn get_settings(scoped: Scoped) -> Result<HttpResponse, HttpError> {
    let period = scoped
        .run(|ports, org| receipts::hold_period(ports, org))
        .await?;
    Ok(HttpResponse::Ok().json(OrganizationSettings::from(period)))
}

/// `PUT /api/v1/organization/settings`.
#[utoipa::path(
    put,
    path = "/api/v1/organization/settings",
    operation_id = "putOrganizationSettings",
    tag = "returns",
    summary = "Change the organization's settings (extension).",
    description = "holdPeriodDays applies to receipts from now on; holds already stamped keep their dates.",
    request_body = OrganizationSettings,
    responses(
        (status = 200, description = "The settings as stored.", body = OrganizationSettings),
        (status = 400, description = "holdPeriodDays is missing, not a whole number, or outside 0..3650; or a field is unknown.", body = ErrorBody),
        (status = 413, description = "The body is larger than the limit.", body = ErrorBody),
        (status = 415, description = "The body is not application/json.", body = ErrorBody),
    ),
)]
pub async fn put_settings(
    scoped: Scoped,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let settings = parse::<OrganizationSettings>(body.into_inner())?;
    let period = scoped
        .run(move |ports, org| receipts::set_hold_period(ports, org, settings.hold_period_days))
        .await?;
    Ok(HttpResponse::Ok().json(OrganizationSettings::from(period)))
}
