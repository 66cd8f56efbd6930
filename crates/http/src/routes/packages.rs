//! `/api/v1/packages`: list and read packages with their contents, and
//! replace a package's contents (docs/api.md, "Packages"; docs/orders.md,
//! "Package contents"). Scopes `inventory:read` (GET) and `packages:write`
//! (PUT).

use actix_web::{web, HttpResponse};
use equip_api_types::error::ErrorBody;
use equip_api_types::package::{PackageBody, PackageContentsPut, PackageList};
use equip_domain::ids::PackageId;
use equip_domain::services::packages::{get_package, list_packages, replace_contents};
use serde_json::Value;
use utoipa::OpenApi;

use crate::body::{self, path_id};
use crate::error::HttpError;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(list, get, put))]
pub struct Doc;

/// `{"data": [package, …]}`: every package of the organization, by name
/// then id.
#[utoipa::path(
    get,
    path = "/api/v1/packages",
    operation_id = "listPackages",
    tag = "packages",
    summary = "List the organization's packages with their contents (extension).",
    description = "Every package of the organization with its `items`, by name (byte order), then id.",
    responses((status = 200, description = "The packages.", body = inline(PackageList))),
)]
pub async fn list(scoped: Scoped) -> Result<HttpResponse, HttpError> {
    let packages = scoped
        .run(move |ports, org| list_packages(ports, org))
        .await?;
    Ok(HttpResponse::Ok().json(PackageList {
        data: packages.iter().map(PackageBody::from).collect(),
    }))
}

/// 200 with the package; 400 malformed id; 404 unknown or another
/// organization's.
#[utoipa::path(
    get,
    path = "/api/v1/packages/{id}",
    operation_id = "getPackage",
    tag = "packages",
    summary = "Read a package with its contents (extension).",
    params(("id" = uuid::Uuid, Path, description = "The package's id.")),
    responses(
        (status = 200, description = "The package.", body = PackageBody),
        (status = 400, description = "The id is not a UUID.", body = ErrorBody),
        (status = 404, description = "No such package in the organization.", body = ErrorBody),
    ),
)]
pub async fn get(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, PackageId::parse)?;
    let package = scoped
        .run(move |ports, org| get_package(ports, org, id))
        .await?;
    Ok(HttpResponse::Ok().json(PackageBody::from(&package)))
}

/// `PUT /api/v1/packages/{id}` `{"items": [...]}`: 200 with the package as
/// written.
#[utoipa::path(
    put,
    path = "/api/v1/packages/{id}",
    operation_id = "putPackageContents",
    tag = "packages",
    summary = "Replace a package's contents (extension).",
    description = "Replaces the package's `items` whole (`[]` empties it): at most 20 entries, each \
        `quantity` 1 to 20 units of `categoryCode` (a category of one of the organization's SKUs), \
        with at most 10 distinct preferred `skuIds`, each an SKU of the organization of that \
        category. Orders already created keep their lines and no order is created: orders follow \
        the provisioning changes that give people a package. No event is recorded.",
    params(("id" = uuid::Uuid, Path, description = "The package's id.")),
    request_body = PackageContentsPut,
    responses(
        (status = 200, description = "The package with its new contents.", body = PackageBody),
        (status = 400, description = "A malformed id or body, an unknown field, too many entries or SKUs, a quantity outside 1..20, a SKU named twice, an unknown category, or a SKU not of the organization or of another category (source names it).", body = ErrorBody),
        (status = 404, description = "No such package in the organization.", body = ErrorBody),
        (status = 413, description = "The body is larger than the limit.", body = ErrorBody),
        (status = 415, description = "The body is not application/json.", body = ErrorBody),
    ),
)]
pub async fn put(
    scoped: Scoped,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, PackageId::parse)?;
    let input: PackageContentsPut = body::parse(body.into_inner())?;
    let items = input.into_raw();
    let package = scoped
        .run(move |ports, org| replace_contents(ports, org, id, &items))
        .await?;
    Ok(HttpResponse::Ok().json(PackageBody::from(&package)))
}
