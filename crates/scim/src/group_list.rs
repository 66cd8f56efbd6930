//! List and search requests on `/Groups` (RFC 7644 §3.4.2, §3.4.3): the
//! filter translated into the domain's [`GroupFilter`], sorting and paging.
//! The inputs are the same [`ListInputs`] as `/Users`.
//!
//! Filterable: `id`, `externalId`, `displayName`, `meta.created`,
//! `meta.lastModified`, and the members' ids as `members.value` (or
//! `members`), `members[value …]` and `members pr`. A condition on members
//! asks whether some member satisfies it; `members.value ne "x"` holds when
//! no member is `x` (as `emails.value ne` does for users). Members are
//! compared with `eq` (`ne` outside brackets) and `pr` only, joined by `and`
//! / `or`: each such condition is a look-up in the membership index, so a
//! group's members are never read to filter it; `co`, `sw`, `gt`… or `not`
//! on members would be (400 `invalidFilter`).

use equip_domain::group_query::{
    GroupField, GroupFilter, GroupLeaf, GroupQuery, MemberField, MemberFilter, MEMBER_VALUE_KIND,
};

use crate::filter::{parse_filter, AttrPath, CompareOp, Filter};
use crate::group_schema::GROUP_RESOURCE;
use crate::list::{
    any_element_condition, condition, field_condition, filter_err, translate, Attr, Cond,
    ListError, ListInputs,
};
use crate::resource_schema::Schema;

/// What a filter's attribute names.
#[derive(Debug, Clone, Copy)]
enum Field {
    Group(GroupField),
    /// A member's id.
    MemberValue,
}

fn group_field(path: &AttrPath) -> Result<Field, ListError> {
    let r = GROUP_RESOURCE.resolve(path).ok_or_else(|| {
        filter_err(format!(
            "'{path}' is not an attribute of Group that equip supports"
        ))
    })?;
    let attr = r.attr.map(|a| a.name);
    let sub = r.sub.map(|a| a.name);
    Ok(match (r.schema, attr, sub) {
        (Schema::Core, Some("id"), None) => Field::Group(GroupField::Id),
        (Schema::Core, Some("externalId"), None) => Field::Group(GroupField::ExternalId),
        (Schema::Core, Some("displayName"), None) => Field::Group(GroupField::DisplayName),
        (Schema::Core, Some("meta"), Some("created")) => Field::Group(GroupField::Created),
        (Schema::Core, Some("meta"), Some("lastModified")) => {
            Field::Group(GroupField::LastModified)
        }
        (Schema::Core, Some("members"), None | Some("value")) => Field::MemberValue,
        _ => {
            return Err(filter_err(format!(
                "filtering on '{path}' is not supported; groups filter on id, externalId, \
                 displayName, meta.created, meta.lastModified and members.value"
            )))
        }
    })
}

/// The error of a member condition the membership index cannot answer.
fn member_op_err(p: &AttrPath) -> ListError {
    filter_err(format!(
        "'{p}': members are compared with eq, ne and pr only (each a look-up in the \
         membership index); co, sw, ew, gt, ge, lt and le are not supported on members"
    ))
}

/// A condition inside `members[…]`, whose names are the member's
/// sub-attributes (only `value` can be filtered on, with `eq` and `pr`).
fn member_leaf(attr: Attr<'_>) -> Result<MemberFilter, ListError> {
    let p = match attr {
        Attr::ValuePath(..) => return Err(filter_err("value filters cannot be nested")),
        Attr::Compare(p, ..) | Attr::Present(p) => p,
    };
    if p.uri.is_some() || p.sub_attr.is_some() || !p.attr.eq_ignore_ascii_case("value") {
        return Err(filter_err(format!(
            "'{p}': inside members[…] only value can be filtered on"
        )));
    }
    Ok(match attr {
        Attr::Compare(_, o, v) => match condition(p, MEMBER_VALUE_KIND, o, v)? {
            Cond::Compare(CompareOp::Eq, v) => {
                MemberFilter::compare(MemberField::Value, CompareOp::Eq, v)
            }
            Cond::Present(true) => MemberFilter::present(MemberField::Value),
            _ => return Err(member_op_err(p)),
        },
        _ => MemberFilter::present(MemberField::Value),
    })
}

/// A condition of a filter on groups.
fn group_leaf(attr: Attr<'_>) -> Result<GroupFilter, ListError> {
    let path = attr.path();
    if let Attr::ValuePath(_, inner) = attr {
        return match group_field(path) {
            Ok(Field::MemberValue) if path.sub_attr.is_none() => Ok(GroupFilter::any_member(
                translate(inner, Some(NOT_ON_MEMBERS), &mut member_leaf)?,
            )),
            _ => Err(filter_err(format!(
                "value filters are supported on members only, not on '{path}'"
            ))),
        };
    }
    match group_field(path)? {
        Field::Group(g) => field_condition(attr, g),
        Field::MemberValue => any_element_condition(
            attr,
            MemberField::Value,
            |o| match o {
                CompareOp::Eq => Ok(()),
                _ => Err(member_op_err(path)),
            },
            GroupLeaf::AnyMember,
        ),
    }
}

/// Why `not` is refused inside `members[…]`.
const NOT_ON_MEMBERS: &str =
    "not is not supported inside members[…]: members are compared with eq and pr";

/// Translates a parsed filter into the domain's [`GroupFilter`].
///
/// # Errors
/// [`ListError::Filter`] for attributes equip does not filter groups on, and
/// values of the wrong type.
pub fn to_group_filter(f: &Filter) -> Result<GroupFilter, ListError> {
    translate(f, None, &mut group_leaf)
}

/// Parses and translates a filter string on groups.
///
/// # Errors
/// [`ListError::Filter`].
pub fn parse_group_filter(raw: &str) -> Result<GroupFilter, ListError> {
    let f = parse_filter(raw).map_err(|e| filter_err(e.to_string()))?;
    to_group_filter(&f)
}

fn sort_field(raw: &str) -> Result<GroupField, ListError> {
    let bad = || ListError::Param {
        param: "sortBy",
        message: format!(
            "cannot sort groups by '{raw}'; sortable: id, externalId, displayName, \
             meta.created, meta.lastModified"
        ),
    };
    let path = crate::filter::parse_path(raw).map_err(|_| bad())?;
    if path.filter.is_some() {
        return Err(bad());
    }
    match group_field(&path.attr) {
        Ok(Field::Group(g)) => Ok(g),
        _ => Err(bad()),
    }
}

impl ListInputs {
    /// The domain query on groups; its page is at most `max_results` long
    /// (as [`ListInputs::query`]).
    ///
    /// # Errors
    /// [`ListError::Filter`] for the filter; [`ListError::Param`] for a
    /// non-integer `startIndex` / `count`, an unknown `sortBy` or `sortOrder`.
    pub fn group_query(&self, max_results: u32) -> Result<GroupQuery, ListError> {
        let (start_index, count) = self.page(max_results)?;
        let filter = match self.filter.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(raw) => Some(parse_group_filter(raw)?),
        };
        let sort = match self.sort_by.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(raw) => Some(sort_field(raw)?),
        };
        Ok(GroupQuery {
            filter,
            sort,
            order: self.order()?,
            start_index,
            count,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
