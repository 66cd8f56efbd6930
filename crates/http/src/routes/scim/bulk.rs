//! `POST /scim/v2/Bulk` (RFC 7644 §3.7), run by
//! `equip_scim::provisioning::bulk_run` on a write session: 200 with the
//! BulkResponse, one result per operation that ran.

use actix_web::{web, HttpRequest, HttpResponse};
use equip_scim::provisioning::bulk_run::run_bulk;
use serde_json::Value;

use super::{base_url, bulk_answer, run_in_session};
use crate::error::HttpError;
use crate::scoped::Scoped;

/// `POST /scim/v2/Bulk`.
pub async fn bulk(
    scoped: Scoped,
    req: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let body = body.into_inner();
    // The request is checked (after the key) before any operation runs.
    let answer = run_in_session(scoped, base_url(&req), move |p| run_bulk(p, body)).await?;
    Ok(bulk_answer(answer))
}
