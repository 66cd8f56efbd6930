//! `GET /openapi.json` (no key needed): the OpenAPI document of
//! [`crate::openapi`]. The document is built from the route modules, so this
//! route does not build it: the application puts its text in the app data
//! when it is made ([`crate::app_with`]), and the handler serves that.

use actix_web::{web, HttpResponse};
use utoipa::OpenApi;

/// The document's text, as the application serves it.
pub struct DocumentText(pub &'static str);

/// This module's part of the OpenAPI document: the third operation that
/// needs no key (with `/healthz` and `/readyz`).
#[derive(OpenApi)]
#[openapi(paths(serve))]
pub struct Doc;

/// `GET /openapi.json` (no key needed).
#[utoipa::path(
    get,
    path = "/openapi.json",
    operation_id = "openapi",
    tag = "operations",
    summary = "This document.",
    security(()),
    responses((status = 200, description = "The OpenAPI 3.1 document.", body = Object)),
)]
pub async fn serve(text: web::Data<DocumentText>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(mime::APPLICATION_JSON)
        .body(text.0)
}
