//! Rows of groups and their members.

use super::*;
use crate::schema::groups;
use equip_domain::group::{Group, Member, PersonGroup};
use equip_domain::ids::GroupId;

/// A stored group; `display_name_key` is the name's
/// [`identifier_key`], which uniqueness and the filter compare.
#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = groups, treat_none_as_default_value = false)]
pub(crate) struct GroupRow {
    pub id: String,
    pub organization_id: String,
    pub external_id: Option<String>,
    pub display_name: String,
    pub display_name_key: String,
    pub package_id: Option<String>,
    pub precedence: i32,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    pub version: i64,
}

impl From<&Group> for GroupRow {
    fn from(g: &Group) -> Self {
        Self {
            id: g.id.to_string(),
            organization_id: g.organization_id.to_string(),
            external_id: g.external_id.clone(),
            display_name: g.display_name.clone(),
            display_name_key: identifier_key(&g.display_name),
            package_id: g.package_id.map(|p| p.to_string()),
            precedence: g.precedence,
            created_at: db_time(g.created_at),
            updated_at: db_time(g.updated_at),
            version: g.version,
        }
    }
}

impl GroupRow {
    pub(crate) fn into_domain(self) -> DbResult<Group> {
        Ok(Group {
            id: parse_id::<GroupId>(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            external_id: self.external_id,
            display_name: self.display_name,
            package_id: self
                .package_id
                .as_deref()
                .map(parse_id::<PackageId>)
                .transpose()?,
            precedence: self.precedence,
            created_at: utc(self.created_at),
            updated_at: utc(self.updated_at),
            version: self.version,
        })
    }
}

/// A member of a group with their userName (`group_members` joined with `people`).
#[derive(Debug, Clone, Queryable)]
pub(crate) struct MemberRow {
    pub group_id: String,
    pub person_id: String,
    pub user_name: String,
}

impl MemberRow {
    pub(crate) fn into_domain(self) -> DbResult<(GroupId, Member)> {
        Ok((
            parse_id(&self.group_id)?,
            Member {
                person_id: parse_id(&self.person_id)?,
                user_name: self.user_name,
            },
        ))
    }
}

/// A group of a person (`group_members` joined with `groups`).
#[derive(Debug, Clone, Queryable)]
pub(crate) struct PersonGroupRow {
    pub person_id: String,
    pub group_id: String,
    pub display_name: String,
    pub package_id: Option<String>,
    pub precedence: i32,
}

impl PersonGroupRow {
    pub(crate) fn into_domain(self) -> DbResult<(PersonId, PersonGroup)> {
        Ok((
            parse_id(&self.person_id)?,
            PersonGroup {
                group_id: parse_id(&self.group_id)?,
                display_name: self.display_name,
                package_id: self
                    .package_id
                    .as_deref()
                    .map(parse_id::<PackageId>)
                    .transpose()?,
                precedence: self.precedence,
            },
        ))
    }
}
