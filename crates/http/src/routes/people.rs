//! `/api/v1/people`: the organization's people whatever their status, so a
//! leaver whom SCIM no longer shows can be named and followed (docs/api.md,
//! "People"). Scope `people:read`. A person's history is
//! `/api/v1/people/{id}/history` (`routes/events.rs`).

use actix_web::{web, HttpResponse};
use equip_api_types::error::ErrorBody;
use equip_api_types::person::{PersonBody, PersonListParams, PersonPageBody};
use equip_domain::ids::PersonId;
use equip_domain::person::directory::RawDirectoryQuery;
use equip_domain::services::directory::{get_directory_entry, list_directory};
use utoipa::OpenApi;

use crate::body::path_id;
use crate::error::HttpError;
use crate::scoped::Scoped;

/// This module's part of the OpenAPI document.
#[derive(OpenApi)]
#[openapi(paths(list, get))]
pub struct Doc;

/// `GET /api/v1/people`: a page of the organization's people, whatever their
/// status.
#[utoipa::path(
    get,
    path = "/api/v1/people",
    operation_id = "listPeople",
    tag = "people",
    summary = "The organization's people, whatever their status.",
    description = "Every person SCIM provisioned, also those offboarding or offboarded (whom \
        /scim/v2/Users no longer shows). Filtered by `status` and `search`, ordered by family \
        name, then given name (case-insensitively, absent names last), then id, in pages of \
        `size` (the inventory listing's envelope).",
    params(PersonListParams),
    responses(
        (status = 200, description = "A page of people.", body = PersonPageBody),
        (status = 400, description = "A malformed or unknown parameter (source names it).", body = ErrorBody),
    ),
)]
pub async fn list(
    scoped: Scoped,
    query: crate::query::Query<PersonListParams>,
) -> Result<HttpResponse, HttpError> {
    let raw: RawDirectoryQuery = query.into_inner().into();
    let listing = scoped
        .run(move |ports, org| list_directory(ports, org, &raw))
        .await?;
    Ok(HttpResponse::Ok().json(PersonPageBody::from(&listing)))
}

/// `GET /api/v1/people/{id}`.
#[utoipa::path(
    get,
    path = "/api/v1/people/{id}",
    operation_id = "getPerson",
    tag = "people",
    summary = "A person of the organization, whatever their status.",
    params(("id" = uuid::Uuid, Path, description = "The person.")),
    responses(
        (status = 200, description = "The person.", body = PersonBody),
        (status = 400, description = "The id is not a UUID.", body = ErrorBody),
        (status = 404, description = "No such person in the organization.", body = ErrorBody),
    ),
)]
pub async fn get(scoped: Scoped, id: web::Path<String>) -> Result<HttpResponse, HttpError> {
    let id = path_id("id", &id, PersonId::parse)?;
    let entry = scoped
        .run(move |ports, org| get_directory_entry(ports, org, id))
        .await?;
    Ok(HttpResponse::Ok().json(PersonBody::from(&entry)))
}
