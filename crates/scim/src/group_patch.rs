//! PATCH of a group (RFC 7644 §3.5.2), interpreted into one change of the
//! domain: the group's new fields (computed from its current ones) and a
//! [`MembersChange`] whose adds, removes and replaces compose in the order of
//! the operations. No document of the whole group is built, so a group of
//! 100,000 members is never read to change it; every operation is checked
//! before anything is written.
//!
//! Accepted, in any case of `op` and of attribute names:
//! - Okta: `add` to `members` with a list of `{"value": id}`, `remove` of
//!   `members[value eq "id"]` (and `or` of such conditions), and the
//!   path-less `replace` of `{"id": gid, "displayName": …}` (the read-only
//!   `id` is ignored when it is the group's own);
//! - Microsoft Entra ID: `Add` / `Remove` on `members` with a list of
//!   `{"value": id}`, `Replace` of `displayName` or `externalId`;
//! - `remove` of `members` without a value (every member), `replace` of
//!   `members` (exactly these), path-less `add` / `replace` with `members`
//!   in the value (add / replace all);
//! - the extension's `packageId` and `precedence` by path
//!   (`urn:ietf:params:scim:schemas:extension:equip:1.0:Group:packageId`), by
//!   the extension's URN with an object, or in a path-less value; removing
//!   `packageId` leaves the group without a package, removing `precedence`
//!   sets it to 0.
//!
//! Attributes equip does not know are ignored, as on users; `id`, `meta` and
//! a member's `display` are read-only (`mutability`); a member `value` that
//! is not a user id is `invalidValue` naming it. Whether the members are
//! users of the organization is the store's check, when the change is written.

use equip_domain::group::{Group, GroupFields, MembersChange};
use equip_domain::ids::{GroupId, PersonId};
use serde_json::Value;

use crate::filter::{parse_path, AttrPath, CompValue, CompareOp, Filter, PatchPath};
use crate::group::{member_id, member_ids, package_id, precedence, ScimGroupError};
use crate::group_schema::GROUP_RESOURCE;
use crate::patch::{OpKind, PatchError, PatchOperation};
use crate::resource_schema::{Resolved, Schema};

/// What a PATCH changes: new fields (when they differ from the current
/// ones) and the members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupPatch {
    /// The group's fields after the PATCH, when they changed.
    pub fields: Option<GroupFields>,
    /// The change of members.
    pub members: MembersChange,
}

/// The change being built.
struct Draft {
    id: GroupId,
    fields: GroupFields,
    members: MembersChange,
}

fn invalid(e: &ScimGroupError) -> PatchError {
    PatchError::InvalidValue(e.to_string())
}

/// Interprets `ops` (from [`crate::patch::parse_patch`]) against `group`, in
/// order.
///
/// # Errors
/// [`PatchError`] for the first operation that cannot be applied; nothing of
/// the PATCH is then written.
pub fn interpret(ops: &[PatchOperation], group: &Group) -> Result<GroupPatch, PatchError> {
    let current = group.fields();
    let mut draft = Draft {
        id: group.id,
        fields: current.clone(),
        members: MembersChange::Keep,
    };
    for op in ops {
        match (&op.path, &op.value) {
            (Some(path), value) => draft.apply_path(op.kind, path, value.as_ref())?,
            (None, Some(Value::Object(values))) => {
                for (key, v) in values {
                    draft.apply_key(op.kind, key, v)?;
                }
            }
            (None, Some(Value::Array(items))) => {
                // Some clients wrap the object in an array.
                for item in items {
                    let Value::Object(values) = item else {
                        return Err(pathless_value());
                    };
                    for (key, v) in values {
                        draft.apply_key(op.kind, key, v)?;
                    }
                }
            }
            (None, _) => return Err(pathless_value()),
        }
    }
    Ok(GroupPatch {
        fields: (draft.fields != current).then_some(draft.fields),
        members: draft.members,
    })
}

fn pathless_value() -> PatchError {
    PatchError::InvalidValue("a path-less value must be an object of attributes".into())
}

fn extension_path(name: &str) -> PatchPath {
    PatchPath {
        attr: AttrPath {
            uri: Some(GROUP_RESOURCE.extension_urn.into()),
            attr: name.to_owned(),
            sub_attr: None,
        },
        filter: None,
        sub_attr: None,
    }
}

impl Draft {
    /// A key of a path-less value: an attribute name (URN-prefixed or not)
    /// or the extension's URN with an object of its attributes. Read-only
    /// attributes are ignored, `id` only when it is the group's own.
    fn apply_key(&mut self, kind: OpKind, key: &str, v: &Value) -> Result<(), PatchError> {
        if key.eq_ignore_ascii_case("schemas") || key.eq_ignore_ascii_case("meta") {
            return Ok(());
        }
        if key.eq_ignore_ascii_case("id") {
            return match v {
                Value::String(s) if GroupId::parse(s.trim()).is_ok_and(|id| id == self.id) => {
                    Ok(())
                }
                _ => Err(PatchError::Mutability(format!(
                    "id is read-only: {v} is not this group's id"
                ))),
            };
        }
        if key.eq_ignore_ascii_case(GROUP_RESOURCE.extension_urn) {
            return self.apply_extension(kind, v);
        }
        match parse_path(key) {
            Ok(path) if path.filter.is_none() => {
                if GROUP_RESOURCE
                    .resolve(&path.attr)
                    .is_some_and(|r| r.is_read_only())
                {
                    return Ok(());
                }
                self.apply_path(kind, &path, Some(v))
            }
            // Keys that are not attribute names: nothing equip stores.
            _ => Ok(()),
        }
    }

    /// The extension object: each of its attributes.
    fn apply_extension(&mut self, kind: OpKind, v: &Value) -> Result<(), PatchError> {
        let Value::Object(inner) = v else {
            return Err(PatchError::InvalidValue(format!(
                "{} must be an object",
                GROUP_RESOURCE.extension_urn
            )));
        };
        for (k, iv) in inner {
            self.apply_path(kind, &extension_path(k), Some(iv))?;
        }
        Ok(())
    }

    fn apply_path(
        &mut self,
        kind: OpKind,
        path: &PatchPath,
        value: Option<&Value>,
    ) -> Result<(), PatchError> {
        let Some(r) = GROUP_RESOURCE.resolve(&path.attr) else {
            // Unknown attribute or another extension: ignored, as on users;
            // a sub-attribute an attribute does not have is not.
            return match GROUP_RESOURCE.lacking_sub_attribute(&path.attr) {
                Some((
                    Resolved {
                        attr: Some(attr), ..
                    },
                    sub,
                )) => Err(PatchError::InvalidPath(format!(
                    "{} has no sub-attribute {sub}",
                    attr.name
                ))),
                _ => Ok(()),
            };
        };
        let Some(attr) = r.attr else {
            // The whole extension object.
            return match (kind, value) {
                (OpKind::Remove, _) => {
                    self.fields.package_id = None;
                    self.fields.precedence = 0;
                    Ok(())
                }
                (_, Some(v)) => self.apply_extension(kind, v),
                (_, None) => Ok(()),
            };
        };
        if r.is_read_only() {
            return Err(PatchError::Mutability(format!(
                "{} is read-only",
                path.attr
            )));
        }
        if r.schema == Schema::Core && attr.name == "members" {
            return self.apply_members(kind, path, r.sub.is_some(), value);
        }
        if path.filter.is_some() {
            return Err(PatchError::InvalidPath(format!(
                "a value filter needs a multi-valued attribute; {} is not",
                attr.name
            )));
        }
        let value = match kind {
            OpKind::Remove => &Value::Null,
            _ => value.unwrap_or(&Value::Null),
        };
        match (r.schema, attr.name) {
            (Schema::Core, "displayName") => {
                self.fields.display_name = match value {
                    Value::String(s) if !s.trim().is_empty() => s.trim().to_owned(),
                    Value::String(_) | Value::Null => {
                        return Err(PatchError::InvalidValue(
                            "displayName is required: it cannot be removed or empty".into(),
                        ))
                    }
                    other => {
                        return Err(PatchError::InvalidValue(format!(
                            "displayName must be a string, not {other}"
                        )))
                    }
                };
            }
            (Schema::Core, "externalId") => {
                self.fields.external_id = match value {
                    // As sent (caseExact): only "" is absent.
                    Value::String(s) => Some(s.clone()).filter(|s| !s.is_empty()),
                    Value::Null => None,
                    other => {
                        return Err(PatchError::InvalidValue(format!(
                            "externalId must be a string, not {other}"
                        )))
                    }
                };
            }
            (Schema::Extension, "packageId") => {
                self.fields.package_id = match value {
                    Value::String(s) => package_id(Some(s)).map_err(|e| invalid(&e))?,
                    Value::Null => None,
                    other => {
                        return Err(PatchError::InvalidValue(format!(
                            "packageId must be a string (a UUID), not {other}"
                        )))
                    }
                };
            }
            (Schema::Extension, "precedence") => {
                self.fields.precedence = precedence(value).map_err(|e| invalid(&e))?;
            }
            _ => {}
        }
        Ok(())
    }

    fn apply_members(
        &mut self,
        kind: OpKind,
        path: &PatchPath,
        has_sub: bool,
        value: Option<&Value>,
    ) -> Result<(), PatchError> {
        if has_sub || path.sub_attr.is_some() {
            return Err(PatchError::InvalidPath(format!(
                "{path}: a member's attributes are not changed one by one; add, remove or \
                 replace members by the path members"
            )));
        }
        let ids = |v: Option<&Value>| -> Result<Vec<PersonId>, PatchError> {
            member_ids(v.unwrap_or(&Value::Null)).map_err(|e| invalid(&e))
        };
        match (&path.filter, kind) {
            (Some(filter), OpKind::Remove) => self.members.remove(selected(filter)?),
            (Some(_), _) => {
                return Err(PatchError::InvalidPath(format!(
                    "{path}: a filter on members selects members to remove; to add or \
                     replace members, use the path members"
                )))
            }
            (None, OpKind::Remove) => match value {
                // No value: every member goes.
                None | Some(Value::Null) => self.members.replace([]),
                Some(v) => self.members.remove(ids(Some(v))?),
            },
            (None, OpKind::Add) => self.members.add(ids(value)?),
            (None, OpKind::Replace) => self.members.replace(ids(value)?),
        }
        Ok(())
    }
}

/// The members a filter of `members[…]` names: `value eq "<id>"`, or several
/// joined by `or`.
fn selected(filter: &Filter) -> Result<Vec<PersonId>, PatchError> {
    match filter {
        Filter::Or(a, b) => {
            let mut ids = selected(a)?;
            ids.extend(selected(b)?);
            Ok(ids)
        }
        Filter::Compare(p, CompareOp::Eq, CompValue::Str(raw))
            if p.uri.is_none() && p.sub_attr.is_none() && p.attr.eq_ignore_ascii_case("value") =>
        {
            Ok(vec![member_id(raw).map_err(|e| invalid(&e))?])
        }
        other => Err(PatchError::InvalidPath(format!(
            "members[{other}]: members are selected by value eq \"<user id>\" (or several \
             joined by or)"
        ))),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
