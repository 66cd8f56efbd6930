//! `GET /api/v1/skus` and `GET /api/v1/offices`: what the organization's SKU
//! and office ids name (docs/api.md, "SKUs and offices"), so that a client
//! shows names and offers them as choices. Scope `inventory:read`.

use actix_web::HttpResponse;
use equip_api_types::catalog::{OfficeBody, OfficeList, SkuBody, SkuList};
use equip_domain::services::catalog::{list_offices, list_skus};
use utoipa::OpenApi;

use crate::error::HttpError;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(skus, offices))]
pub struct Doc;

/// `{"data": [sku, …]}`: every SKU of the organization.
#[utoipa::path(
    get,
    path = "/api/v1/skus",
    operation_id = "listSkus",
    tag = "catalog",
    summary = "List the organization's SKUs (extension).",
    description = "Every SKU of the organization, by category name, then title, then id: what \
        items' `skuId`, levels' `skuId` and packages' `skuIds` name, with the category's code \
        and name. Query parameters are ignored.",
    responses((status = 200, description = "The SKUs.", body = inline(SkuList))),
)]
pub async fn skus(scoped: Scoped) -> Result<HttpResponse, HttpError> {
    let skus = scoped.run(move |ports, org| list_skus(ports, org)).await?;
    Ok(HttpResponse::Ok().json(SkuList {
        data: skus.iter().map(SkuBody::from).collect(),
    }))
}

/// `{"data": [office, …]}`: every office of the organization.
#[utoipa::path(
    get,
    path = "/api/v1/offices",
    operation_id = "listOffices",
    tag = "catalog",
    summary = "List the organization's offices (extension).",
    description = "Every office of the organization, by name, then id: what an `OFFICE` holder's \
        `id` and the listing's `officeId` name. Query parameters are ignored.",
    responses((status = 200, description = "The offices.", body = inline(OfficeList))),
)]
pub async fn offices(scoped: Scoped) -> Result<HttpResponse, HttpError> {
    let offices = scoped
        .run(move |ports, org| list_offices(ports, org))
        .await?;
    Ok(HttpResponse::Ok().json(OfficeList {
        data: offices.iter().map(OfficeBody::from).collect(),
    }))
}
