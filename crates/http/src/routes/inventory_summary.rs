//! `GET /api/v1/inventory-summary`: the organization's items at a glance
//! (docs/api.md, "The inventory at a glance"). Scope `inventory:read`.

use actix_web::HttpResponse;
use chrono::Utc;
use equip_api_types::inventory_summary::SummaryBody;
use equip_domain::services::inventory::inventory_summary;
use utoipa::OpenApi;

use crate::error::HttpError;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(get))]
pub struct Doc;

/// 200 with the counts.
#[utoipa::path(
    get,
    path = "/api/v1/inventory-summary",
    operation_id = "getInventorySummary",
    tag = "inventory",
    summary = "Count the organization's items by status and category (extension).",
    description = "How many items each deploy status and category holds (the same counts as the \
        listing's `totalRecords` for those filters), and how many items' retention holds end \
        from today through 7 days from today (UTC). Query parameters are ignored.",
    responses((status = 200, description = "The counts.", body = SummaryBody)),
)]
pub async fn get(scoped: Scoped) -> Result<HttpResponse, HttpError> {
    let today = Utc::now().date_naive();
    let summary = scoped
        .run(move |ports, org| inventory_summary(ports, org, today))
        .await?;
    Ok(HttpResponse::Ok().json(SummaryBody::from(&summary)))
}
