//! `/scim/v2/Users`: list, search, create, get, replace, patch, delete.
//! Every user answered shows its groups and effective package, read with
//! [`groups::belonging_of`] (once per page for a list).

use std::collections::HashMap;

use actix_web::http::header;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use equip_domain::ids::OrganizationId;
use equip_domain::person::Person;
use equip_domain::person_query::PersonQuery;
use equip_domain::services::groups::{self, Belonging};
use equip_domain::services::people;
use equip_scim::list::{list_response_text, ListInputs};
use equip_scim::patch::parse_patch;
use equip_scim::projection::project;
use equip_scim::user::{from_person, person_json, user_location, user_tag};
use serde_json::Value;

use super::provisioning::{
    create_user, delete_user, patch_error, patch_user, person_id, replace_user, IfMatch,
};
use super::{base_url, domain, list_error, param, run, with_etag, Query};
use crate::auth::Authenticated;
use crate::error::HttpError;
use crate::state::{AppState, Ports};

/// A person with their groups and effective package, as a user is shown.
type Shown = (Person, Belonging);

/// `person` with their groups and effective package.
pub(crate) fn with_belonging(
    ports: &dyn Ports,
    org: OrganizationId,
    person: Person,
) -> Result<Shown, HttpError> {
    let belonging = groups::belonging_of(ports, org, &[&person])
        .map_err(domain)?
        .remove(&person.id)
        .unwrap_or_default();
    Ok((person, belonging))
}

/// The user response: 200/201 with the projected resource and its `ETag`.
fn user_response(
    status: StatusCode,
    (person, belonging): &Shown,
    base: &str,
    q: &HashMap<String, String>,
) -> HttpResponse {
    let (attributes, excluded) = (param(q, "attributes"), param(q, "excludedAttributes"));
    let body = if attributes.is_some() || excluded.is_some() {
        project(from_person(person, belonging, base), attributes, excluded).to_string()
    } else {
        person_json(person, belonging, base)
    };
    let resp = HttpResponse::build(status)
        .content_type(equip_scim::schemas::MEDIA_TYPE)
        .body(body);
    let mut resp = with_etag(resp, &user_tag(person, belonging));
    if status == StatusCode::CREATED {
        if let Ok(v) = header::HeaderValue::from_str(&user_location(base, person.id)) {
            resp.headers_mut().insert(header::LOCATION, v);
        }
    }
    resp
}

/// A page of users for `query`, each rendered as `inputs` select: the
/// number matching in all and the resources (JSON text). Runs on the
/// blocking pool.
pub(crate) fn render_page(
    ports: &dyn Ports,
    org: OrganizationId,
    query: PersonQuery,
    inputs: &ListInputs,
    base: &str,
) -> Result<(u64, Vec<String>), HttpError> {
    let page = people::list_people(ports, org, query).map_err(domain)?;
    let page_people: Vec<&Person> = page.people.iter().collect();
    let mut belonging = if page_people.is_empty() {
        HashMap::new()
    } else {
        groups::belonging_of(ports, org, &page_people).map_err(domain)?
    };
    let selected = inputs.attributes.is_some() || inputs.excluded_attributes.is_some();
    let resources = page
        .people
        .iter()
        .map(|p| {
            let b = belonging.remove(&p.id).unwrap_or_default();
            if selected {
                project(
                    from_person(p, &b, base),
                    inputs.attributes.as_deref(),
                    inputs.excluded_attributes.as_deref(),
                )
                .to_string()
            } else {
                person_json(p, &b, base)
            }
        })
        .collect();
    Ok((page.total, resources))
}

/// A list response: the page read and rendered on the blocking pool.
async fn run_list(
    state: &AppState,
    key: Authenticated,
    inputs: ListInputs,
    base: String,
) -> Result<HttpResponse, HttpError> {
    let query = inputs.query(state.scim_max_results()).map_err(list_error)?;
    let start = query.start_index;
    let body = run(state, key, move |ports, org| {
        let (total, resources) = render_page(ports, org, query, &inputs, &base)?;
        Ok(list_response_text(total, start, &resources))
    })
    .await?;
    Ok(HttpResponse::Ok()
        .content_type(equip_scim::schemas::MEDIA_TYPE)
        .body(body))
}

/// `GET /scim/v2/Users`.
pub async fn list(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    q: Query,
) -> Result<HttpResponse, HttpError> {
    let inputs = ListInputs::read(|n| param(&q, n).map(str::to_owned));
    run_list(&state, key, inputs, base_url(&req)).await
}

/// `POST /scim/v2/Users/.search`.
pub async fn search(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let inputs = ListInputs::from_search_body(&body).map_err(list_error)?;
    run_list(&state, key, inputs, base_url(&req)).await
}

/// `POST /scim/v2/Users`: 201 with the user, `Location` and `ETag`.
pub async fn create(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    q: Query,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let body = body.into_inner();
    let created = run(&state, key, move |ports, org| {
        let person = create_user(ports, org, body)?;
        with_belonging(ports, org, person)
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
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    q: Query,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let id = person_id(&id)?;
    let if_none_match = IfMatch::from_header(req.headers(), header::IF_NONE_MATCH);
    let shown = run(&state, key, move |ports, org| {
        let person = people::get_person(ports, org, id).map_err(domain)?;
        // The tag covers the groups and the effective package too.
        let shown = with_belonging(ports, org, person)?;
        let tag = user_tag(&shown.0, &shown.1);
        if if_none_match.not_modified(&tag) {
            return Ok(Err(tag));
        }
        Ok(Ok(shown))
    })
    .await?;
    match shown {
        Err(tag) => Ok(with_etag(HttpResponse::NotModified().finish(), &tag)),
        Ok(shown) => Ok(user_response(StatusCode::OK, &shown, &base_url(&req), &q)),
    }
}

/// `PUT /scim/v2/Users/{id}`: 200 with the replaced user.
pub async fn replace(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    q: Query,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let id = person_id(&id)?;
    let body = body.into_inner();
    let if_match = IfMatch::from_header(req.headers(), header::IF_MATCH);
    let person = run(&state, key, move |ports, org| {
        let person = replace_user(ports, org, id, &body, &if_match)?;
        with_belonging(ports, org, person)
    })
    .await?;
    Ok(user_response(StatusCode::OK, &person, &base_url(&req), &q))
}

/// `PATCH /scim/v2/Users/{id}`: 200 with the patched user.
pub async fn patch(
    key: Authenticated,
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
    let if_match = IfMatch::from_header(req.headers(), header::IF_MATCH);
    let person = run(&state, key, move |ports, org| {
        let person = patch_user(ports, org, id, &ops, &doc_base, &if_match)?;
        with_belonging(ports, org, person)
    })
    .await?;
    Ok(user_response(StatusCode::OK, &person, &base, &q))
}

/// `DELETE /scim/v2/Users/{id}`: 204; offboarding starts.
pub async fn delete(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let id = person_id(&id)?;
    let if_match = IfMatch::from_header(req.headers(), header::IF_MATCH);
    run(&state, key, move |ports, org| {
        delete_user(ports, org, id, &if_match)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}
