//! Where a group's writes and its members' changes are decided: who joins
//! and who leaves, the member limit, when the version moves, and the events.
//!
//! A store writes a group in one write transaction, as the import's rules
//! against stored rows are applied (`crate::import::stored`): it reads the
//! facts a write needs (the group as stored, locked; its member count; which
//! of the people the write names are provisioned people of the organization
//! and which are members), a function here decides without I/O, and the
//! store writes what was decided (or answers the refusal, writing nothing).
//! No decision needs a group's whole member list: a store reads only the
//! memberships of the people a write names (and, for a replace, the members
//! it does not name, who leave).
//!
//! - a group's create: [`decide_create`];
//! - a group's change of fields and members: [`decide_update`] over
//!   [`MembersFacts`] (the facts to read: [`MembersChange::named`]);
//! - a group's delete: [`decide_delete`];
//! - a person leaving every group (offboarding, an import storing them as
//!   no longer provisioned: [`leaving_every_group`]): [`LeavingEveryGroup`];
//! - a member's userName changing (groups show it): [`rename_touches_groups`].

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use crate::event::{EventType, EventView, NewEvent};
use crate::group::{Group, MembersChange, MAX_MEMBERS};
use crate::ids::{GroupId, PersonId};
use crate::person::Person;
use crate::ports::{GroupChange, GroupWrite};

impl MembersChange {
    /// The people this change names (joining or leaving), in id order: the
    /// store reads which of them are members ([`MembersFacts::named_members`]).
    #[must_use]
    pub fn named(&self) -> Vec<PersonId> {
        match self {
            Self::Keep => Vec::new(),
            Self::Replace(set) => set.iter().copied().collect(),
            Self::Delta { add, remove } => add.union(remove).copied().collect(),
        }
    }

    /// Whether the members the change does not name leave (a replace): the
    /// store then reads them ([`MembersFacts::unnamed_members`]).
    #[must_use]
    pub fn replaces(&self) -> bool {
        matches!(self, Self::Replace(_))
    }
}

/// Why a group write is refused: the store writes nothing of it and
/// answers the matching [`GroupWrite`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The group has another version than the one expected.
    Stale {
        /// The stored version.
        current: i64,
    },
    /// These people would join but are not provisioned people of the
    /// organization.
    NotPeople(Vec<PersonId>),
    /// The group would hold more than [`MAX_MEMBERS`].
    TooManyMembers,
}

impl From<Refusal> for GroupWrite {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Stale { current } => Self::Stale { current },
            Refusal::NotPeople(people) => Self::NotPeople(people),
            Refusal::TooManyMembers => Self::TooManyMembers,
        }
    }
}

/// What a store reads about the members of a stored group (locked) before
/// a change ([`decide_update`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MembersFacts {
    /// Of the people who would join ([`MembersChange::joining`]), those who
    /// are not provisioned (ACTIVE) people of the organization, in id order.
    pub not_people: Vec<PersonId>,
    /// The group's member count (kept by the store, not counted).
    pub member_count: u64,
    /// Of the people the change names ([`MembersChange::named`]), those who
    /// are members now.
    pub named_members: BTreeSet<PersonId>,
    /// A replace only ([`MembersChange::replaces`]): the members the change
    /// does not name (they leave).
    pub unnamed_members: BTreeSet<PersonId>,
}

/// A group's create, as decided by [`decide_create`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupCreate {
    /// The members, in id order.
    pub joining: Vec<PersonId>,
    /// The member count the store keeps.
    pub member_count: u64,
    /// The events: the group's creation, then one per member.
    pub events: Vec<NewEvent>,
}

/// Decides the create of `group` with `members`, of whom `not_people` are
/// not provisioned people of the organization (read by the store).
///
/// A store's own constraints on the group's row (a displayName taken, a
/// package of another organization) answer before this refusal: the store
/// writes the row first and rolls back on a refusal.
///
/// # Errors
/// [`Refusal::NotPeople`], then [`Refusal::TooManyMembers`] (more than
/// [`MAX_MEMBERS`]).
pub fn decide_create(
    group: &Group,
    members: &BTreeSet<PersonId>,
    not_people: Vec<PersonId>,
) -> Result<GroupCreate, Refusal> {
    if !not_people.is_empty() {
        return Err(Refusal::NotPeople(not_people));
    }
    if members.len() as u64 > MAX_MEMBERS {
        return Err(Refusal::TooManyMembers);
    }
    let joining: Vec<PersonId> = members.iter().copied().collect();
    let mut events = vec![NewEvent::created(EventType::GroupCreated, group)];
    events.extend(
        joining
            .iter()
            .map(|p| NewEvent::membership(group.id, *p, true)),
    );
    Ok(GroupCreate {
        member_count: joining.len() as u64,
        joining,
        events,
    })
}

/// A change of a stored group, as decided by [`decide_update`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupUpdate {
    /// The group with the change's fields set (version and time as stored).
    pub fields: Group,
    /// Whether the fields differ from the stored ones. A store writes them
    /// first: its own constraints on them (a displayName taken, a package of
    /// another organization) answer before a refusal of the members.
    pub fields_changed: bool,
    /// What is written, or the refusal of the members (nothing of the
    /// write is kept: the store rolls back the fields too).
    pub outcome: Result<GroupUpdatePlan, Refusal>,
}

/// What a change of a group writes ([`GroupUpdate::outcome`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupUpdatePlan {
    /// People who become members (not members now), in id order.
    pub joining: Vec<PersonId>,
    /// Members who leave, in id order.
    pub leaving: Vec<PersonId>,
    /// The member count after the change.
    pub member_count: u64,
    /// The group as written (a new version, the change's time unless the
    /// stored one is later); `None` when nothing changes: the store writes
    /// nothing and answers the stored group.
    pub written: Option<Group>,
    /// The events: the group's update (when a reported field changed), each
    /// member added, each member removed.
    pub events: Vec<NewEvent>,
}

impl GroupUpdatePlan {
    /// The store's answer once the plan is written; `current` is the group
    /// as stored before.
    #[must_use]
    pub fn answer(&self, current: &Group) -> GroupWrite {
        GroupWrite::Done(self.written.clone().unwrap_or_else(|| current.clone()))
    }
}

/// Decides `change` of the group stored as `current` (locked by the store),
/// given the [`MembersFacts`] the store read.
///
/// Adding a member already present and removing one absent change nothing;
/// the version increases (and the last change time becomes `change.at`,
/// unless the stored one is later) only when something changes.
///
/// # Errors
/// [`Refusal::Stale`] when `change` expects another version (before
/// anything is written).
pub fn decide_update(
    current: &Group,
    change: &GroupChange,
    facts: &MembersFacts,
) -> Result<GroupUpdate, Refusal> {
    let fields = change
        .fields_on(current)
        .map_err(|current| Refusal::Stale { current })?;
    let fields_changed = fields.fields() != current.fields();
    let outcome = members_outcome(current, &fields, fields_changed, change, facts);
    Ok(GroupUpdate {
        fields,
        fields_changed,
        outcome,
    })
}

fn members_outcome(
    current: &Group,
    fields: &Group,
    fields_changed: bool,
    change: &GroupChange,
    facts: &MembersFacts,
) -> Result<GroupUpdatePlan, Refusal> {
    if !facts.not_people.is_empty() {
        return Err(Refusal::NotPeople(facts.not_people.clone()));
    }
    let (joining, leaving): (Vec<PersonId>, Vec<PersonId>) = match &change.members {
        MembersChange::Keep => (Vec::new(), Vec::new()),
        // Removed, then added: a person named in both ends up a member.
        MembersChange::Delta { add, remove } => (
            add.difference(&facts.named_members).copied().collect(),
            remove
                .intersection(&facts.named_members)
                .filter(|p| !add.contains(p))
                .copied()
                .collect(),
        ),
        // The members become exactly the set: its size is the count.
        MembersChange::Replace(set) => {
            if set.len() as u64 > MAX_MEMBERS {
                return Err(Refusal::TooManyMembers);
            }
            (
                set.difference(&facts.named_members).copied().collect(),
                facts.unnamed_members.difference(set).copied().collect(),
            )
        }
    };
    let member_count =
        (facts.member_count + joining.len() as u64).saturating_sub(leaving.len() as u64);
    // A change that only removes is never refused (whatever the count).
    if !joining.is_empty() && member_count > MAX_MEMBERS {
        return Err(Refusal::TooManyMembers);
    }
    if !fields_changed && joining.is_empty() && leaving.is_empty() {
        return Ok(GroupUpdatePlan {
            joining,
            leaving,
            member_count,
            written: None,
            events: Vec::new(),
        });
    }
    let mut written = fields.clone();
    written.version = current.version + 1;
    written.updated_at = change.at.max(current.updated_at);
    let mut events: Vec<NewEvent> = NewEvent::updated(EventType::GroupUpdated, current, &written)
        .into_iter()
        .collect();
    events.extend(
        joining
            .iter()
            .map(|p| NewEvent::membership(current.id, *p, true)),
    );
    events.extend(
        leaving
            .iter()
            .map(|p| NewEvent::membership(current.id, *p, false)),
    );
    Ok(GroupUpdatePlan {
        joining,
        leaving,
        member_count,
        written: Some(written),
        events,
    })
}

/// Decides the delete of the group stored as `current` (locked by the
/// store): its memberships go with it (its people stay). The events.
///
/// # Errors
/// [`Refusal::Stale`] when `expected_version` is another.
pub fn decide_delete(
    current: &Group,
    expected_version: Option<i64>,
) -> Result<Vec<NewEvent>, Refusal> {
    if expected_version.is_some_and(|v| v != current.version) {
        return Err(Refusal::Stale {
            current: current.version,
        });
    }
    Ok(vec![NewEvent::bare(
        EventType::GroupDeleted,
        current.subject(),
    )])
}

/// A person leaving every group they are in (offboarding; an import that
/// stores them as no longer provisioned): the store removes their
/// memberships, and each of [`Self::groups`] gets a new version (its version
/// plus one), `at` as its last change and one member less.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeavingEveryGroup {
    /// The person.
    pub person: PersonId,
    /// The groups they leave, in id order, each once.
    pub groups: Vec<GroupId>,
    /// When.
    pub at: DateTime<Utc>,
}

impl LeavingEveryGroup {
    /// `person` leaving `groups` (the groups the store read they are in,
    /// locked) at `at`.
    #[must_use]
    pub fn of(
        person: PersonId,
        groups: impl IntoIterator<Item = GroupId>,
        at: DateTime<Utc>,
    ) -> Self {
        let groups: BTreeSet<GroupId> = groups.into_iter().collect();
        Self {
            person,
            groups: groups.into_iter().collect(),
            at,
        }
    }

    /// One `group.member_removed` event per group, in group id order.
    pub fn events(&self) -> impl Iterator<Item = NewEvent> + '_ {
        self.groups
            .iter()
            .map(|g| NewEvent::membership(*g, self.person, false))
    }
}

/// The people of an import that leave every group ([`LeavingEveryGroup`]):
/// those it stores as no longer provisioned, as offboarding does.
pub fn leaving_every_group(people: &[Person]) -> impl Iterator<Item = &Person> {
    people.iter().filter(|p| !p.is_provisioned())
}

/// Whether a person's change of userName from `before` to `after` gives
/// each of their groups a new version (and the change's time as its last
/// change): groups show their members' userName (the SCIM member's
/// `display`), so a change of case counts too.
#[must_use]
pub fn rename_touches_groups(before: &str, after: &str) -> bool {
    before != after
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::group::{GroupFields, GroupFieldsChange};
    use crate::ids::OrganizationId;

    fn group() -> Group {
        let fields = GroupFields {
            external_id: None,
            display_name: "Engineering".into(),
            package_id: None,
            precedence: 0,
        };
        let mut g = Group::new(GroupId::new(), OrganizationId::new(), fields, Utc::now());
        g.version = 4;
        g
    }

    fn people(n: usize) -> Vec<PersonId> {
        let mut v: Vec<PersonId> = (0..n).map(|_| PersonId::new()).collect();
        v.sort_unstable();
        v
    }

    fn change(members: MembersChange) -> GroupChange {
        GroupChange {
            fields: GroupFieldsChange::default(),
            members,
            expected_version: None,
            at: Utc::now(),
        }
    }

    fn plan_of(update: GroupUpdate) -> GroupUpdatePlan {
        update.outcome.unwrap()
    }

    #[test]
    fn a_create_refuses_non_people_then_too_many_members() {
        let g = group();
        let p = people(2);
        let members: BTreeSet<PersonId> = p.iter().copied().collect();
        assert_eq!(
            decide_create(&g, &members, vec![p[1]]),
            Err(Refusal::NotPeople(vec![p[1]]))
        );
        let created = decide_create(&g, &members, Vec::new()).unwrap();
        assert_eq!(created.joining, p);
        assert_eq!(created.member_count, 2);
        let kinds: Vec<EventType> = created.events.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                EventType::GroupCreated,
                EventType::GroupMemberAdded,
                EventType::GroupMemberAdded
            ]
        );
    }

    #[test]
    fn a_create_above_the_limit_is_refused() {
        let g = group();
        let members: BTreeSet<PersonId> = (0..=MAX_MEMBERS).map(|_| PersonId::new()).collect();
        assert_eq!(
            decide_create(&g, &members, Vec::new()),
            Err(Refusal::TooManyMembers)
        );
    }

    #[test]
    fn a_delta_adds_only_absent_people_and_removes_only_members() {
        let g = group();
        let p = people(4);
        let mut m = MembersChange::Keep;
        m.add([p[0], p[1]]);
        m.remove([p[2], p[3]]);
        assert_eq!(m.named(), p);
        assert!(!m.replaces());
        // p[1] already a member, p[2] a member, p[3] not.
        let facts = MembersFacts {
            member_count: 10,
            named_members: [p[1], p[2]].into(),
            ..MembersFacts::default()
        };
        let c = change(m);
        let plan = plan_of(decide_update(&g, &c, &facts).unwrap());
        assert_eq!(plan.joining, [p[0]]);
        assert_eq!(plan.leaving, [p[2]]);
        assert_eq!(plan.member_count, 10);
        let written = plan.written.clone().unwrap();
        assert_eq!(written.version, 5);
        assert_eq!(written.updated_at, c.at.max(g.updated_at));
        assert_eq!(
            plan.events,
            [
                NewEvent::membership(g.id, p[0], true),
                NewEvent::membership(g.id, p[2], false)
            ]
        );
        assert_eq!(plan.answer(&g), GroupWrite::Done(written));
    }

    #[test]
    fn a_person_both_added_and_removed_ends_a_member() {
        // As the stores always applied a delta: the removals, then the adds.
        let g = group();
        let p = people(2);
        let m = MembersChange::Delta {
            add: [p[0], p[1]].into(),
            remove: [p[0], p[1]].into(),
        };
        // p[0] a member, p[1] not.
        let facts = MembersFacts {
            member_count: 1,
            named_members: [p[0]].into(),
            ..MembersFacts::default()
        };
        let plan = plan_of(decide_update(&g, &change(m), &facts).unwrap());
        assert_eq!(plan.joining, [p[1]]);
        assert!(plan.leaving.is_empty());
        assert_eq!(plan.member_count, 2);
    }

    #[test]
    fn a_change_that_changes_nothing_keeps_the_version() {
        let g = group();
        let p = people(2);
        let mut m = MembersChange::Keep;
        m.add([p[0]]);
        m.remove([p[1]]);
        let facts = MembersFacts {
            member_count: 1,
            named_members: [p[0]].into(),
            ..MembersFacts::default()
        };
        let plan = plan_of(decide_update(&g, &change(m), &facts).unwrap());
        assert_eq!(plan.written, None);
        assert!(plan.events.is_empty());
        assert_eq!(plan.answer(&g), GroupWrite::Done(g.clone()));
        // The same fields set again: no change either.
        let mut same = change(MembersChange::Keep);
        same.fields = GroupFieldsChange::from(g.fields());
        let update = decide_update(&g, &same, &MembersFacts::default()).unwrap();
        assert!(!update.fields_changed);
        assert_eq!(plan_of(update).written, None);
    }

    #[test]
    fn a_rename_is_an_update_event_and_a_new_version() {
        let g = group();
        let mut c = change(MembersChange::Keep);
        c.fields.display_name = Some("Platform".into());
        let update = decide_update(&g, &c, &MembersFacts::default()).unwrap();
        assert!(update.fields_changed);
        assert_eq!(update.fields.display_name, "Platform");
        assert_eq!(update.fields.version, g.version);
        let plan = plan_of(update);
        let written = plan.written.unwrap();
        assert_eq!(
            (written.display_name.as_str(), written.version),
            ("Platform", 5)
        );
        let kinds: Vec<EventType> = plan.events.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [EventType::GroupUpdated]);
        // A stored time later than the change's stays.
        let mut later = g.clone();
        later.updated_at = c.at + chrono::Duration::seconds(5);
        let plan = plan_of(decide_update(&later, &c, &MembersFacts::default()).unwrap());
        assert_eq!(plan.written.unwrap().updated_at, later.updated_at);
    }

    #[test]
    fn a_stale_change_is_refused_before_anything_else() {
        let g = group();
        let mut c = change(MembersChange::Keep);
        c.expected_version = Some(3);
        let facts = MembersFacts {
            not_people: vec![PersonId::new()],
            ..MembersFacts::default()
        };
        assert_eq!(
            decide_update(&g, &c, &facts),
            Err(Refusal::Stale { current: 4 })
        );
    }

    #[test]
    fn non_people_are_refused_after_the_fields() {
        let g = group();
        let stranger = PersonId::new();
        let mut c = change(MembersChange::Replace([stranger].into()));
        c.fields.display_name = Some("Platform".into());
        let facts = MembersFacts {
            not_people: vec![stranger],
            ..MembersFacts::default()
        };
        let update = decide_update(&g, &c, &facts).unwrap();
        // The store writes the fields first (its constraints answer first).
        assert!(update.fields_changed);
        assert_eq!(update.outcome, Err(Refusal::NotPeople(vec![stranger])));
    }

    #[test]
    fn a_replace_makes_the_members_exactly_the_set() {
        let g = group();
        let p = people(4);
        let m = MembersChange::Replace([p[0], p[1]].into());
        assert!(m.replaces());
        assert_eq!(m.named(), [p[0], p[1]]);
        // Members now: p[1], p[2], p[3].
        let facts = MembersFacts {
            member_count: 3,
            named_members: [p[1]].into(),
            unnamed_members: [p[2], p[3]].into(),
            ..MembersFacts::default()
        };
        let plan = plan_of(decide_update(&g, &change(m), &facts).unwrap());
        assert_eq!(plan.joining, [p[0]]);
        assert_eq!(plan.leaving, [p[2], p[3]]);
        assert_eq!(plan.member_count, 2);
        assert_eq!(plan.events.len(), 3);
    }

    #[test]
    fn the_member_limit_refuses_only_changes_that_add() {
        let g = group();
        let p = people(2);
        let full = MembersFacts {
            member_count: MAX_MEMBERS,
            ..MembersFacts::default()
        };
        let mut add = MembersChange::Keep;
        add.add([p[0]]);
        let update = decide_update(&g, &change(add), &full).unwrap();
        assert_eq!(update.outcome, Err(Refusal::TooManyMembers));
        // Adding one and removing another at the limit stays within it.
        let mut swap = MembersChange::Keep;
        swap.add([p[0]]);
        swap.remove([p[1]]);
        let facts = MembersFacts {
            named_members: [p[1]].into(),
            ..full.clone()
        };
        let plan = plan_of(decide_update(&g, &change(swap), &facts).unwrap());
        assert_eq!(plan.member_count, MAX_MEMBERS);
        // Removing from a group above the limit is never refused.
        let mut remove = MembersChange::Keep;
        remove.remove([p[1]]);
        let above = MembersFacts {
            member_count: MAX_MEMBERS + 5,
            named_members: [p[1]].into(),
            ..MembersFacts::default()
        };
        assert!(decide_update(&g, &change(remove), &above)
            .unwrap()
            .outcome
            .is_ok());
        // A replace by a set above the limit is refused whatever is stored.
        let big: BTreeSet<PersonId> = (0..=MAX_MEMBERS).map(|_| PersonId::new()).collect();
        let update = decide_update(
            &g,
            &change(MembersChange::Replace(big)),
            &MembersFacts::default(),
        );
        assert_eq!(update.unwrap().outcome, Err(Refusal::TooManyMembers));
    }

    #[test]
    fn a_delete_checks_the_version() {
        let g = group();
        assert_eq!(
            decide_delete(&g, Some(1)),
            Err(Refusal::Stale { current: 4 })
        );
        let events = decide_delete(&g, Some(4)).unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].kind, EventType::GroupDeleted);
        assert!(decide_delete(&g, None).is_ok());
    }

    #[test]
    fn leaving_every_group_names_each_group_once_in_order() {
        let person = PersonId::new();
        let (a, b) = (GroupId::new(), GroupId::new());
        let at = Utc::now();
        let leaving = LeavingEveryGroup::of(person, [b, a, b], at);
        let mut expected = vec![a, b];
        expected.sort_unstable();
        assert_eq!(leaving.groups, expected);
        let events: Vec<NewEvent> = leaving.events().collect();
        assert_eq!(
            events,
            expected
                .iter()
                .map(|g| NewEvent::membership(*g, person, false))
                .collect::<Vec<_>>()
        );
        assert!(LeavingEveryGroup::of(person, [], at)
            .events()
            .next()
            .is_none());
    }

    #[test]
    fn a_change_of_case_in_a_username_touches_the_groups() {
        assert!(rename_touches_groups("ada@example.com", "Ada@example.com"));
        assert!(!rename_touches_groups("ada@example.com", "ada@example.com"));
    }
}
