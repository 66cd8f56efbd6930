//! Where a return created on request is decided (`POST
//! /api/v1/return-orders`: a repair, an upgrade, a leaver's item found
//! late): [`check_request`] before any store work, then [`plan`] over the
//! facts the store read in its transaction (the person and the items,
//! locked).
//!
//! A return is created for a person who is ACTIVE or OFFBOARDING (an
//! OFFBOARDING person stays so until it closes), for 1 to 1,000 distinct
//! items, each DEPLOYED to that person and not already on an active return.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};

use crate::error::DomainError;
use crate::event::{EventType, NewEvent};
use crate::ids::{InventoryItemId, OrganizationId, PersonId, ReturnOrderId, ReturnOrderItemId};
use crate::inventory::{Assignee, DeployStatus, ReturnStatus};
use crate::person::PersonStatus;
use crate::person::StoredPersonState;
use crate::returns::order::{ReturnLine, ReturnOrder};
use crate::returns::LineState;

/// Items one return may hold.
pub const MAX_ITEMS: usize = 1000;

/// A return asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnRequest {
    /// The person whose items come back.
    pub person: PersonId,
    /// The items, in the order given.
    pub items: Vec<InventoryItemId>,
    /// Whether IT asset disposition is requested for every line.
    pub itad_requested: bool,
}

/// What the store knows of one requested item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemFacts {
    /// Its deploy status.
    pub deploy_status: DeployStatus,
    /// Its holder.
    pub assignee: Option<Assignee>,
    /// Whether it has an active (open) return line.
    pub on_active_return: bool,
}

/// The facts [`plan`] decides on, read by the store in its transaction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CreateFacts {
    /// The person (locked); `None` when the organization has no such person.
    pub person: Option<StoredPersonState>,
    /// The organization's items among those requested (locked); an id
    /// missing here is unknown (or another organization's).
    pub items: HashMap<InventoryItemId, ItemFacts>,
}

/// Checks the request's shape before any store work: 1 to 1,000 items, no
/// id twice.
///
/// # Errors
/// [`DomainError::Invalid`] naming `itemIds` or the repeated entry.
pub fn check_request(request: &ReturnRequest) -> Result<(), DomainError> {
    if request.items.is_empty() {
        return Err(DomainError::invalid(
            "itemIds",
            "at least one item is required",
        ));
    }
    if request.items.len() > MAX_ITEMS {
        return Err(DomainError::invalid(
            "itemIds",
            format!(
                "at most {MAX_ITEMS} items per return order ({} given)",
                request.items.len()
            ),
        ));
    }
    let mut seen = HashSet::new();
    for (i, item) in request.items.iter().enumerate() {
        if !seen.insert(*item) {
            return Err(DomainError::invalid(
                format!("itemIds[{i}]"),
                format!("item {item} is given twice"),
            ));
        }
    }
    Ok(())
}

/// A return decided: the order to write (PENDING, one open line per item,
/// in line id order) and its events (`return_order.created`, then each
/// item's `inventory.item.updated` with its return, in the order given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatePlan {
    /// The order.
    pub order: ReturnOrder,
    /// The events.
    pub events: Vec<NewEvent>,
}

/// Decides the return `request` of `organization` at `at` over `facts`.
///
/// # Errors
/// The request's shape ([`check_request`]); the person unknown
/// ([`DomainError::NotFound`] on `personId`) or OFFBOARDED
/// ([`DomainError::Conflict`]); an item unknown (`NotFound` naming it), not
/// DEPLOYED to the person (`Invalid` naming it) or already on an active
/// return (`Conflict` naming it); the first in the order given.
pub fn plan(
    organization: OrganizationId,
    request: &ReturnRequest,
    facts: &CreateFacts,
    at: DateTime<Utc>,
) -> Result<CreatePlan, DomainError> {
    check_request(request)?;
    let person = request.person;
    match facts.person {
        None => {
            return Err(DomainError::not_found(
                "personId",
                format!("no person {person}"),
            ))
        }
        Some(p) if !matches!(p.status, PersonStatus::Active | PersonStatus::Offboarding) => {
            return Err(DomainError::conflict(
                "personId",
                format!("person {person} is {}", p.status.as_str()),
            ))
        }
        Some(_) => {}
    }
    for (i, id) in request.items.iter().enumerate() {
        let field = format!("itemIds[{i}]");
        let Some(item) = facts.items.get(id) else {
            return Err(DomainError::not_found(
                field,
                format!("no inventory item {id}"),
            ));
        };
        if item.deploy_status != DeployStatus::Deployed
            || item.assignee != Some(Assignee::Person(person))
        {
            return Err(DomainError::invalid(
                field,
                format!("item {id} is not deployed to person {person}"),
            ));
        }
        if item.on_active_return {
            return Err(DomainError::conflict(
                field,
                format!("item {id} is already on an active return order"),
            ));
        }
    }
    let id = ReturnOrderId::new();
    let mut lines: Vec<ReturnLine> = request
        .items
        .iter()
        .map(|&item| ReturnLine {
            id: ReturnOrderItemId::new(),
            item,
            state: LineState::Open,
            status: ReturnStatus::Pending,
            itad_requested: request.itad_requested,
            received_at: None,
            warehouse_id: None,
        })
        .collect();
    lines.sort_by_key(|l| l.id);
    let order = ReturnOrder {
        id,
        organization_id: organization,
        person: Some(person),
        status: ReturnStatus::Pending,
        cancelled: false,
        retrieval: None,
        lines,
        created_at: at,
        updated_at: at,
    }
    .restated();
    let mut events = vec![NewEvent::created(EventType::ReturnOrderCreated, &order)];
    events.extend(
        request
            .items
            .iter()
            .map(|&item| NewEvent::return_started(item, id)),
    );
    Ok(CreatePlan { order, events })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::ids::WarehouseId;

    fn deployed_to(person: PersonId) -> ItemFacts {
        ItemFacts {
            deploy_status: DeployStatus::Deployed,
            assignee: Some(Assignee::Person(person)),
            on_active_return: false,
        }
    }

    fn setup(n: usize) -> (ReturnRequest, CreateFacts) {
        let person = PersonId::new();
        let items: Vec<InventoryItemId> = (0..n).map(|_| InventoryItemId::new()).collect();
        let facts = CreateFacts {
            person: Some(StoredPersonState {
                status: PersonStatus::Active,
                version: 1,
            }),
            items: items.iter().map(|&i| (i, deployed_to(person))).collect(),
        };
        (
            ReturnRequest {
                person,
                items,
                itad_requested: true,
            },
            facts,
        )
    }

    #[test]
    fn a_return_of_deployed_items_is_pending_with_an_open_line_each() {
        let (req, facts) = setup(3);
        let at = Utc::now();
        let p = plan(OrganizationId::new(), &req, &facts, at).unwrap();
        assert_eq!(p.order.status, ReturnStatus::Pending);
        assert_eq!(p.order.person, Some(req.person));
        assert_eq!(p.order.lines.len(), 3);
        assert!(p.order.lines.iter().all(|l| l.active() && l.itad_requested));
        assert!(p.order.lines.windows(2).all(|w| w[0].id < w[1].id));
        assert_eq!(p.events.len(), 4);
        assert_eq!(p.events[0].kind, EventType::ReturnOrderCreated);
        assert_eq!(
            p.events[1],
            NewEvent::return_started(req.items[0], p.order.id)
        );
    }

    #[test]
    fn an_offboarding_person_may_get_a_return_and_an_offboarded_one_not() {
        let (req, mut facts) = setup(1);
        facts.person = Some(StoredPersonState {
            status: PersonStatus::Offboarding,
            version: 2,
        });
        assert!(plan(OrganizationId::new(), &req, &facts, Utc::now()).is_ok());
        facts.person = Some(StoredPersonState {
            status: PersonStatus::Offboarded,
            version: 3,
        });
        let e = plan(OrganizationId::new(), &req, &facts, Utc::now()).unwrap_err();
        assert!(matches!(e, DomainError::Conflict { .. }), "{e}");
        facts.person = None;
        let e = plan(OrganizationId::new(), &req, &facts, Utc::now()).unwrap_err();
        assert!(matches!(e, DomainError::NotFound { .. }), "{e}");
    }

    #[test]
    fn the_item_count_and_repeats_are_refused_before_any_work() {
        let (mut req, _) = setup(0);
        assert!(check_request(&req)
            .unwrap_err()
            .to_string()
            .contains("at least one"));
        req.items = (0..=MAX_ITEMS).map(|_| InventoryItemId::new()).collect();
        assert!(check_request(&req)
            .unwrap_err()
            .to_string()
            .contains("at most 1000"));
        req.items.truncate(MAX_ITEMS);
        assert!(check_request(&req).is_ok());
        let first = req.items[0];
        req.items[5] = first;
        let e = check_request(&req).unwrap_err().to_string();
        assert!(e.starts_with("itemIds[5]:"), "{e}");
    }

    #[test]
    fn each_item_must_be_known_deployed_to_the_person_and_free() {
        let (req, facts) = setup(2);
        let second = req.items[1];
        let mut f = facts.clone();
        f.items.remove(&second);
        let e = plan(OrganizationId::new(), &req, &f, Utc::now()).unwrap_err();
        assert!(
            matches!(&e, DomainError::NotFound { entity, .. } if entity == "itemIds[1]"),
            "{e:?}"
        );

        for other in [
            ItemFacts {
                deploy_status: DeployStatus::Available,
                assignee: Some(Assignee::Warehouse(WarehouseId::new())),
                on_active_return: false,
            },
            deployed_to(PersonId::new()),
        ] {
            let mut f = facts.clone();
            f.items.insert(second, other);
            let e = plan(OrganizationId::new(), &req, &f, Utc::now()).unwrap_err();
            let text = e.to_string();
            assert!(matches!(e, DomainError::Invalid { .. }), "{text}");
            assert!(text.contains(&second.to_string()), "{text}");
            assert!(text.contains("not deployed to person"), "{text}");
        }

        let mut f = facts;
        f.items.get_mut(&second).unwrap().on_active_return = true;
        let e = plan(OrganizationId::new(), &req, &f, Utc::now()).unwrap_err();
        assert!(matches!(e, DomainError::Conflict { .. }), "{e}");
        assert!(e.to_string().contains("already on an active return"), "{e}");
    }
}
