//! The group operations behind `/scim/v2/Groups` and behind the Bulk
//! operations on groups: one implementation of create, replace, patch and
//! delete over the ports, run synchronously inside a blocking call, as
//! [`super::provisioning`] is for users. None of them reads a group's
//! members: what a write answers is the group (its version), and the
//! handlers read the members only when the answer shows them.

use std::collections::BTreeSet;

use actix_web::http::StatusCode;
use chrono::Utc;
use equip_domain::group::{Group, GroupFields, GroupFieldsChange, MembersChange};
use equip_domain::ids::{GroupId, OrganizationId, PersonId};
use equip_domain::ports::GroupChange;
use equip_domain::services::groups;
use equip_scim::error::ScimType;
use equip_scim::group::ScimGroup;
use equip_scim::group_patch::interpret;
use equip_scim::patch::PatchOperation;
use serde_json::Value;

use super::provisioning::{patch_error, precondition_failed, retry_concurrent, IfMatch};
use super::{bad, domain};
use crate::error::{Area, HttpError};
use crate::state::Ports;

/// A group id from a path; a malformed one names no group: 404 (RFC 7644).
pub(crate) fn group_id(raw: &str) -> Result<GroupId, HttpError> {
    GroupId::parse(raw)
        .map_err(|_| HttpError::new(Area::Scim, StatusCode::NOT_FOUND, "id", "group not found"))
}

/// The group described by the Group document `body`: its fields and members.
fn to_group(body: Value) -> Result<(GroupFields, BTreeSet<PersonId>), HttpError> {
    let group = ScimGroup::from_body(body).map_err(|e| {
        bad(
            ScimType::InvalidValue,
            e.attribute().unwrap_or("request"),
            format!("not a valid Group: {e}"),
        )
    })?;
    group
        .into_parts()
        .map_err(|e| bad(ScimType::InvalidValue, e.attribute(), e.to_string()))
}

/// Creates the group described by `body` (POST), with its members.
pub(crate) fn create_group(
    ports: &dyn Ports,
    org: OrganizationId,
    body: Value,
) -> Result<Group, HttpError> {
    let (fields, members) = to_group(body)?;
    groups::create_group(ports, org, fields, &members, Utc::now()).map_err(domain)
}

/// The version a write must find, for a precondition stated as `if_match`.
fn expected_version(
    ports: &dyn Ports,
    org: OrganizationId,
    id: GroupId,
    if_match: &IfMatch,
) -> Result<Option<i64>, HttpError> {
    super::provisioning::expected_version(if_match, "group", || {
        Ok(groups::get_group(ports, org, id).map_err(domain)?.version)
    })
}

/// Replaces the group `id` with the Group document `body` (PUT): its
/// fields and its members (absent members: none).
pub(crate) fn replace_group(
    ports: &dyn Ports,
    org: OrganizationId,
    id: GroupId,
    body: &Value,
    if_match: &IfMatch,
) -> Result<Group, HttpError> {
    let (fields, members) = to_group(body.clone())?;
    let change = GroupChange {
        fields: fields.into(),
        members: MembersChange::Replace(members),
        expected_version: expected_version(ports, org, id, if_match)?,
        at: Utc::now(),
    };
    match groups::change_group(ports, org, id, &change).map_err(domain)? {
        Ok(g) => Ok(g),
        Err(_) => Err(precondition_failed("group")),
    }
}

/// Applies PATCH operations to the group `id`. The operations are
/// interpreted against the group's current fields (never its members) and
/// written as one change of the fields they change and of the members,
/// applied to whatever is stored when it is written (the store composes
/// concurrent changes: another PATCH's rename, members added meanwhile).
/// With a precondition, the write needs the version it was read at (412
/// otherwise).
pub(crate) fn patch_group(
    ports: &dyn Ports,
    org: OrganizationId,
    id: GroupId,
    ops: &[PatchOperation],
    if_match: &IfMatch,
) -> Result<Group, HttpError> {
    retry_concurrent("group", || {
        let cur = groups::get_group(ports, org, id).map_err(domain)?;
        let conditional = if_match.check(cur.version, "group")?;
        let patch = interpret(ops, &cur).map_err(patch_error)?;
        // Only the fields the PATCH changes are written, onto whatever
        // version is stored then: without If-Match, a concurrent change
        // (another PATCH's rename, members) is kept, never a conflict.
        let change = GroupChange {
            expected_version: conditional.then_some(cur.version),
            fields: patch
                .fields
                .map(|after| GroupFieldsChange::between(&cur.fields(), &after))
                .unwrap_or_default(),
            members: patch.members,
            at: Utc::now(),
        };
        match groups::change_group(ports, org, id, &change).map_err(domain)? {
            Ok(g) => Ok(Some(g)),
            Err(_) if conditional => Err(precondition_failed("group")),
            Err(_) => Ok(None),
        }
    })
}

/// Deletes the group `id` (DELETE); its users stay. With versions stated
/// (`If-Match`), the stored one must be any of them, as for PUT and PATCH.
pub(crate) fn delete_group(
    ports: &dyn Ports,
    org: OrganizationId,
    id: GroupId,
    if_match: &IfMatch,
) -> Result<(), HttpError> {
    let expected = expected_version(ports, org, id, if_match)?;
    match groups::delete_group(ports, org, id, expected).map_err(domain)? {
        Ok(()) => Ok(()),
        Err(_) => Err(precondition_failed("group")),
    }
}
