//! `/scim/v2/Groups`: list, search, create, get, replace, patch, delete.
//! A group's members are read only when the answer shows them: not with
//! `excludedAttributes=members`, nor with `attributes` that do not name them
//! (a list reads the members of its page's groups in one call).

use std::collections::HashMap;

use actix_web::http::header;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use equip_domain::group::{Group, Member};
use equip_domain::group_query::GroupQuery;
use equip_domain::ids::{GroupId, OrganizationId};
use equip_domain::ports::GroupRepository;
use equip_domain::services::groups;
use equip_scim::group::{from_group, group_json, group_location};
use equip_scim::group_schema::GROUP_RESOURCE;
use equip_scim::list::{list_response_text, ListInputs};
use equip_scim::patch::parse_patch;
use equip_scim::projection::{project_resource, returns};
use equip_scim::user::version_tag;
use serde_json::Value;

use super::group_provisioning::{create_group, delete_group, group_id, patch_group, replace_group};
use super::provisioning::{patch_error, IfMatch};
use super::{base_url, domain, list_error, param, run, with_etag, Query};
use crate::auth::Authenticated;
use crate::error::HttpError;
use crate::state::{AppState, Ports};

/// `attributes` and `excludedAttributes` of an answer.
#[derive(Debug, Clone, Default)]
struct Selection {
    attributes: Option<String>,
    excluded: Option<String>,
}

impl Selection {
    fn of(q: &HashMap<String, String>) -> Self {
        Self {
            attributes: param(q, "attributes").map(str::to_owned),
            excluded: param(q, "excludedAttributes").map(str::to_owned),
        }
    }

    /// Whether the answer shows members (so they are read).
    fn shows_members(&self) -> bool {
        returns(
            &GROUP_RESOURCE,
            self.attributes.as_deref(),
            self.excluded.as_deref(),
            "members",
        )
    }

    /// The group as this selection shows it, as JSON text.
    fn render(&self, group: &Group, members: Option<&[Member]>, base: &str) -> String {
        if self.attributes.is_some() || self.excluded.is_some() {
            project_resource(
                &GROUP_RESOURCE,
                from_group(group, members, base),
                self.attributes.as_deref(),
                self.excluded.as_deref(),
            )
            .to_string()
        } else {
            group_json(group, members, base)
        }
    }
}

/// A group with its members when the answer shows them.
struct Shown {
    group: Group,
    members: Option<Vec<Member>>,
}

/// The members of `page`'s groups, by group, when `selection` shows them
/// (one read for the page); `None` when it does not (nothing read).
fn members_of_page(
    ports: &dyn GroupRepository,
    org: OrganizationId,
    page: &[Group],
    selection: &Selection,
) -> Result<Option<HashMap<GroupId, Vec<Member>>>, HttpError> {
    if !selection.shows_members() {
        return Ok(None);
    }
    if page.is_empty() {
        return Ok(Some(HashMap::new()));
    }
    let ids: Vec<GroupId> = page.iter().map(|g| g.id).collect();
    groups::members_of(ports, org, &ids)
        .map(Some)
        .map_err(domain)
}

/// `group`, with its members when `selection` shows them.
fn with_members(
    ports: &dyn GroupRepository,
    org: OrganizationId,
    group: Group,
    selection: &Selection,
) -> Result<Shown, HttpError> {
    let members = members_of_page(ports, org, std::slice::from_ref(&group), selection)?
        .map(|mut by_group| by_group.remove(&group.id).unwrap_or_default());
    Ok(Shown { group, members })
}

/// The group response: 200/201 with the projected resource and its `ETag`
/// (and `Location` for 201).
fn group_response(
    status: StatusCode,
    shown: &Shown,
    base: &str,
    selection: &Selection,
) -> HttpResponse {
    let body = selection.render(&shown.group, shown.members.as_deref(), base);
    let resp = HttpResponse::build(status)
        .content_type(equip_scim::schemas::MEDIA_TYPE)
        .body(body);
    let mut resp = with_etag(resp, &version_tag(shown.group.version));
    if status == StatusCode::CREATED {
        if let Ok(v) = header::HeaderValue::from_str(&group_location(base, shown.group.id)) {
            resp.headers_mut().insert(header::LOCATION, v);
        }
    }
    resp
}

/// A page of groups for `query` (with their members when the answer shows
/// them), each rendered as `inputs` select: the number matching in all and
/// the resources (JSON text). Runs on the blocking pool.
pub(crate) fn render_page(
    ports: &dyn Ports,
    org: OrganizationId,
    query: GroupQuery,
    inputs: &ListInputs,
    base: &str,
) -> Result<(u64, Vec<String>), HttpError> {
    let selection = Selection {
        attributes: inputs.attributes.clone(),
        excluded: inputs.excluded_attributes.clone(),
    };
    let mut page = groups::list_groups(ports, org, query).map_err(domain)?;
    if selection.shows_members() && !page.groups.is_empty() {
        // Members shown: the page ends before the group that would pass
        // MAX_MEMBERS_PER_PAGE members (from the kept counts, not the rows).
        let ids: Vec<GroupId> = page.groups.iter().map(|g| g.id).collect();
        let counts: HashMap<GroupId, u64> = ports
            .member_counts(org, &ids)
            .map_err(|e| domain(e.into()))?
            .into_iter()
            .collect();
        let in_order: Vec<u64> = ids
            .iter()
            .map(|id| counts.get(id).copied().unwrap_or(0))
            .collect();
        page.groups
            .truncate(equip_domain::group::groups_within_member_limit(&in_order));
    }
    let members = members_of_page(ports, org, &page.groups, &selection)?;
    let resources = page
        .groups
        .iter()
        .map(|g| {
            let of_group = members
                .as_ref()
                .map(|m| m.get(&g.id).map_or(&[][..], Vec::as_slice));
            selection.render(g, of_group, base)
        })
        .collect();
    Ok((page.total, resources))
}

/// A list response: the page (and, when shown, its groups' members) read
/// and rendered on the blocking pool.
async fn run_list(
    state: &AppState,
    key: Authenticated,
    inputs: ListInputs,
    base: String,
) -> Result<HttpResponse, HttpError> {
    let query = inputs
        .group_query(state.scim_max_results())
        .map_err(list_error)?;
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

/// `GET /scim/v2/Groups`.
pub async fn list(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    q: Query,
) -> Result<HttpResponse, HttpError> {
    let inputs = ListInputs::read(|n| param(&q, n).map(str::to_owned));
    run_list(&state, key, inputs, base_url(&req)).await
}

/// `POST /scim/v2/Groups/.search`.
pub async fn search(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let inputs = ListInputs::from_search_body(&body).map_err(list_error)?;
    run_list(&state, key, inputs, base_url(&req)).await
}

/// `POST /scim/v2/Groups`: 201 with the group, `Location` and `ETag`.
pub async fn create(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    q: Query,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let body = body.into_inner();
    let selection = Selection::of(&q);
    let read = selection.clone();
    let shown = run(&state, key, move |ports, org| {
        let group = create_group(ports, org, body)?;
        with_members(ports, org, group, &read)
    })
    .await?;
    Ok(group_response(
        StatusCode::CREATED,
        &shown,
        &base_url(&req),
        &selection,
    ))
}

/// `GET /scim/v2/Groups/{id}`; 304 when `If-None-Match` names the current
/// version (the members are then not read).
pub async fn get(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    q: Query,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let id = group_id(&id)?;
    let if_none_match = IfMatch::from_header(req.headers(), header::IF_NONE_MATCH);
    let selection = Selection::of(&q);
    let read = selection.clone();
    let shown = run(&state, key, move |ports, org| {
        let group = groups::get_group(ports, org, id).map_err(domain)?;
        if if_none_match.not_modified(&version_tag(group.version)) {
            return Ok(Err(group.version));
        }
        with_members(ports, org, group, &read).map(Ok)
    })
    .await?;
    match shown {
        Err(version) => Ok(with_etag(
            HttpResponse::NotModified().finish(),
            &version_tag(version),
        )),
        Ok(shown) => Ok(group_response(
            StatusCode::OK,
            &shown,
            &base_url(&req),
            &selection,
        )),
    }
}

/// `PUT /scim/v2/Groups/{id}`: 200 with the replaced group (fields and
/// members; absent members: none).
pub async fn replace(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    q: Query,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let id = group_id(&id)?;
    let body = body.into_inner();
    let if_match = IfMatch::from_header(req.headers(), header::IF_MATCH);
    let selection = Selection::of(&q);
    let read = selection.clone();
    let shown = run(&state, key, move |ports, org| {
        let group = replace_group(ports, org, id, &body, &if_match)?;
        with_members(ports, org, group, &read)
    })
    .await?;
    Ok(group_response(
        StatusCode::OK,
        &shown,
        &base_url(&req),
        &selection,
    ))
}

/// `PATCH /scim/v2/Groups/{id}`: 200 with the patched group, as
/// `attributes` / `excludedAttributes` select it (with
/// `excludedAttributes=members`, as identity providers send it, the members
/// are not read).
pub async fn patch(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    q: Query,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let id = group_id(&id)?;
    let ops = parse_patch(&body).map_err(patch_error)?;
    let if_match = IfMatch::from_header(req.headers(), header::IF_MATCH);
    let selection = Selection::of(&q);
    let read = selection.clone();
    let shown = run(&state, key, move |ports, org| {
        let group = patch_group(ports, org, id, &ops, &if_match)?;
        with_members(ports, org, group, &read)
    })
    .await?;
    Ok(group_response(
        StatusCode::OK,
        &shown,
        &base_url(&req),
        &selection,
    ))
}

/// `DELETE /scim/v2/Groups/{id}`: 204; the group and its memberships are
/// gone, its users stay.
pub async fn delete(
    key: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let id = group_id(&id)?;
    let if_match = IfMatch::from_header(req.headers(), header::IF_MATCH);
    run(&state, key, move |ports, org| {
        delete_group(ports, org, id, &if_match)
    })
    .await?;
    Ok(HttpResponse::NoContent().finish())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::collections::BTreeSet;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use chrono::Utc;
    use equip_domain::error::StoreResult;
    use equip_domain::group::{GroupFields, PersonGroup};
    use equip_domain::group_query::{GroupPage, GroupQuery};
    use equip_domain::ids::PersonId;
    use equip_domain::ports::{GroupChange, GroupWrite};
    use equip_domain::testing::InMemoryStore;

    use super::*;

    /// The in-memory store's groups, counting the reads of members.
    #[derive(Default)]
    struct Counting {
        store: InMemoryStore,
        member_reads: AtomicUsize,
    }

    impl GroupRepository for Counting {
        fn find_group(&self, o: OrganizationId, id: GroupId) -> StoreResult<Option<Group>> {
            self.store.find_group(o, id)
        }
        fn list_groups(&self, o: OrganizationId, q: &GroupQuery) -> StoreResult<GroupPage> {
            self.store.list_groups(o, q)
        }
        fn group_members(
            &self,
            o: OrganizationId,
            groups: &[GroupId],
        ) -> StoreResult<Vec<(GroupId, Member)>> {
            self.member_reads.fetch_add(1, Ordering::SeqCst);
            self.store.group_members(o, groups)
        }
        fn member_counts(
            &self,
            o: OrganizationId,
            groups: &[GroupId],
        ) -> StoreResult<Vec<(GroupId, u64)>> {
            self.store.member_counts(o, groups)
        }
        fn insert_group(&self, g: &Group, m: &BTreeSet<PersonId>) -> StoreResult<GroupWrite> {
            self.store.insert_group(g, m)
        }
        fn update_group(
            &self,
            o: OrganizationId,
            id: GroupId,
            c: &GroupChange,
        ) -> StoreResult<GroupWrite> {
            self.store.update_group(o, id, c)
        }
        fn delete_group(
            &self,
            o: OrganizationId,
            id: GroupId,
            v: Option<i64>,
        ) -> StoreResult<GroupWrite> {
            self.store.delete_group(o, id, v)
        }
        fn groups_of_people(
            &self,
            o: OrganizationId,
            p: &[PersonId],
        ) -> StoreResult<Vec<(PersonId, PersonGroup)>> {
            self.store.groups_of_people(o, p)
        }
    }

    fn selection(attributes: Option<&str>, excluded: Option<&str>) -> Selection {
        Selection {
            attributes: attributes.map(str::to_owned),
            excluded: excluded.map(str::to_owned),
        }
    }

    #[test]
    fn members_are_read_once_per_answer_and_only_when_shown() {
        let ports = Counting::default();
        let org = OrganizationId::new();
        let group = |name: &str| {
            let fields = GroupFields {
                external_id: None,
                display_name: name.into(),
                package_id: None,
                precedence: 0,
            };
            groups::create_group(&ports, org, fields, &BTreeSet::new(), Utc::now()).unwrap()
        };
        let page = [group("a"), group("b"), group("c")];
        let reads = || ports.member_reads.load(Ordering::SeqCst);
        for hidden in [
            selection(None, Some("members")),
            selection(None, Some("displayName,Members")),
            selection(Some("displayName"), None),
        ] {
            assert!(members_of_page(&ports, org, &page, &hidden)
                .unwrap()
                .is_none());
            let shown = with_members(&ports, org, page[0].clone(), &hidden).unwrap();
            assert!(shown.members.is_none());
        }
        assert_eq!(reads(), 0, "excluded members are never read");
        for shown in [
            selection(None, None),
            selection(None, Some("members.display")),
            selection(Some("members"), None),
        ] {
            let before = reads();
            let by_group = members_of_page(&ports, org, &page, &shown).unwrap();
            assert!(by_group.is_some());
            assert_eq!(reads(), before + 1, "one read for the page");
            let one = with_members(&ports, org, page[1].clone(), &shown).unwrap();
            assert_eq!(one.members, Some(Vec::new()));
        }
    }
}
