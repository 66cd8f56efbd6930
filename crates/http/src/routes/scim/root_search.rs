//! `POST /scim/v2/.search`: a search at the root spans every resource type
//! (RFC 7644 §3.4.3): the users, then the groups, as one list that
//! `startIndex` and `count` page through. A filter naming an attribute only
//! one resource type has selects from that type only; a `sortBy` only one
//! type has orders that type and leaves the other in creation order; what
//! neither understands is 400, as on `/Users`.

use actix_web::{web, HttpRequest, HttpResponse};
use equip_domain::group_query::GroupQuery;
use equip_domain::person_query::PersonQuery;
use equip_scim::list::{list_response_text, ListError, ListInputs};
use serde_json::Value;

use super::{base_url, list_error, run};
use crate::auth::Authenticated;
use crate::error::HttpError;
use crate::state::AppState;

/// The pages of each resource type that make up one page of the whole list
/// from the 1-based `start` of at most `count` resources, given how many
/// users match: (users' start and count, groups' start and count).
fn split(start: u64, count: u32, users_total: u64) -> ((u64, u32), (u64, u32)) {
    let start = start.max(1);
    let users_left = users_total.saturating_sub(start - 1);
    let from_users = u32::try_from(users_left.min(u64::from(count))).unwrap_or(count);
    let groups_start = start.saturating_sub(users_total).max(1);
    ((start, from_users), (groups_start, count - from_users))
}

/// `query`, or (when only its `sortBy` is one the type lacks) `unsorted`.
fn or_unsorted<Q>(
    query: Result<Q, ListError>,
    unsorted: impl FnOnce() -> Result<Q, ListError>,
) -> Result<Q, ListError> {
    match query {
        Err(ListError::Param {
            param: "sortBy", ..
        }) => unsorted(),
        other => other,
    }
}

/// `POST /scim/v2/.search`.
pub async fn search(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let inputs = ListInputs::from_search_body(&body).map_err(list_error)?;
    // A `sortBy` one resource type lacks orders that type by creation, as
    // if absent (its resources still follow the other's); it is not a
    // reason to leave them out.
    let unsorted = ListInputs {
        sort_by: None,
        ..inputs.clone()
    };
    let max = state.scim_max_results();
    let users = or_unsorted(inputs.query(max), || unsorted.query(max));
    let groups = or_unsorted(inputs.group_query(max), || unsorted.group_query(max));
    // A filter naming what only one type has selects from that type; an
    // error of both (a syntax error, an attribute neither has) is the answer.
    let (users, groups): (Option<PersonQuery>, Option<GroupQuery>) = match (users, groups) {
        (Err(e), Err(_)) => return Err(list_error(e)),
        (u, g) => (u.ok(), g.ok()),
    };
    let (start, count) = users
        .as_ref()
        .map(|q| (q.start_index, q.count))
        .or_else(|| groups.as_ref().map(|q| (q.start_index, q.count)))
        .unwrap_or((1, 0));
    let base = base_url(&req);
    let body = run(&state, key, move |ports, org| {
        // How many users match: the groups' part of the page starts after them.
        let users_total = match &users {
            Some(q) => {
                let counting = PersonQuery {
                    count: 0,
                    start_index: 1,
                    ..q.clone()
                };
                super::users::render_page(ports, org, counting, &inputs, &base)?.0
            }
            None => 0,
        };
        let ((u_start, u_count), (g_start, g_count)) = split(start, count, users_total);
        let mut resources = Vec::new();
        if let (Some(q), true) = (users, u_count > 0) {
            let page = PersonQuery {
                start_index: u_start,
                count: u_count,
                ..q
            };
            resources.extend(super::users::render_page(ports, org, page, &inputs, &base)?.1);
        }
        let mut groups_total = 0;
        if let Some(q) = groups {
            let page = GroupQuery {
                start_index: g_start,
                count: g_count,
                ..q
            };
            let (total, rendered) = super::groups::render_page(ports, org, page, &inputs, &base)?;
            groups_total = total;
            resources.extend(rendered);
        }
        Ok(list_response_text(
            users_total + groups_total,
            start,
            &resources,
        ))
    })
    .await?;
    Ok(HttpResponse::Ok()
        .content_type(equip_scim::schemas::MEDIA_TYPE)
        .body(body))
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn a_page_takes_the_users_then_the_groups() {
        // 3 users, page of 2 from 1: two users, no group.
        assert_eq!(split(1, 2, 3), ((1, 2), (1, 0)));
        // From 3: the last user, then the first group.
        assert_eq!(split(3, 2, 3), ((3, 1), (1, 1)));
        // From 5: groups only, from the second.
        assert_eq!(split(5, 2, 3), ((5, 0), (2, 2)));
        // No users.
        assert_eq!(split(1, 50, 0), ((1, 0), (1, 50)));
        // Counting only.
        assert_eq!(split(1, 0, 7), ((1, 0), (1, 0)));
    }
}
