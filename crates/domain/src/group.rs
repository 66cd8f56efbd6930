//! Groups of people, as identity providers push them (SCIM Groups): a name,
//! members, and optionally the equipment package everyone in the group
//! receives. A person's effective package is their own package, else the
//! package of their group of lowest precedence ([`effective_package`]).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use crate::error::DomainError;
use crate::ids::{GroupId, OrganizationId, PackageId, PersonId};
use crate::text::{check_identifier, check_length, check_optional_length, SHORT_TEXT_MAX};

pub mod membership;

/// Most members a group holds.
pub const MAX_MEMBERS: u64 = 100_000;

/// A group of an organization. Its members are stored beside it (a group of
/// 100,000 members is never read whole to change or filter it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Identifier (the SCIM `id`).
    pub id: GroupId,
    /// Owning organization.
    pub organization_id: OrganizationId,
    /// The identity provider's own id for the group.
    pub external_id: Option<String>,
    /// Name; unique in the organization, case-insensitively (as identifiers compare).
    pub display_name: String,
    /// The package members receive unless they have their own.
    pub package_id: Option<PackageId>,
    /// Among a person's groups with a package, the lowest precedence wins.
    pub precedence: i32,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// Last change of the group or its members.
    pub updated_at: DateTime<Utc>,
    /// Increases on every change of the group or its members; the SCIM `meta.version`.
    pub version: i64,
}

/// The fields of a group a client sets (everything but id, organization,
/// times and version).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupFields {
    /// The identity provider's id.
    pub external_id: Option<String>,
    /// Name.
    pub display_name: String,
    /// Package of the members.
    pub package_id: Option<PackageId>,
    /// Precedence among a person's groups.
    pub precedence: i32,
}

impl GroupFields {
    /// Checks the rules of a group's fields: a display name that is not
    /// blank, texts within their length, no control or invisible characters
    /// in the display name and the external id.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the field.
    pub fn validate(&self) -> Result<(), DomainError> {
        validate_display_name(&self.display_name)?;
        validate_external_id(self.external_id.as_deref())
    }
}

fn validate_display_name(name: &str) -> Result<(), DomainError> {
    if name.trim().is_empty() {
        return Err(DomainError::invalid(
            "displayName",
            "displayName is required and must not be blank",
        ));
    }
    check_length("displayName", name, SHORT_TEXT_MAX)?;
    check_identifier("displayName", name)
}

fn validate_external_id(id: Option<&str>) -> Result<(), DomainError> {
    check_optional_length("externalId", id, SHORT_TEXT_MAX)?;
    if let Some(e) = id {
        check_identifier("externalId", e)?;
    }
    Ok(())
}

/// A change of some of a group's fields: each `Some` sets that field, each
/// `None` keeps what is stored. A SCIM PATCH that renames a group changes
/// its name only, so it can be applied to whatever version is stored when
/// it is written (a concurrent change of another field, or of the members,
/// is kept, and nothing has to be tried again); a PUT sets every field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupFieldsChange {
    /// The identity provider's id (`Some(None)` removes it).
    pub external_id: Option<Option<String>>,
    /// Name.
    pub display_name: Option<String>,
    /// Package of the members (`Some(None)` removes it).
    pub package_id: Option<Option<PackageId>>,
    /// Precedence among a person's groups.
    pub precedence: Option<i32>,
}

impl From<GroupFields> for GroupFieldsChange {
    /// Every field set (a replace).
    fn from(f: GroupFields) -> Self {
        Self {
            external_id: Some(f.external_id),
            display_name: Some(f.display_name),
            package_id: Some(f.package_id),
            precedence: Some(f.precedence),
        }
    }
}

impl GroupFieldsChange {
    /// The fields in which `after` differs from `before`.
    #[must_use]
    pub fn between(before: &GroupFields, after: &GroupFields) -> Self {
        Self {
            external_id: (after.external_id != before.external_id)
                .then(|| after.external_id.clone()),
            display_name: (after.display_name != before.display_name)
                .then(|| after.display_name.clone()),
            package_id: (after.package_id != before.package_id).then_some(after.package_id),
            precedence: (after.precedence != before.precedence).then_some(after.precedence),
        }
    }

    /// Whether no field is set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// `fields` with this change made.
    #[must_use]
    pub fn apply(&self, fields: &GroupFields) -> GroupFields {
        GroupFields {
            external_id: self
                .external_id
                .clone()
                .unwrap_or_else(|| fields.external_id.clone()),
            display_name: self
                .display_name
                .clone()
                .unwrap_or_else(|| fields.display_name.clone()),
            package_id: self.package_id.unwrap_or(fields.package_id),
            precedence: self.precedence.unwrap_or(fields.precedence),
        }
    }

    /// Checks the rules of the fields it sets (each field's rules stand
    /// alone, so stored fields need no check).
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the field.
    pub fn validate(&self) -> Result<(), DomainError> {
        if let Some(name) = &self.display_name {
            validate_display_name(name)?;
        }
        if let Some(id) = &self.external_id {
            validate_external_id(id.as_deref())?;
        }
        Ok(())
    }
}

impl Group {
    /// The client-set fields.
    #[must_use]
    pub fn fields(&self) -> GroupFields {
        GroupFields {
            external_id: self.external_id.clone(),
            display_name: self.display_name.clone(),
            package_id: self.package_id,
            precedence: self.precedence,
        }
    }

    /// A new group (version 1, created now) with `fields`.
    #[must_use]
    pub fn new(
        id: GroupId,
        organization_id: OrganizationId,
        fields: GroupFields,
        now: DateTime<Utc>,
    ) -> Self {
        Self {
            id,
            organization_id,
            external_id: fields.external_id,
            display_name: fields.display_name,
            package_id: fields.package_id,
            precedence: fields.precedence,
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    /// This group with `fields` set.
    #[must_use]
    pub fn with_fields(&self, fields: GroupFields) -> Self {
        Self {
            external_id: fields.external_id,
            display_name: fields.display_name,
            package_id: fields.package_id,
            precedence: fields.precedence,
            ..self.clone()
        }
    }
}

/// Most members one list page of groups shows: a page whose groups hold more
/// ends before the group that would pass it (at least one group is shown),
/// and the client asks for the next page from there, as RFC 7644 §3.4.2.4
/// allows (`itemsPerPage` below `count`).
pub const MAX_MEMBERS_PER_PAGE: u64 = MAX_MEMBERS;

/// How many groups of a page, in order, to show with their members, given
/// each group's member count: the longest prefix within
/// [`MAX_MEMBERS_PER_PAGE`] members, and at least one group.
#[must_use]
pub fn groups_within_member_limit(member_counts: &[u64]) -> usize {
    let mut total: u64 = 0;
    for (i, n) in member_counts.iter().enumerate() {
        total = total.saturating_add(*n);
        if total > MAX_MEMBERS_PER_PAGE {
            return i.max(1);
        }
    }
    member_counts.len()
}

/// A member of a group as a group shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The person.
    pub person_id: PersonId,
    /// Their userName (the SCIM member's `display`).
    pub user_name: String,
}

/// A group of a person, with what the effective package needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonGroup {
    /// The group.
    pub group_id: GroupId,
    /// Its name.
    pub display_name: String,
    /// Its package.
    pub package_id: Option<PackageId>,
    /// Its precedence.
    pub precedence: i32,
}

/// A person's effective package: their own when set; otherwise the package
/// of their group of lowest precedence among those with a package (ties: the
/// display name, then the id, both in byte order); otherwise none.
#[must_use]
pub fn effective_package(own: Option<PackageId>, groups: &[PersonGroup]) -> Option<PackageId> {
    own.or_else(|| {
        groups
            .iter()
            .filter_map(|g| g.package_id.map(|p| (g, p)))
            .min_by(|(a, _), (b, _)| {
                a.precedence
                    .cmp(&b.precedence)
                    .then_with(|| a.display_name.cmp(&b.display_name))
                    .then_with(|| a.group_id.to_string().cmp(&b.group_id.to_string()))
            })
            .map(|(_, p)| p)
    })
}

/// How a write changes a group's members. Operations compose in the order
/// they are applied, so a PATCH of several operations becomes one change.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum MembersChange {
    /// Members stay as they are.
    #[default]
    Keep,
    /// The members become exactly these.
    Replace(BTreeSet<PersonId>),
    /// These are added (present ones stay) and these removed (absent ones are
    /// no change). The two sets are disjoint.
    Delta {
        /// Added.
        add: BTreeSet<PersonId>,
        /// Removed.
        remove: BTreeSet<PersonId>,
    },
}

impl MembersChange {
    /// Adds `ids` after what this change already does.
    pub fn add(&mut self, ids: impl IntoIterator<Item = PersonId>) {
        match self {
            Self::Replace(set) => set.extend(ids),
            Self::Keep => {
                *self = Self::Delta {
                    add: ids.into_iter().collect(),
                    remove: BTreeSet::new(),
                };
            }
            Self::Delta { add, remove } => {
                for id in ids {
                    remove.remove(&id);
                    add.insert(id);
                }
            }
        }
    }

    /// Removes `ids` after what this change already does.
    pub fn remove(&mut self, ids: impl IntoIterator<Item = PersonId>) {
        match self {
            Self::Replace(set) => {
                for id in ids {
                    set.remove(&id);
                }
            }
            Self::Keep => {
                *self = Self::Delta {
                    add: BTreeSet::new(),
                    remove: ids.into_iter().collect(),
                };
            }
            Self::Delta { add, remove } => {
                for id in ids {
                    add.remove(&id);
                    remove.insert(id);
                }
            }
        }
    }

    /// Replaces every member with `ids`.
    pub fn replace(&mut self, ids: impl IntoIterator<Item = PersonId>) {
        *self = Self::Replace(ids.into_iter().collect());
    }

    /// The people this change makes members (they must be provisioned people
    /// of the group's organization).
    #[must_use]
    pub fn joining(&self) -> Vec<PersonId> {
        match self {
            Self::Keep => Vec::new(),
            Self::Replace(set) | Self::Delta { add: set, .. } => set.iter().copied().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn group(name: &str, precedence: i32, package: Option<PackageId>) -> PersonGroup {
        PersonGroup {
            group_id: GroupId::new(),
            display_name: name.into(),
            package_id: package,
            precedence,
        }
    }

    #[test]
    fn own_package_wins_over_every_group() {
        let own = PackageId::new();
        let g = [group("Engineering", -5, Some(PackageId::new()))];
        assert_eq!(effective_package(Some(own), &g), Some(own));
    }

    #[test]
    fn lowest_precedence_with_a_package_wins_then_name_then_id() {
        let (eng, sales) = (PackageId::new(), PackageId::new());
        let groups = [
            group("Everyone", -10, None),
            group("Sales", 2, Some(sales)),
            group("Engineering", 1, Some(eng)),
        ];
        assert_eq!(effective_package(None, &groups), Some(eng));
        // Same precedence: the display name in byte order decides.
        let groups = [group("b", 1, Some(sales)), group("B", 1, Some(eng))];
        assert_eq!(effective_package(None, &groups), Some(eng));
        // Same name and precedence: the id decides.
        let mut a = group("x", 0, Some(eng));
        let mut b = group("x", 0, Some(sales));
        a.group_id = GroupId::parse("00000000-0000-4000-8000-000000000002").unwrap();
        b.group_id = GroupId::parse("00000000-0000-4000-8000-000000000001").unwrap();
        assert_eq!(effective_package(None, &[a, b]), Some(sales));
        assert_eq!(effective_package(None, &[group("none", 0, None)]), None);
        assert_eq!(effective_package(None, &[]), None);
    }

    #[test]
    fn a_page_of_groups_stops_before_the_member_limit() {
        let max = MAX_MEMBERS_PER_PAGE;
        assert_eq!(groups_within_member_limit(&[]), 0);
        assert_eq!(groups_within_member_limit(&[3, 4, 5]), 3);
        assert_eq!(groups_within_member_limit(&[max - 1, 1, 1]), 2);
        assert_eq!(groups_within_member_limit(&[10, max, 1]), 1);
        // One group above the limit is still shown, alone.
        assert_eq!(groups_within_member_limit(&[max + 1, 1]), 1);
    }

    #[test]
    fn member_changes_compose_in_order() {
        let (a, b, c) = (PersonId::new(), PersonId::new(), PersonId::new());
        let mut m = MembersChange::Keep;
        assert_eq!(m, MembersChange::Keep);
        m.add([a, b]);
        m.remove([b, c]);
        assert_eq!(
            m,
            MembersChange::Delta {
                add: [a].into(),
                remove: [b, c].into()
            }
        );
        m.add([c]);
        assert_eq!(m.joining().len(), 2);
        m.replace([b]);
        m.add([a]);
        m.remove([b]);
        assert_eq!(m, MembersChange::Replace([a].into()));
        let mut only_remove = MembersChange::Keep;
        only_remove.remove([a]);
        assert!(only_remove.joining().is_empty());
        assert_ne!(only_remove, MembersChange::Keep);
    }

    #[test]
    fn a_group_needs_a_name_without_invisible_characters() {
        let fields = |name: &str| GroupFields {
            external_id: None,
            display_name: name.into(),
            package_id: None,
            precedence: 0,
        };
        assert!(fields("Engineering").validate().is_ok());
        assert!(fields("  ").validate().is_err());
        assert!(fields("Eng\u{200B}").validate().is_err());
        assert!(fields(&"x".repeat(SHORT_TEXT_MAX + 1)).validate().is_err());
        let mut f = fields("Engineering");
        f.external_id = Some("a\u{0}b".into());
        assert!(f.validate().is_err());
    }
}

#[cfg(test)]
mod fields_change_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn fields() -> GroupFields {
        GroupFields {
            external_id: Some("00g1".into()),
            display_name: "Engineering".into(),
            package_id: None,
            precedence: 5,
        }
    }

    #[test]
    fn a_change_sets_only_its_fields_on_whatever_is_stored() {
        let mut renamed = fields();
        renamed.display_name = "Platform".into();
        let change = GroupFieldsChange::between(&fields(), &renamed);
        assert_eq!(
            change,
            GroupFieldsChange {
                display_name: Some("Platform".into()),
                ..GroupFieldsChange::default()
            }
        );
        // Stored meanwhile: another precedence, another externalId.
        let stored = GroupFields {
            external_id: None,
            precedence: 9,
            ..fields()
        };
        let after = change.apply(&stored);
        assert_eq!(after.display_name, "Platform");
        assert_eq!((after.external_id, after.precedence), (None, 9));
        assert!(GroupFieldsChange::between(&fields(), &fields()).is_empty());
        // A replace sets every field.
        assert_eq!(
            GroupFieldsChange::from(renamed.clone()).apply(&stored),
            renamed
        );
    }

    #[test]
    fn only_the_fields_a_change_sets_are_checked() {
        assert!(GroupFieldsChange::default().validate().is_ok());
        let blank = GroupFieldsChange {
            display_name: Some("  ".into()),
            ..GroupFieldsChange::default()
        };
        assert!(blank.validate().is_err());
        let control = GroupFieldsChange {
            external_id: Some(Some("a\u{0}b".into())),
            ..GroupFieldsChange::default()
        };
        assert!(control.validate().is_err());
    }
}
