//! The SCIM 2.0 Group resource (RFC 7643 §4.2) with equip's extension, and
//! its conversion to and from the domain's [`Group`].
//!
//! Incoming groups ([`ScimGroup`]) are read the way identity providers send
//! them: unknown attributes are ignored, empty strings count as absent,
//! `members` may be absent or null (no members), each member needs a `value`
//! that is a user id (its `display`, `$ref` and `type` are read past), and
//! `precedence` may be a number or a numeric string. Outgoing groups
//! ([`from_group`], [`group_json`]) show their members only when they were
//! read: a group of 100,000 members is read whole only when the answer
//! holds them.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use equip_domain::group::{Group, GroupFields, Member};
use equip_domain::ids::{PackageId, PersonId};

use crate::meta::{group_location, timestamp, user_location, version_tag};
use crate::resource_schema::BodyError;
use crate::schemas;

/// A group as sent by a client (POST, PUT, Bulk data).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScimGroup {
    /// The identity provider's id for the group.
    #[serde(default)]
    pub external_id: Option<String>,
    /// Name; required.
    #[serde(default)]
    pub display_name: Option<String>,
    /// The members: an array of `{"value": "<user id>"}` (absent or null: none).
    #[serde(default)]
    pub members: Option<Value>,
    /// equip's extension object.
    #[serde(
        default,
        rename = "urn:ietf:params:scim:schemas:extension:equip:1.0:Group"
    )]
    pub extension: Option<ScimGroupExtension>,
}

/// The object under `urn:ietf:params:scim:schemas:extension:equip:1.0:Group`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScimGroupExtension {
    /// Equipment package of the members (UUID).
    #[serde(default)]
    pub package_id: Option<String>,
    /// Precedence among a person's groups (an integer; default 0).
    #[serde(default)]
    pub precedence: Option<Value>,
}

/// A group attribute that cannot be turned into a group.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScimGroupError {
    /// A required attribute is absent (or empty).
    #[error("{attribute}: required")]
    Missing {
        /// The attribute, e.g. `displayName` or `members[1].value`.
        attribute: String,
    },
    /// An attribute has a value equip cannot use.
    #[error("{attribute}: {message}")]
    Invalid {
        /// The attribute, e.g. `members` or `precedence`.
        attribute: String,
        /// What is wrong with the value.
        message: String,
    },
}

impl ScimGroup {
    /// Reads a Group document (a POST or PUT body, a Bulk operation's
    /// `data`) with attribute names compared case-insensitively at every
    /// level (RFC 7643 §2.1): `"DisplayName"`, `"Members"` and a member's
    /// `"Value"` are read as their canonical spellings.
    ///
    /// # Errors
    /// [`BodyError`]: an attribute named twice in two spellings, or a value
    /// of the wrong JSON type.
    pub fn from_body(body: Value) -> Result<Self, BodyError> {
        let body = crate::group_schema::GROUP_RESOURCE.canonical_names(body)?;
        Ok(serde_json::from_value(body)?)
    }
}

impl ScimGroupError {
    /// The attribute the error is about.
    #[must_use]
    pub fn attribute(&self) -> &str {
        match self {
            Self::Missing { attribute } | Self::Invalid { attribute, .. } => attribute,
        }
    }

    fn invalid(attribute: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Invalid {
            attribute: attribute.into(),
            message: message.into(),
        }
    }
}

/// Trims a string; empty means absent.
fn present(value: Option<&str>) -> Option<String> {
    value.and_then(|v| {
        let t = v.trim();
        (!t.is_empty()).then(|| t.to_owned())
    })
}

/// The `value` of a member, case-insensitively (`{"value": …}` or, as some
/// clients send it, the bare id).
fn member_value(item: &Value) -> Option<&Value> {
    match item {
        Value::Object(o) => o
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("value"))
            .map(|(_, v)| v),
        Value::String(_) => Some(item),
        _ => None,
    }
}

/// A member id: a user id (UUID).
///
/// # Errors
/// [`ScimGroupError::Invalid`] (`members`) naming the value.
pub fn member_id(raw: &str) -> Result<PersonId, ScimGroupError> {
    Uuid::parse_str(raw.trim())
        .map(PersonId::from_uuid)
        .map_err(|_| {
            ScimGroupError::invalid(
                "members",
                format!("'{raw}' is not a user id (members' value must be a UUID)"),
            )
        })
}

/// The user ids of a `members` value: an array of members (or one member),
/// each `{"value": "<user id>"}`; null is none.
///
/// # Errors
/// [`ScimGroupError`]: a member without a `value`, a value that is not a UUID
/// (naming it).
pub fn member_ids(members: &Value) -> Result<Vec<PersonId>, ScimGroupError> {
    let one = std::slice::from_ref(members);
    let items = match members {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items.as_slice(),
        _ => one,
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match member_value(item) {
            Some(Value::String(raw)) if !raw.trim().is_empty() => member_id(raw),
            Some(Value::String(_) | Value::Null) | None => Err(ScimGroupError::Missing {
                attribute: format!("members[{i}].value"),
            }),
            Some(other) => Err(ScimGroupError::invalid(
                format!("members[{i}].value"),
                format!("{other} is not a user id (members' value must be a UUID)"),
            )),
        })
        .collect()
}

/// A `packageId`: a UUID, or absent (null or empty).
///
/// # Errors
/// [`ScimGroupError::Invalid`] (`packageId`).
pub fn package_id(raw: Option<&str>) -> Result<Option<PackageId>, ScimGroupError> {
    present(raw)
        .map(|raw| {
            Uuid::parse_str(&raw)
                .map(PackageId::from_uuid)
                .map_err(|_| {
                    ScimGroupError::invalid("packageId", format!("'{raw}' is not a valid UUID"))
                })
        })
        .transpose()
}

/// A `precedence`: an integer (a JSON number or a numeric string); null or
/// an empty string is the default, 0.
///
/// # Errors
/// [`ScimGroupError::Invalid`] (`precedence`).
pub fn precedence(value: &Value) -> Result<i32, ScimGroupError> {
    let bad = || {
        ScimGroupError::invalid(
            "precedence",
            format!(
                "{value} is not an integer between {} and {}",
                i32::MIN,
                i32::MAX
            ),
        )
    };
    match value {
        Value::Null => Ok(0),
        Value::Number(n) => n
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .ok_or_else(bad),
        Value::String(s) if s.trim().is_empty() => Ok(0),
        Value::String(s) => s.trim().parse::<i32>().map_err(|_| bad()),
        _ => Err(bad()),
    }
}

impl ScimGroup {
    /// The group's fields and members. The caller runs
    /// [`GroupFields::validate`] (the use cases do).
    ///
    /// # Errors
    /// [`ScimGroupError`] naming the attribute: a missing `displayName`, a
    /// member that is not a user id, a `packageId` that is not a UUID, a
    /// `precedence` that is not an integer.
    pub fn into_parts(self) -> Result<(GroupFields, BTreeSet<PersonId>), ScimGroupError> {
        let display_name =
            present(self.display_name.as_deref()).ok_or_else(|| ScimGroupError::Missing {
                attribute: "displayName".into(),
            })?;
        let members = match &self.members {
            None => BTreeSet::new(),
            Some(m) => member_ids(m)?.into_iter().collect(),
        };
        let ext = self.extension.unwrap_or_default();
        let fields = GroupFields {
            // As sent (caseExact, the identity provider's key): only "" is absent.
            external_id: self.external_id.filter(|v| !v.is_empty()),
            display_name,
            package_id: package_id(ext.package_id.as_deref())?,
            precedence: precedence(ext.precedence.as_ref().unwrap_or(&Value::Null))?,
        };
        Ok((fields, members))
    }
}

#[derive(Serialize)]
struct OutMember<'a> {
    value: String,
    #[serde(rename = "$ref")]
    reference: String,
    display: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OutMeta {
    resource_type: &'static str,
    created: String,
    last_modified: String,
    location: String,
    version: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OutExtension {
    #[serde(skip_serializing_if = "Option::is_none")]
    package_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    precedence: Option<i32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OutGroup<'a> {
    schemas: &'static [&'static str],
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    external_id: Option<&'a str>,
    display_name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    members: Option<Vec<OutMember<'a>>>,
    meta: OutMeta,
    #[serde(
        rename = "urn:ietf:params:scim:schemas:extension:equip:1.0:Group",
        skip_serializing_if = "Option::is_none"
    )]
    extension: Option<OutExtension>,
}

fn out_group<'a>(group: &'a Group, members: Option<&'a [Member]>, base_url: &str) -> OutGroup<'a> {
    // The extension is shown when it holds something: a package, or a
    // precedence other than the default 0 (absent means 0).
    let extension = (group.package_id.is_some() || group.precedence != 0).then(|| OutExtension {
        package_id: group.package_id.map(|p| p.to_string()),
        precedence: (group.precedence != 0).then_some(group.precedence),
    });
    OutGroup {
        schemas: if extension.is_some() {
            &[schemas::GROUP, schemas::EQUIP_GROUP_EXTENSION]
        } else {
            &[schemas::GROUP]
        },
        id: group.id.to_string(),
        external_id: group.external_id.as_deref(),
        display_name: &group.display_name,
        // Read members are shown even when there are none (`"members": []`):
        // a client reads an absent attribute as unknown, not as empty.
        members: members.map(|m| {
            m.iter()
                .map(|m| OutMember {
                    value: m.person_id.to_string(),
                    reference: user_location(base_url, m.person_id),
                    display: &m.user_name,
                    kind: "User",
                })
                .collect()
        }),
        meta: OutMeta {
            resource_type: "Group",
            created: timestamp(group.created_at),
            last_modified: timestamp(group.updated_at),
            location: group_location(base_url, group.id),
            version: version_tag(group.version),
        },
        extension,
    }
}

/// The SCIM representation of `group`, with `meta.location` under
/// `base_url`. `members` are shown when given (read because the answer holds
/// them), as `[]` when there are none; absent optional attributes are
/// omitted.
#[must_use]
pub fn from_group(group: &Group, members: Option<&[Member]>, base_url: &str) -> Value {
    // Serializing plain strings and numbers into a Value cannot fail.
    serde_json::to_value(out_group(group, members, base_url)).unwrap_or(Value::Null)
}

/// [`from_group`] serialized straight to JSON text.
#[must_use]
pub fn group_json(group: &Group, members: Option<&[Member]>, base_url: &str) -> String {
    serde_json::to_string(&out_group(group, members, base_url)).unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
