//! Where offboarding is decided: a person's status moves from ACTIVE to
//! OFFBOARDING, every item DEPLOYED to them without an active return gets a
//! PENDING return order, and they leave every group. When they hold nothing
//! and have no open return line, the offboarding completes at once
//! (`crate::returns::completion`): OFFBOARDED, with `person.offboarded`.
//!
//! A store starts an offboarding in one write transaction, as the import's
//! rules against stored rows are applied (`crate::import::stored`):
//!
//! 1. it reads the person's stored status and version (locked until the
//!    transaction ends) and asks [`admit`] whether offboarding may start (a
//!    refusal is the store's answer; nothing is written);
//! 2. it reads the [`OffboardingFacts`]: the groups the person is in (locked),
//!    the items deployed to them without an active return and how many of
//!    their return lines are open;
//! 3. [`plan`] decides, without I/O, everything the store writes: the
//!    [`OffboardingPlan`] (the person's new state, the groups to leave, the
//!    return order and its lines, the events). The store writes it as it is.
//!
//! Every store (the database one, the in-memory one, an embedder's) thus
//! offboards by the same rules, unit-tested here without a store.

use chrono::{DateTime, Utc};

use crate::event::EventType;
use crate::event::NewEvent;
use crate::group::membership::LeavingEveryGroup;
use crate::ids::{
    GroupId, InventoryItemId, OrganizationId, PersonId, ReturnOrderId, ReturnOrderItemId,
};
use crate::inventory::ReturnStatus;
use crate::person::{PersonStatus, StoredPersonState};
use crate::ports::Offboarding;
use crate::returns::completion;
use crate::returns::order::{ReturnLine, ReturnOrder};
use crate::returns::LineState;

/// Whether offboarding may start for the person stored as `stored` (`None`:
/// no such person in the organization): only a provisioned (ACTIVE) person,
/// and with `expected_version` only if that is the stored version. The stored
/// version when it may; otherwise the store's answer ([`Offboarding::Missing`]
/// or [`Offboarding::Stale`]).
///
/// # Errors
/// The refusal, which the store returns without writing anything.
pub fn admit(
    stored: Option<StoredPersonState>,
    expected_version: Option<i64>,
) -> Result<i64, Offboarding> {
    match stored {
        Some(s) if s.status == PersonStatus::Active => match expected_version {
            Some(v) if v != s.version => Err(Offboarding::Stale { current: s.version }),
            _ => Ok(s.version),
        },
        _ => Err(Offboarding::Missing),
    }
}

/// What a store reads, after [`admit`], for [`plan`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OffboardingFacts {
    /// The groups the person is in (locked by the store until it commits).
    pub groups: Vec<GroupId>,
    /// The items deployed to the person (DEPLOYED, assigned to them) that
    /// have no active return yet.
    pub deployed_without_return: Vec<InventoryItemId>,
    /// How many of the person's return lines are open (active).
    pub open_lines: usize,
}

/// A return order an offboarding creates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewReturnOrder {
    /// Its id.
    pub id: ReturnOrderId,
    /// The person whose items come back.
    pub person: PersonId,
    /// Its status (PENDING).
    pub status: ReturnStatus,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// One line per item, in item id order.
    pub lines: Vec<NewReturnLine>,
}

impl NewReturnOrder {
    /// The order as the resource shows it, in `organization`.
    #[must_use]
    pub fn order(&self, organization: OrganizationId) -> ReturnOrder {
        let mut lines: Vec<ReturnLine> = self
            .lines
            .iter()
            .map(|l| ReturnLine {
                id: l.id,
                item: l.item,
                state: LineState::Open,
                status: l.status,
                itad_requested: false,
                received_at: None,
                warehouse_id: None,
            })
            .collect();
        lines.sort_by_key(|l| l.id);
        ReturnOrder {
            id: self.id,
            organization_id: organization,
            person: Some(self.person),
            status: self.status,
            cancelled: false,
            retrieval: None,
            lines,
            created_at: self.created_at,
            updated_at: self.created_at,
        }
        .restated()
    }
}

/// A line of a [`NewReturnOrder`]: one item to come back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewReturnLine {
    /// The line's id.
    pub id: ReturnOrderItemId,
    /// The item.
    pub item: InventoryItemId,
    /// Its status (PENDING); the line is active.
    pub status: ReturnStatus,
}

/// Everything an offboarding writes, as decided by [`plan`].
#[derive(Debug, Clone, PartialEq)]
pub struct OffboardingPlan {
    /// The person.
    pub person: PersonId,
    /// Their new status: OFFBOARDING, or OFFBOARDED when nothing is to
    /// come back.
    pub status: PersonStatus,
    /// Their new version (the stored one plus one).
    pub version: i64,
    /// Their last change.
    pub updated_at: DateTime<Utc>,
    /// The groups they leave.
    pub leaving: LeavingEveryGroup,
    /// The return order of the items deployed to them; `None` when nothing is.
    pub returns: Option<NewReturnOrder>,
    /// The events, in the order they are recorded: the offboarding's start,
    /// each group left (group id order), the return order's creation, each
    /// item's return (item id order), and `person.offboarded` when the
    /// offboarding completes at once.
    pub events: Vec<NewEvent>,
}

impl OffboardingPlan {
    /// The answer the store gives once the plan is written.
    #[must_use]
    pub fn outcome(&self) -> Offboarding {
        Offboarding::Started {
            returns: self.returns.as_ref().map_or(0, |r| r.lines.len()),
        }
    }
}

/// Decides an offboarding of `person` of `organization`, admitted at
/// `stored_version` ([`admit`]), at `at`. Draws fresh ids for the return
/// order and its lines; otherwise depends on its arguments only.
#[must_use]
pub fn plan(
    organization: OrganizationId,
    person: PersonId,
    stored_version: i64,
    facts: &OffboardingFacts,
    at: DateTime<Utc>,
) -> OffboardingPlan {
    let leaving = LeavingEveryGroup::of(person, facts.groups.iter().copied(), at);
    let mut items = facts.deployed_without_return.clone();
    items.sort_unstable();
    items.dedup();
    let returns = (!items.is_empty()).then(|| NewReturnOrder {
        id: ReturnOrderId::new(),
        person,
        status: ReturnStatus::Pending,
        created_at: at,
        lines: items
            .iter()
            .map(|&item| NewReturnLine {
                id: ReturnOrderItemId::new(),
                item,
                status: ReturnStatus::Pending,
            })
            .collect(),
    });
    // An offboarded person is in no group, also when nothing is deployed
    // to them.
    let mut events = vec![NewEvent::offboarding_started(person)];
    events.extend(leaving.events());
    if let Some(order) = &returns {
        events.push(NewEvent::created(
            EventType::ReturnOrderCreated,
            &order.order(organization),
        ));
        events.extend(
            order
                .lines
                .iter()
                .map(|line| NewEvent::return_started(line.item, order.id)),
        );
    }
    let mut status = PersonStatus::Offboarding;
    let mut version = stored_version + 1;
    let started = StoredPersonState { status, version };
    let open = facts.open_lines + returns.as_ref().map_or(0, |r| r.lines.len());
    if let Some(done) = completion::complete(person, started, open, at) {
        status = done.status;
        version = done.version;
        events.push(done.event);
    }
    OffboardingPlan {
        person,
        status,
        version,
        updated_at: at,
        leaving,
        returns,
        events,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::event::EventType;

    fn active(version: i64) -> Option<StoredPersonState> {
        Some(StoredPersonState {
            status: PersonStatus::Active,
            version,
        })
    }

    #[test]
    fn only_a_provisioned_person_of_the_expected_version_is_admitted() {
        assert_eq!(admit(active(3), None), Ok(3));
        assert_eq!(admit(active(3), Some(3)), Ok(3));
        assert_eq!(
            admit(active(3), Some(2)),
            Err(Offboarding::Stale { current: 3 })
        );
        assert_eq!(admit(None, None), Err(Offboarding::Missing));
        for status in [PersonStatus::Offboarding, PersonStatus::Offboarded] {
            let stored = Some(StoredPersonState { status, version: 3 });
            // Already offboarding: missing, whatever version is expected.
            assert_eq!(admit(stored, None), Err(Offboarding::Missing));
            assert_eq!(admit(stored, Some(3)), Err(Offboarding::Missing));
        }
    }

    #[test]
    fn a_person_with_nothing_deployed_leaves_their_groups_without_a_return() {
        let person = PersonId::new();
        let at = Utc::now();
        let facts = OffboardingFacts {
            open_lines: 1,
            ..OffboardingFacts::default()
        };
        let p = plan(OrganizationId::new(), person, 4, &facts, at);
        assert_eq!(p.status, PersonStatus::Offboarding);
        assert_eq!((p.version, p.updated_at), (5, at));
        assert_eq!(p.returns, None);
        assert_eq!(p.outcome(), Offboarding::Started { returns: 0 });
        assert!(p.leaving.groups.is_empty());
        let kinds: Vec<EventType> = p.events.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [EventType::PersonOffboardingStarted]);
    }

    #[test]
    fn a_person_who_holds_nothing_and_has_nothing_open_is_offboarded_at_once() {
        let person = PersonId::new();
        let at = Utc::now();
        let p = plan(
            OrganizationId::new(),
            person,
            4,
            &OffboardingFacts::default(),
            at,
        );
        assert_eq!(p.status, PersonStatus::Offboarded);
        assert_eq!((p.version, p.updated_at), (6, at));
        assert_eq!(p.returns, None);
        let kinds: Vec<EventType> = p.events.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                EventType::PersonOffboardingStarted,
                EventType::PersonOffboarded
            ]
        );
    }

    #[test]
    fn every_deployed_item_gets_a_pending_return_and_every_group_is_left() {
        let person = PersonId::new();
        let at = Utc::now();
        let (g1, g2) = (GroupId::new(), GroupId::new());
        let (i1, i2) = (InventoryItemId::new(), InventoryItemId::new());
        let facts = OffboardingFacts {
            groups: vec![g2, g1, g2],
            deployed_without_return: vec![i2, i1],
            open_lines: 0,
        };
        let org = OrganizationId::new();
        let p = plan(org, person, 1, &facts, at);
        assert_eq!(p.status, PersonStatus::Offboarding);
        let mut groups = vec![g1, g2];
        groups.sort_unstable();
        assert_eq!(p.leaving.groups, groups);
        assert_eq!(p.leaving.at, at);
        let order = p.returns.as_ref().unwrap();
        assert_eq!(order.person, person);
        assert_eq!(
            (order.status, order.created_at),
            (ReturnStatus::Pending, at)
        );
        let mut items = vec![i1, i2];
        items.sort_unstable();
        let lines: Vec<InventoryItemId> = order.lines.iter().map(|l| l.item).collect();
        assert_eq!(lines, items);
        assert!(order
            .lines
            .iter()
            .all(|l| l.status == ReturnStatus::Pending));
        assert_ne!(order.lines[0].id, order.lines[1].id);
        assert_eq!(p.outcome(), Offboarding::Started { returns: 2 });
        // Started, then the groups left, the order, then the returns, each
        // in id order.
        let mut expected = vec![NewEvent::offboarding_started(person)];
        expected.extend(
            groups
                .iter()
                .map(|g| NewEvent::membership(*g, person, false)),
        );
        expected.push(NewEvent::created(
            EventType::ReturnOrderCreated,
            &order.order(org),
        ));
        expected.extend(items.iter().map(|i| NewEvent::return_started(*i, order.id)));
        assert_eq!(p.events, expected);
    }
}
