//! Groups in memory: the database's constraints (unique display names, a
//! package of the organization), the facts a write reads, and what the
//! domain decided (`crate::group::membership`) stored.

use std::collections::BTreeSet;

use super::*;
use crate::group::membership::{
    decide_create, decide_delete, decide_update, LeavingEveryGroup, MembersFacts,
};
use crate::group::{Group, Member, PersonGroup};
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

/// The groups of the organization `person` is in, in id order.
pub(super) fn groups_of(s: &State, organization: OrganizationId, person: PersonId) -> Vec<GroupId> {
    s.memberships
        .iter()
        .filter(|(g, p)| {
            *p == person
                && s.groups
                    .iter()
                    .any(|x| x.id == *g && x.organization_id == organization)
        })
        .map(|(g, _)| *g)
        .collect()
}

/// Gives each of `groups` of the organization a new version, last changed `at`.
pub(super) fn touch_groups(
    s: &mut State,
    organization: OrganizationId,
    groups: &[GroupId],
    at: DateTime<Utc>,
) {
    for g in s
        .groups
        .iter_mut()
        .filter(|g| g.organization_id == organization && groups.contains(&g.id))
    {
        g.version += 1;
        g.updated_at = at;
    }
}

/// Stores a person leaving every group, as the domain decided it (the
/// events are the caller's to record).
pub(super) fn leave_groups(
    s: &mut State,
    organization: OrganizationId,
    leaving: &LeavingEveryGroup,
) {
    for g in &leaving.groups {
        s.memberships.remove(&(*g, leaving.person));
    }
    touch_groups(s, organization, &leaving.groups, leaving.at);
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
        // The database's constraints answer first.
        check_package(&s, group)?;
        if name_taken(&s, group) {
            return Err(StoreError::Duplicate {
                entity: "group",
                detail: "displayName".into(),
            });
        }
        let joining: Vec<PersonId> = new_members.iter().copied().collect();
        let missing = not_people(&s, group.organization_id, &joining);
        let created = match decide_create(group, new_members, missing) {
            Ok(created) => created,
            Err(refusal) => return Ok(refusal.into()),
        };
        s.groups.push(group.clone());
        for p in &created.joining {
            s.memberships.insert((group.id, *p));
        }
        let (org, actor, at) = (group.organization_id, self.actor(), group.updated_at);
        for event in created.events {
            s.record(org, actor.clone(), at, event);
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
        let members_now: BTreeSet<PersonId> = members(&s, id).into_iter().collect();
        let named = change.members.named();
        let facts = MembersFacts {
            not_people: not_people(&s, organization, &change.members.joining()),
            member_count: members_now.len() as u64,
            named_members: named
                .iter()
                .filter(|p| members_now.contains(p))
                .copied()
                .collect(),
            unnamed_members: if change.members.replaces() {
                members_now
                    .iter()
                    .filter(|p| named.binary_search(p).is_err())
                    .copied()
                    .collect()
            } else {
                BTreeSet::new()
            },
        };
        let update = match decide_update(&current, change, &facts) {
            Ok(update) => update,
            Err(refusal) => return Ok(refusal.into()),
        };
        if update.fields_changed {
            // The database's constraints on the fields answer first.
            check_package(&s, &update.fields)?;
            if name_taken(&s, &update.fields) {
                return Err(StoreError::Duplicate {
                    entity: "group",
                    detail: "displayName".into(),
                });
            }
        }
        let plan = match update.outcome {
            Ok(plan) => plan,
            Err(refusal) => return Ok(refusal.into()),
        };
        let Some(written) = &plan.written else {
            return Ok(plan.answer(&current));
        };
        for p in &plan.leaving {
            s.memberships.remove(&(id, *p));
        }
        for p in &plan.joining {
            s.memberships.insert((id, *p));
        }
        if let Some(slot) = s.groups.iter_mut().find(|g| g.id == id) {
            *slot = written.clone();
        }
        let (actor, at) = (self.actor(), written.updated_at);
        for event in &plan.events {
            s.record(organization, actor.clone(), at, event.clone());
        }
        Ok(plan.answer(&current))
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
        let events = match decide_delete(&current, expected_version) {
            Ok(events) => events,
            Err(refusal) => return Ok(refusal.into()),
        };
        s.groups.remove(pos);
        s.memberships.retain(|(g, _)| *g != id);
        let (actor, at) = (self.actor(), chrono::Utc::now());
        for event in events {
            s.record(organization, actor.clone(), at, event);
        }
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
