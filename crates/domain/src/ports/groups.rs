//! Port: Groups and their members.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use crate::error::StoreResult;
use crate::group::{Group, GroupFieldsChange, Member, MembersChange, PersonGroup};
use crate::group_query::{GroupPage, GroupQuery};
use crate::ids::{GroupId, OrganizationId, PersonId};

/// What a write of a group found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupWrite {
    /// Written (or, for a delete, deleted); the group as it is now (as it was
    /// for a delete).
    Done(Group),
    /// The group has another version than the one expected; nothing written.
    Stale {
        /// The stored version.
        current: i64,
    },
    /// No such group in the organization.
    Missing,
    /// These people would join but are not provisioned people of the
    /// organization; nothing written.
    NotPeople(Vec<PersonId>),
    /// The group would hold more than [`crate::group::MAX_MEMBERS`]; nothing written.
    TooManyMembers,
}

/// A change of a stored group: its fields, its members, or both, in one
/// transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupChange {
    /// The fields it sets (the others keep what is stored).
    pub fields: GroupFieldsChange,
    /// The change of members.
    pub members: MembersChange,
    /// Only if the stored version is this one.
    pub expected_version: Option<i64>,
    /// When.
    pub at: DateTime<Utc>,
}

impl GroupChange {
    /// `current` with this change's fields set (the others as stored), or
    /// the stored version when it is not the expected one (the store then
    /// answers [`GroupWrite::Stale`]): the rule every store applies before
    /// writing.
    ///
    /// # Errors
    /// The stored version, when stale.
    pub fn fields_on(&self, current: &Group) -> Result<Group, i64> {
        if self.expected_version.is_some_and(|v| v != current.version) {
            return Err(current.version);
        }
        Ok(if self.fields.is_empty() {
            current.clone()
        } else {
            current.with_fields(self.fields.apply(&current.fields()))
        })
    }
}

/// Groups. Members are stored one row per membership, indexed by group and
/// by person: no method reads a group's members unless it returns them. The
/// writes are decided by [`crate::group::membership`] over the facts each
/// store reads in its transaction; the store writes what was decided.
pub trait GroupRepository: Send + Sync {
    /// A group of the organization.
    ///
    /// # Errors
    /// Backend failures.
    fn find_group(&self, organization: OrganizationId, id: GroupId) -> StoreResult<Option<Group>>;

    /// One page of the organization's groups matching the query (without
    /// members), and how many match in all.
    ///
    /// # Errors
    /// Backend failures.
    fn list_groups(
        &self,
        organization: OrganizationId,
        query: &GroupQuery,
    ) -> StoreResult<GroupPage>;

    /// The members of these groups of the organization, by group, each
    /// group's members ordered by person id.
    ///
    /// # Errors
    /// Backend failures.
    fn group_members(
        &self,
        organization: OrganizationId,
        groups: &[GroupId],
    ) -> StoreResult<Vec<(GroupId, Member)>>;

    /// How many members each of these groups of the organization has (kept
    /// by the store, not counted).
    ///
    /// # Errors
    /// Backend failures.
    fn member_counts(
        &self,
        organization: OrganizationId,
        groups: &[GroupId],
    ) -> StoreResult<Vec<(GroupId, u64)>>;

    /// Inserts a new group with these members, all or nothing.
    ///
    /// # Errors
    /// [`crate::StoreError::Duplicate`] when another group of the organization
    /// has the display name (as identifiers compare), enforced under
    /// concurrent inserts; `MissingReference` for a package outside the
    /// organization; backend failures.
    fn insert_group(&self, group: &Group, members: &BTreeSet<PersonId>) -> StoreResult<GroupWrite>;

    /// Changes a group in one transaction. Adding a member already present
    /// and removing one absent change nothing; the version increases (and
    /// the last change time is `at`) only when something changed. Concurrent
    /// changes of one group's members all apply.
    ///
    /// # Errors
    /// As [`GroupRepository::insert_group`].
    fn update_group(
        &self,
        organization: OrganizationId,
        id: GroupId,
        change: &GroupChange,
    ) -> StoreResult<GroupWrite>;

    /// Deletes a group and its memberships (its people stay).
    ///
    /// # Errors
    /// Backend failures.
    fn delete_group(
        &self,
        organization: OrganizationId,
        id: GroupId,
        expected_version: Option<i64>,
    ) -> StoreResult<GroupWrite>;

    /// The groups each of these people of the organization is in.
    ///
    /// # Errors
    /// Backend failures.
    fn groups_of_people(
        &self,
        organization: OrganizationId,
        people: &[PersonId],
    ) -> StoreResult<Vec<(PersonId, PersonGroup)>>;
}
