//! Groups in memory, with the database's rules: unique display names,
//! members who are provisioned people of the organization, the member limit,
//! versions that move only on a change.

use std::collections::BTreeSet;

use super::*;
use crate::event::{EventType, EventView, NewEvent};
use crate::group::{Group, Member, MembersChange, PersonGroup, MAX_MEMBERS};
use crate::group_query::{sort_groups, GroupPage, GroupQuery};
use crate::ids::GroupId;
use crate::ports::{GroupChange, GroupRepository, GroupWrite};

fn members(s: &State, group: GroupId) -> Vec<PersonId> {
    s.memberships
        .range((group, PersonId::from(uuid::Uuid::nil()))..)
        .take_while(|(g, _)| *g == group)
        .map(|(_, p)| *p)
        .collect()
}

fn not_people(s: &State, organization: OrganizationId, ids: &[PersonId]) -> Vec<PersonId> {
    ids.iter()
        .filter(|id| {
            !s.people
                .iter()
                .any(|p| p.id == **id && p.organization_id == organization && p.is_provisioned())
        })
        .copied()
        .collect()
}

fn name_taken(s: &State, group: &Group) -> bool {
    s.groups.iter().any(|g| {
        g.id != group.id
            && g.organization_id == group.organization_id
            && crate::text::same_identifier(&g.display_name, &group.display_name)
    })
}

fn check_package(s: &State, group: &Group) -> StoreResult<()> {
    match group.package_id {
        Some(id)
            if !s
                .packages
                .iter()
                .any(|p| p.id == id && p.organization_id == group.organization_id) =>
        {
            Err(StoreError::MissingReference {
                entity: "group",
                detail: "packageId".into(),
            })
        }
        _ => Ok(()),
    }
}

/// Removes `person` from every group of the organization (offboarding),
/// increasing each group's version.
pub(super) fn leave_every_group(
    s: &mut State,
    organization: OrganizationId,
    person: PersonId,
    at: DateTime<Utc>,
) -> Vec<GroupId> {
    let left: Vec<GroupId> = s
        .memberships
        .iter()
        .filter(|(_, p)| *p == person)
        .map(|(g, _)| *g)
        .collect();
    for g in &left {
        s.memberships.remove(&(*g, person));
    }
    for g in s
        .groups
        .iter_mut()
        .filter(|g| g.organization_id == organization && left.contains(&g.id))
    {
        g.version += 1;
        g.updated_at = at;
    }
    left
}

/// A member's userName changed: each group showing them gets a new version.
pub(super) fn member_renamed(
    s: &mut State,
    organization: OrganizationId,
    person: PersonId,
    at: DateTime<Utc>,
) {
    let theirs: Vec<GroupId> = s
        .memberships
        .iter()
        .filter(|(_, p)| *p == person)
        .map(|(g, _)| *g)
        .collect();
    for g in s
        .groups
        .iter_mut()
        .filter(|g| g.organization_id == organization && theirs.contains(&g.id))
    {
        g.version += 1;
        g.updated_at = at;
    }
}

impl GroupRepository for InMemoryStore {
    fn find_group(&self, organization: OrganizationId, id: GroupId) -> StoreResult<Option<Group>> {
        Ok(self
            .state()
            .groups
            .iter()
            .find(|g| g.id == id && g.organization_id == organization)
            .cloned())
    }

    fn list_groups(
        &self,
        organization: OrganizationId,
        query: &GroupQuery,
    ) -> StoreResult<GroupPage> {
        let s = self.state();
        let mut groups: Vec<Group> = s
            .groups
            .iter()
            .filter(|g| g.organization_id == organization)
            .filter(|g| {
                query
                    .filter
                    .as_ref()
                    .is_none_or(|f| f.matches(&(*g, members(&s, g.id).as_slice())))
            })
            .cloned()
            .collect();
        sort_groups(&mut groups, query);
        let total = groups.len() as u64;
        let skip = usize::try_from(query.start_index.saturating_sub(1)).unwrap_or(usize::MAX);
        let groups = groups
            .into_iter()
            .skip(skip)
            .take(query.count as usize)
            .collect();
        Ok(GroupPage { total, groups })
    }

    fn group_members(
        &self,
        organization: OrganizationId,
        groups: &[GroupId],
    ) -> StoreResult<Vec<(GroupId, Member)>> {
        let s = self.state();
        let mut out = Vec::new();
        for g in groups {
            if !s
                .groups
                .iter()
                .any(|x| x.id == *g && x.organization_id == organization)
            {
                continue;
            }
            for p in members(&s, *g) {
                if let Some(person) = s.people.iter().find(|x| x.id == p) {
                    out.push((
                        *g,
                        Member {
                            person_id: p,
                            user_name: person.user_name.clone(),
                        },
                    ));
                }
            }
        }
        Ok(out)
    }

    fn member_counts(
        &self,
        organization: OrganizationId,
        groups: &[GroupId],
    ) -> StoreResult<Vec<(GroupId, u64)>> {
        let s = self.state();
        Ok(groups
            .iter()
            .filter(|g| {
                s.groups
                    .iter()
                    .any(|x| x.id == **g && x.organization_id == organization)
            })
            .map(|g| (*g, members(&s, *g).len() as u64))
            .collect())
    }

    fn insert_group(
        &self,
        group: &Group,
        new_members: &BTreeSet<PersonId>,
    ) -> StoreResult<GroupWrite> {
        let mut s = self.state();
        check_package(&s, group)?;
        if name_taken(&s, group) {
            return Err(StoreError::Duplicate {
                entity: "group",
                detail: "displayName".into(),
            });
        }
        let joining: Vec<PersonId> = new_members.iter().copied().collect();
        let missing = not_people(&s, group.organization_id, &joining);
        if !missing.is_empty() {
            return Ok(GroupWrite::NotPeople(missing));
        }
        if joining.len() as u64 > MAX_MEMBERS {
            return Ok(GroupWrite::TooManyMembers);
        }
        s.groups.push(group.clone());
        let (org, actor, at) = (group.organization_id, self.actor(), group.updated_at);
        s.record(
            org,
            actor,
            at,
            NewEvent::created(EventType::GroupCreated, group),
        );
        for p in joining {
            s.memberships.insert((group.id, p));
            s.record(org, actor, at, NewEvent::membership(group.id, p, true));
        }
        Ok(GroupWrite::Done(group.clone()))
    }

    fn update_group(
        &self,
        organization: OrganizationId,
        id: GroupId,
        change: &GroupChange,
    ) -> StoreResult<GroupWrite> {
        let mut s = self.state();
        let Some(current) = s
            .groups
            .iter()
            .find(|g| g.id == id && g.organization_id == organization)
            .cloned()
        else {
            return Ok(GroupWrite::Missing);
        };
        let mut next = match change.fields_on(&current) {
            Ok(next) => next,
            Err(current) => return Ok(GroupWrite::Stale { current }),
        };
        check_package(&s, &next)?;
        if name_taken(&s, &next) {
            return Err(StoreError::Duplicate {
                entity: "group",
                detail: "displayName".into(),
            });
        }
        let missing = not_people(&s, organization, &change.members.joining());
        if !missing.is_empty() {
            return Ok(GroupWrite::NotPeople(missing));
        }
        let before: BTreeSet<PersonId> = members(&s, id).into_iter().collect();
        let after: BTreeSet<PersonId> = match &change.members {
            MembersChange::Keep => before.clone(),
            MembersChange::Replace(set) => set.clone(),
            MembersChange::Delta { add, remove } => before
                .iter()
                .filter(|p| !remove.contains(p))
                .chain(add.iter())
                .copied()
                .collect(),
        };
        if after.len() as u64 > MAX_MEMBERS {
            return Ok(GroupWrite::TooManyMembers);
        }
        if next.fields() == current.fields() && after == before {
            return Ok(GroupWrite::Done(current));
        }
        next.version = current.version + 1;
        next.updated_at = change.at.max(current.updated_at);
        for p in &before {
            s.memberships.remove(&(id, *p));
        }
        for p in &after {
            s.memberships.insert((id, *p));
        }
        if let Some(slot) = s.groups.iter_mut().find(|g| g.id == id) {
            *slot = next.clone();
        }
        let (actor, at) = (self.actor(), next.updated_at);
        if let Some(event) = NewEvent::updated(EventType::GroupUpdated, &current, &next) {
            s.record(organization, actor, at, event);
        }
        for p in after.difference(&before) {
            s.record(organization, actor, at, NewEvent::membership(id, *p, true));
        }
        for p in before.difference(&after) {
            s.record(organization, actor, at, NewEvent::membership(id, *p, false));
        }
        Ok(GroupWrite::Done(next))
    }

    fn delete_group(
        &self,
        organization: OrganizationId,
        id: GroupId,
        expected_version: Option<i64>,
    ) -> StoreResult<GroupWrite> {
        let mut s = self.state();
        let Some(pos) = s
            .groups
            .iter()
            .position(|g| g.id == id && g.organization_id == organization)
        else {
            return Ok(GroupWrite::Missing);
        };
        let current = s.groups[pos].clone();
        if expected_version.is_some_and(|v| v != current.version) {
            return Ok(GroupWrite::Stale {
                current: current.version,
            });
        }
        s.groups.remove(pos);
        s.memberships.retain(|(g, _)| *g != id);
        let event = NewEvent::bare(EventType::GroupDeleted, current.subject());
        s.record(organization, self.actor(), chrono::Utc::now(), event);
        Ok(GroupWrite::Done(current))
    }

    fn groups_of_people(
        &self,
        organization: OrganizationId,
        people: &[PersonId],
    ) -> StoreResult<Vec<(PersonId, PersonGroup)>> {
        let s = self.state();
        Ok(s.memberships
            .iter()
            .filter(|(_, p)| people.contains(p))
            .filter_map(|(g, p)| {
                s.groups
                    .iter()
                    .find(|x| x.id == *g && x.organization_id == organization)
                    .map(|x| {
                        (
                            *p,
                            PersonGroup {
                                group_id: x.id,
                                display_name: x.display_name.clone(),
                                package_id: x.package_id,
                                precedence: x.precedence,
                            },
                        )
                    })
            })
            .collect())
    }
}
