//! `/scim/v2/Users`: list, search, create, get, replace, patch, delete.

use std::collections::HashMap;

use actix_web::http::header::{self, HeaderMap};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use chrono::Utc;
use equip_domain::ids::{OrganizationId, PersonId};
use equip_domain::person::Person;
use equip_domain::services::people;
use equip_scim::error::ScimType;
use equip_scim::list::{list_response_text, ListError, ListInputs};
use equip_scim::patch::{apply_patch, parse_patch, PatchError};
use equip_scim::projection::project;
use equip_scim::user::{from_person, person_json, user_location, version_tag, ScimUser};
use serde_json::Value;

use super::{bad, base_url, domain, run, with_etag, ScimKey};
use crate::error::{Area, HttpError};
use crate::state::AppState;

type Query = web::Query<HashMap<String, String>>;

fn param<'a>(q: &'a HashMap<String, String>, name: &str) -> Option<&'a str> {
    q.iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn list_error(e: ListError) -> HttpError {
    match e {
        ListError::Filter(m) => bad(ScimType::InvalidFilter, "filter", m),
        ListError::Param { param, message } => bad(ScimType::InvalidValue, param, message),
    }
}

fn patch_error(e: PatchError) -> HttpError {
    let t = match e {
        PatchError::InvalidSyntax(_) => ScimType::InvalidSyntax,
        PatchError::InvalidPath(_) => ScimType::InvalidPath,
        PatchError::NoTarget(_) => ScimType::NoTarget,
        PatchError::Mutability(_) => ScimType::Mutability,
        PatchError::InvalidValue(_) => ScimType::InvalidValue,
    };
    bad(t, "Operations", e.to_string())
}

fn person_id(raw: &str) -> Result<PersonId, HttpError> {
    // A malformed id cannot name a user: 404 as for any unknown id (RFC 7644).
    PersonId::parse(raw)
        .map_err(|_| HttpError::new(Area::Scim, StatusCode::NOT_FOUND, "id", "user not found"))
}

/// The entity tags of `If-Match` / `If-None-Match`: `None` when absent,
/// `Some(None)` for `*`, `Some(Some(versions))` otherwise (unparseable tags
/// are versions that never match).
fn tags(headers: &HeaderMap, name: header::HeaderName) -> Option<Option<Vec<i64>>> {
    let raw = headers.get(name)?.to_str().unwrap_or("").trim().to_owned();
    if raw == "*" {
        return Some(None);
    }
    Some(Some(
        raw.split(',')
            .filter_map(|t| {
                let t = t.trim();
                let t = t.strip_prefix("W/").unwrap_or(t);
                t.trim_matches('"').parse::<i64>().ok()
            })
            .collect(),
    ))
}

fn precondition_failed() -> HttpError {
    HttpError::new(
        Area::Scim,
        StatusCode::PRECONDITION_FAILED,
        "If-Match",
        "the user was changed: its version no longer matches If-Match",
    )
}

fn check_if_match(headers: &HeaderMap, current: i64) -> Result<bool, HttpError> {
    match tags(headers, header::IF_MATCH) {
        None => Ok(false),
        Some(None) => Ok(true),
        Some(Some(v)) if v.contains(&current) => Ok(true),
        Some(Some(_)) => Err(precondition_failed()),
    }
}

/// The user response: 200/201 with the projected resource and its `ETag`.
fn user_response(
    status: StatusCode,
    person: &Person,
    base: &str,
    q: &HashMap<String, String>,
) -> HttpResponse {
    let (attributes, excluded) = (param(q, "attributes"), param(q, "excludedAttributes"));
    let body = if attributes.is_some() || excluded.is_some() {
        project(from_person(person, base), attributes, excluded).to_string()
    } else {
        person_json(person, base)
    };
    let resp = HttpResponse::build(status)
        .content_type(equip_scim::schemas::MEDIA_TYPE)
        .body(body);
    let mut resp = with_etag(resp, &version_tag(person.version));
    if status == StatusCode::CREATED {
        if let Ok(v) = header::HeaderValue::from_str(&user_location(base, person.id)) {
            resp.headers_mut().insert(header::LOCATION, v);
        }
    }
    resp
}

fn to_person(body: Value, org: OrganizationId, id: PersonId) -> Result<Person, HttpError> {
    let user: ScimUser = serde_json::from_value(body).map_err(|e| {
        bad(
            ScimType::InvalidValue,
            "request",
            format!("not a valid User: {e}"),
        )
    })?;
    user.into_person(org, id, Utc::now())
        .map_err(|e| bad(ScimType::InvalidValue, e.attribute(), e.to_string()))
}

async fn run_list(
    state: &AppState,
    key: ScimKey,
    inputs: ListInputs,
    base: String,
) -> Result<HttpResponse, HttpError> {
    let query = inputs.query().map_err(list_error)?;
    let start = query.start_index;
    let body = run(state, key, move |ports, org| {
        let page = people::list_people(ports, org, query).map_err(domain)?;
        let selected = inputs.attributes.is_some() || inputs.excluded_attributes.is_some();
        let resources: Vec<String> = page
            .people
            .iter()
            .map(|p| {
                if selected {
                    project(
                        from_person(p, &base),
                        inputs.attributes.as_deref(),
                        inputs.excluded_attributes.as_deref(),
                    )
                    .to_string()
                } else {
                    person_json(p, &base)
                }
            })
            .collect();
        Ok(list_response_text(page.total, start, &resources))
    })
    .await?;
    Ok(HttpResponse::Ok()
        .content_type(equip_scim::schemas::MEDIA_TYPE)
        .body(body))
}

/// `GET /scim/v2/Users`.
pub async fn list(
    key: ScimKey,
    state: web::Data<AppState>,
    req: HttpRequest,
    q: Query,
) -> Result<HttpResponse, HttpError> {
    let get = |n: &str| param(&q, n).map(str::to_owned);
    let inputs = ListInputs {
        filter: get("filter"),
        start_index: get("startIndex"),
        count: get("count"),
        sort_by: get("sortBy"),
        sort_order: get("sortOrder"),
        attributes: get("attributes"),
        excluded_attributes: get("excludedAttributes"),
    };
    run_list(&state, key, inputs, base_url(&req)).await
}

/// `POST /scim/v2/Users/.search` (and `/scim/v2/.search`).
pub async fn search(
    key: ScimKey,
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let inputs = ListInputs::from_search_body(&body).map_err(list_error)?;
    run_list(&state, key, inputs, base_url(&req)).await
}

/// `POST /scim/v2/Users`: 201 with the user, `Location` and `ETag`.
pub async fn create(
    key: ScimKey,
    state: web::Data<AppState>,
    req: HttpRequest,
    q: Query,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let body = body.into_inner();
    let created = run(&state, key, move |ports, org| {
        let person = to_person(body, org, PersonId::new())?;
        people::create_person(ports, person, Utc::now()).map_err(domain)
    })
    .await?;
    Ok(user_response(
        StatusCode::CREATED,
        &created,
        &base_url(&req),
        &q,
    ))
}

/// `GET /scim/v2/Users/{id}`; 304 when `If-None-Match` names the current version.
pub async fn get(
    key: ScimKey,
    state: web::Data<AppState>,
    req: HttpRequest,
    q: Query,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let id = person_id(&id)?;
    let person = run(&state, key, move |ports, org| {
        people::get_person(ports, org, id).map_err(domain)
    })
    .await?;
    let not_modified = match tags(req.headers(), header::IF_NONE_MATCH) {
        Some(None) => true,
        Some(Some(v)) => v.contains(&person.version),
        None => false,
    };
    if not_modified {
        return Ok(with_etag(
            HttpResponse::NotModified().finish(),
            &version_tag(person.version),
        ));
    }
    Ok(user_response(StatusCode::OK, &person, &base_url(&req), &q))
}

/// Reads, changes with `change`, and writes the user in one blocking call;
/// without `If-Match` a concurrent change is retried on the new version, with
/// it the answer is 412.
async fn update<F>(
    state: &AppState,
    key: ScimKey,
    req: &HttpRequest,
    id: PersonId,
    change: F,
) -> Result<Person, HttpError>
where
    F: Fn(&Person, OrganizationId) -> Result<Person, HttpError> + Send + 'static,
{
    let headers = req.headers().clone();
    run(state, key, move |ports, org| {
        for _ in 0..5 {
            let cur = people::get_person(ports, org, id).map_err(domain)?;
            let conditional = check_if_match(&headers, cur.version)?;
            let replacement = change(&cur, org)?;
            match people::replace_person(ports, &cur, replacement, Utc::now()).map_err(domain)? {
                Ok(p) => return Ok(p),
                Err(_) if conditional => return Err(precondition_failed()),
                Err(_) => continue,
            }
        }
        Err(HttpError::new(
            Area::Scim,
            StatusCode::CONFLICT,
            "user",
            "the user is being changed concurrently; retry",
        ))
    })
    .await
}

/// `PUT /scim/v2/Users/{id}`: 200 with the replaced user.
pub async fn replace(
    key: ScimKey,
    state: web::Data<AppState>,
    req: HttpRequest,
    q: Query,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let id = person_id(&id)?;
    let body = body.into_inner();
    let person = update(&state, key, &req, id, move |_, org| {
        to_person(body.clone(), org, id)
    })
    .await?;
    Ok(user_response(StatusCode::OK, &person, &base_url(&req), &q))
}

/// `PATCH /scim/v2/Users/{id}`: 200 with the patched user.
pub async fn patch(
    key: ScimKey,
    state: web::Data<AppState>,
    req: HttpRequest,
    q: Query,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let id = person_id(&id)?;
    let ops = parse_patch(&body).map_err(patch_error)?;
    let base = base_url(&req);
    let doc_base = base.clone();
    let person = update(&state, key, &req, id, move |cur, org| {
        let mut doc = from_person(cur, &doc_base);
        apply_patch(&mut doc, &ops).map_err(patch_error)?;
        to_person(doc, org, id)
    })
    .await?;
    Ok(user_response(StatusCode::OK, &person, &base, &q))
}

/// `DELETE /scim/v2/Users/{id}`: 204; offboarding starts.
pub async fn delete(
    key: ScimKey,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let id = person_id(&id)?;
    let expected = match tags(req.headers(), header::IF_MATCH) {
        None | Some(None) => None,
        Some(Some(v)) => match v.first() {
            Some(v) => Some(*v),
            None => return Err(precondition_failed()),
        },
    };
    run(
        &state,
        key,
        move |ports, org| match people::offboard_person(ports, org, id, expected, Utc::now())
            .map_err(domain)?
        {
            Ok(_) => Ok(()),
            Err(_) => Err(precondition_failed()),
        },
    )
    .await?;
    Ok(HttpResponse::NoContent().finish())
}
