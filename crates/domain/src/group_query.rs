//! Queries over groups: a filter over a group's fields and its members, a
//! sort order and a page. SCIM's filter grammar becomes a [`GroupFilter`] in
//! `equip-scim`; the stores turn it into their query language. A condition
//! on members asks whether some member satisfies it, answered from the
//! membership index, never by reading a group's members.

use crate::error::DomainError;
use crate::filter::{Condition, Field, Filter, Holds, Leaf};
use crate::group::Group;
use crate::ids::PersonId;

use crate::person_query::{sort_by_field, FieldKind, FilterValue, SortOrder};

/// Largest page a list of groups returns: the same as people's, since SCIM
/// discovery announces one `maxResults` for every resource type.
pub const MAX_PAGE_SIZE: u32 = crate::person_query::MAX_PAGE_SIZE;

/// A field of a group that can be filtered on or sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupField {
    /// The id (exact).
    Id,
    /// The identity provider's id (exact).
    ExternalId,
    /// Name (an identifier: compared as uniqueness compares it).
    DisplayName,
    /// Creation time.
    Created,
    /// Last change.
    LastModified,
}

impl GroupField {
    /// How the field compares.
    #[must_use]
    pub const fn kind(self) -> FieldKind {
        match self {
            Self::Id | Self::ExternalId => FieldKind::Text { case_exact: true },
            Self::DisplayName => FieldKind::Identifier,
            Self::Created | Self::LastModified => FieldKind::Time,
        }
    }
}

impl Field for GroupField {
    fn kind(self) -> FieldKind {
        Self::kind(self)
    }
}

/// The one field of a member a filter names: its id (`members.value`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemberField {
    /// The member's id (exact text, [`MEMBER_VALUE_KIND`]).
    Value,
}

impl Field for MemberField {
    fn kind(self) -> FieldKind {
        MEMBER_VALUE_KIND
    }
}

/// The member id's comparison: exact text.
pub const MEMBER_VALUE_KIND: FieldKind = FieldKind::Text { case_exact: true };

/// A condition on one member's id (`members.value`, exact text).
pub type MemberFilter = Filter<Condition<MemberField>>;

/// A leaf of a condition on a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupLeaf {
    /// A condition on a field of the group.
    Field(Condition<GroupField>),
    /// Some member satisfies the condition (`members.value eq "…"`,
    /// `members[value eq "…"]`, `members pr`).
    AnyMember(MemberFilter),
}

impl From<Condition<GroupField>> for GroupLeaf {
    fn from(c: Condition<GroupField>) -> Self {
        Self::Field(c)
    }
}

/// A condition on a group.
pub type GroupFilter = Filter<GroupLeaf>;

impl GroupFilter {
    /// Some member satisfies `m`.
    #[must_use]
    pub const fn any_member(m: MemberFilter) -> Self {
        Self::Leaf(GroupLeaf::AnyMember(m))
    }
}

impl Leaf for GroupLeaf {
    fn validate(&self) -> Result<(), DomainError> {
        match self {
            Self::Field(c) => c.validate(),
            Self::AnyMember(m) => m.validate(),
        }
    }
}

impl Holds<PersonId> for Condition<MemberField> {
    /// Whether the member `id` satisfies the condition (every member has a
    /// value).
    fn holds(&self, id: &PersonId) -> bool {
        self.holds_with(|MemberField::Value| Some(FilterValue::Text(id.to_string())))
    }
}

impl Holds<(&Group, &[PersonId])> for GroupLeaf {
    /// Whether a group, with its members, satisfies the condition.
    fn holds(&self, (group, members): &(&Group, &[PersonId])) -> bool {
        match self {
            Self::Field(c) => c.holds_with(|f| group_value(group, f)),
            Self::AnyMember(m) => members.iter().any(|id| m.matches(id)),
        }
    }
}

/// A field's value on a group.
#[must_use]
pub fn group_value(g: &Group, field: GroupField) -> Option<FilterValue> {
    match field {
        GroupField::Id => Some(FilterValue::Text(g.id.to_string())),
        GroupField::ExternalId => g.external_id.clone().map(FilterValue::Text),
        GroupField::DisplayName => Some(FilterValue::Text(g.display_name.clone())),
        GroupField::Created => Some(FilterValue::Time(g.created_at)),
        GroupField::LastModified => Some(FilterValue::Time(g.updated_at)),
    }
}

/// What to list: groups of one organization matching `filter`, ordered by
/// `sort` (then by creation time and id), from the 1-based `start_index`, at
/// most `count` of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupQuery {
    /// Condition, or all.
    pub filter: Option<GroupFilter>,
    /// Sort field; creation order when absent.
    pub sort: Option<GroupField>,
    /// Direction of `sort`.
    pub order: SortOrder,
    /// 1-based index of the first group of the page.
    pub start_index: u64,
    /// Page size, at most [`MAX_PAGE_SIZE`]; 0 counts only.
    pub count: u32,
}

impl Default for GroupQuery {
    fn default() -> Self {
        Self {
            filter: None,
            sort: None,
            order: SortOrder::Ascending,
            start_index: 1,
            count: MAX_PAGE_SIZE,
        }
    }
}

/// One page of groups (without their members).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupPage {
    /// Every group matching the filter.
    pub total: u64,
    /// The page, in order.
    pub groups: Vec<Group>,
}

/// Orders groups for `query` (sort field, then creation time and id).
pub fn sort_groups(groups: &mut [Group], query: &GroupQuery) {
    sort_by_field(
        groups,
        query.sort.map(|f| (f.kind(), query.order)),
        |g| query.sort.and_then(|f| group_value(g, f)),
        |g| (g.created_at, g.id.to_string()),
    );
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::filter::CompareOp;
    use crate::group::GroupFields;
    use crate::ids::{GroupId, OrganizationId};

    fn group(name: &str) -> Group {
        Group::new(
            GroupId::new(),
            OrganizationId::new(),
            GroupFields {
                external_id: Some("EXT-1".into()),
                display_name: name.into(),
                package_id: None,
                precedence: 0,
            },
            chrono::Utc::now(),
        )
    }

    #[test]
    fn display_name_compares_case_insensitively_external_id_exactly() {
        let g = group("Engineering");
        let f = |field, op, v: &str| {
            GroupFilter::compare(field, op, FilterValue::Text(v.into())).matches(&(&g, &[][..]))
        };
        assert!(f(GroupField::DisplayName, CompareOp::Eq, "ENGINEERING"));
        assert!(f(GroupField::DisplayName, CompareOp::Sw, "eng"));
        assert!(f(GroupField::ExternalId, CompareOp::Eq, "EXT-1"));
        assert!(!f(GroupField::ExternalId, CompareOp::Eq, "ext-1"));
    }

    #[test]
    fn member_conditions_hold_on_one_member() {
        let g = group("Engineering");
        let (a, b) = (PersonId::new(), PersonId::new());
        let has = |id: PersonId| {
            GroupFilter::any_member(MemberFilter::compare(
                MemberField::Value,
                CompareOp::Eq,
                FilterValue::Text(id.to_string()),
            ))
        };
        assert!(has(a).matches(&(&g, &[a, b][..])));
        assert!(!has(a).matches(&(&g, &[b][..])));
        assert!(
            GroupFilter::any_member(MemberFilter::present(MemberField::Value))
                .matches(&(&g, &[b][..]))
        );
        assert!(
            !GroupFilter::any_member(MemberFilter::present(MemberField::Value))
                .matches(&(&g, &[][..]))
        );
        assert!(GroupFilter::Not(Box::new(has(a))).matches(&(&g, &[][..])));
    }
}
