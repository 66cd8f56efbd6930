//! `/scim/v2/Users` and `/scim/v2/Groups`: list, search, create, get,
//! replace, patch, delete, for either resource type
//! (`equip_scim::provisioning::ResourceType`: `Users`, `Groups`).

use actix_web::http::header;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use equip_scim::list::ListInputs;
use equip_scim::provisioning::{ResourceType, ScimError};
use serde_json::Value;

use super::{base_url, fetched, param, precondition, resource, run, scim_text, selection, Query};
use crate::error::HttpError;
use crate::scoped::Scoped;

/// A list response: the page read and rendered on the blocking pool.
async fn run_list<R: ResourceType>(
    scoped: Scoped,
    inputs: ListInputs,
    base: String,
) -> Result<HttpResponse, HttpError> {
    let cap = scoped.state().scim_max_results();
    let query = R::query(&inputs, cap).map_err(ScimError::from)?;
    if let Some(asked) = inputs.count_over(cap) {
        scoped
            .state()
            .scim_count_over_cap(scoped.organization(), asked);
    }
    let body = run(scoped, base, move |p| R::list(&p, query, &inputs)).await?;
    Ok(scim_text(body))
}

/// `GET /scim/v2/Users`, `GET /scim/v2/Groups`.
pub async fn list<R: ResourceType>(
    scoped: Scoped,
    req: HttpRequest,
    q: Query,
) -> Result<HttpResponse, HttpError> {
    let inputs = ListInputs::read(|n| param(&q, n).map(str::to_owned));
    run_list::<R>(scoped, inputs, base_url(&req)).await
}

/// `POST /scim/v2/Users/.search`, `POST /scim/v2/Groups/.search`.
pub async fn search<R: ResourceType>(
    scoped: Scoped,
    req: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let inputs = ListInputs::from_search_body(&body).map_err(ScimError::from)?;
    run_list::<R>(scoped, inputs, base_url(&req)).await
}

/// `POST`: 201 with the resource, `Location` and `ETag`.
pub async fn create<R: ResourceType>(
    scoped: Scoped,
    req: HttpRequest,
    q: Query,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let (body, selection) = (body.into_inner(), selection(&q));
    let answer = run(scoped, base_url(&req), move |p| {
        R::create(&p, body, &selection)
    })
    .await?;
    Ok(resource(StatusCode::CREATED, answer))
}

/// `GET` of one; 304 when `If-None-Match` names the current version.
pub async fn get<R: ResourceType>(
    scoped: Scoped,
    req: HttpRequest,
    q: Query,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let id = R::id(&id)?;
    let if_none_match = precondition(&req, header::IF_NONE_MATCH);
    let selection = selection(&q);
    let shown = run(scoped, base_url(&req), move |p| {
        R::get(&p, id, &if_none_match, &selection)
    })
    .await?;
    Ok(fetched(shown))
}

/// `PUT`: 200 with the replaced resource.
pub async fn replace<R: ResourceType>(
    scoped: Scoped,
    req: HttpRequest,
    q: Query,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let id = R::id(&id)?;
    let (body, selection) = (body.into_inner(), selection(&q));
    let if_match = precondition(&req, header::IF_MATCH);
    let answer = run(scoped, base_url(&req), move |p| {
        R::replace(&p, id, &body, &if_match, &selection)
    })
    .await?;
    Ok(resource(StatusCode::OK, answer))
}

/// `PATCH` (a PatchOp message): 200 with the patched resource.
pub async fn patch<R: ResourceType>(
    scoped: Scoped,
    req: HttpRequest,
    q: Query,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let id = R::id(&id)?;
    let (body, selection) = (body.into_inner(), selection(&q));
    let if_match = precondition(&req, header::IF_MATCH);
    let answer = run(scoped, base_url(&req), move |p| {
        R::patch(&p, id, &body, &if_match, &selection)
    })
    .await?;
    Ok(resource(StatusCode::OK, answer))
}

/// `DELETE`: 204 (a user's offboarding starts; a group is gone, its users
/// stay).
pub async fn delete<R: ResourceType>(
    scoped: Scoped,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let id = R::id(&id)?;
    let if_match = precondition(&req, header::IF_MATCH);
    run(scoped, base_url(&req), move |p| {
        R::delete(&p, id, &if_match)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}
