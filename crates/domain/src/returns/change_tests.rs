#![allow(clippy::unwrap_used)]
use super::*;
use crate::event::EventType;
use crate::ids::{OrganizationId, PersonId, ReturnOrderId, SkuId};
use crate::inventory::{Assignee, Assignment, Condition, ReturnStatus, SuppliedBy};
use crate::returns::order::ReturnLine;

fn item(id: InventoryItemId, person: PersonId) -> InventoryItem {
    let now = Utc::now();
    InventoryItem {
        id,
        organization_id: OrganizationId::new(),
        sku_id: SkuId::new(),
        serial_number: Some("C02XYZ".into()),
        imei: vec![],
        deploy_status: DeployStatus::Deployed,
        deploy_reason: None,
        condition: Condition::New,
        renewal_date: None,
        renewal_date_updated_by: None,
        billing_start_date: None,
        billing_end_date: None,
        procurement_method: None,
        assignment: Some(Assignment {
            assignee: Assignee::Person(person),
            assigned_at: Some(now),
        }),
        tags: vec![],
        pricing: None,
        description: None,
        erp_invoice_id: None,
        hold_start_date: None,
        unlock_date: None,
        itad_requested: None,
        device_program: None,
        supplied_by: SuppliedBy::Organization,
        return_order: None,
        created_at: now,
        updated_at: now,
    }
}

fn order(n: usize) -> ReturnOrder {
    let at = Utc::now();
    ReturnOrder {
        id: ReturnOrderId::new(),
        organization_id: OrganizationId::new(),
        person: Some(PersonId::new()),
        status: ReturnStatus::Pending,
        cancelled: false,
        retrieval: None,
        lines: (0..n)
            .map(|_| ReturnLine {
                id: ReturnOrderItemId::new(),
                item: InventoryItemId::new(),
                state: LineState::Open,
                status: ReturnStatus::Pending,
                itad_requested: false,
                received_at: None,
                warehouse_id: None,
            })
            .collect(),
        created_at: at,
        updated_at: at,
    }
    .restated()
}

fn active() -> ChangeFacts {
    ChangeFacts {
        person: Some(StoredPersonState {
            status: PersonStatus::Active,
            version: 1,
        }),
        items: HashMap::new(),
    }
}

fn method(m: RetrievalType, status: Option<RetrievalStatus>) -> ReturnOrderChange {
    ReturnOrderChange {
        retrieval: Some(RetrievalChange {
            method: m,
            status,
            tracking: Tracking::default(),
        }),
        ..ReturnOrderChange::default()
    }
}

fn apply(o: &ReturnOrder, c: &ReturnOrderChange) -> Result<ReturnOrder, DomainError> {
    plan(o, c, &active(), Utc::now()).map(|p| p.order)
}

#[test]
fn a_chosen_method_starts_requested_and_a_kit_moves_along_its_path() {
    let o = order(2);
    let mut c = method(RetrievalType::ReturnKit, None);
    c.retrieval.as_mut().unwrap().tracking.inbound_tracking_code = Some(Some("1Z999".into()));
    let o = apply(&o, &c).unwrap();
    let r = o.retrieval.clone().unwrap();
    assert_eq!(r.status, RetrievalStatus::Requested);
    assert_eq!(o.status, ReturnStatus::Processing);
    assert!(matches!(
        &r.kind,
        RetrievalKind::ReturnKit { inbound_tracking_code: Some(code), .. } if code == "1Z999"
    ));
    let o = apply(
        &o,
        &method(RetrievalType::ReturnKit, Some(RetrievalStatus::Shipped)),
    )
    .unwrap();
    assert_eq!(o.status, ReturnStatus::ReturnKitSent);
    assert!(o
        .lines
        .iter()
        .all(|l| l.status == ReturnStatus::ReturnKitSent));
    let moved = o.retrieval.clone().unwrap();
    assert_eq!(moved.id, r.id, "the retrieval is the same one");
    // The tracking code given earlier stays.
    assert_eq!(moved.kind, r.kind);
    let e = apply(
        &o,
        &method(
            RetrievalType::ReturnKit,
            Some(RetrievalStatus::LabelCreated),
        ),
    )
    .unwrap_err();
    assert!(matches!(e, DomainError::Conflict { .. }));
    assert!(
        e.to_string().contains("from SHIPPED to LABEL_CREATED"),
        "{e}"
    );
}

#[test]
fn the_method_changes_before_anything_moves_and_not_after() {
    let o = apply(&order(1), &method(RetrievalType::ReturnKit, None)).unwrap();
    let o2 = apply(
        &o,
        &method(
            RetrievalType::Physical,
            Some(RetrievalStatus::SchedulingPickUp),
        ),
    )
    .unwrap();
    let r = o2.retrieval.unwrap();
    assert_eq!(
        (r.kind.type_name(), r.status),
        ("PHYSICAL", RetrievalStatus::SchedulingPickUp)
    );
    let o = apply(
        &o,
        &method(RetrievalType::ReturnKit, Some(RetrievalStatus::Shipped)),
    )
    .unwrap();
    let e = apply(&o, &method(RetrievalType::Physical, None)).unwrap_err();
    assert!(e.to_string().contains("from RETURN_KIT to PHYSICAL"), "{e}");
    let e = apply(
        &order(1),
        &method(RetrievalType::Physical, Some(RetrievalStatus::Shipped)),
    )
    .unwrap_err();
    assert!(matches!(e, DomainError::Invalid { .. }), "{e}");
}

#[test]
fn a_write_off_closes_the_line_and_archives_the_item_with_its_reason() {
    let o = order(2);
    let person = o.person.unwrap();
    let line = o.lines[0].clone();
    let mut facts = active();
    facts.items.insert(line.item, item(line.item, person));
    let c = ReturnOrderChange {
        lines: vec![LineChange {
            id: line.id,
            itad_requested: None,
            closed_reason: Some(ClosedReason::Stolen),
        }],
        ..ReturnOrderChange::default()
    };
    assert_eq!(c.written_off_items(&o), vec![line.item]);
    let at = Utc::now();
    let p = plan(&o, &c, &facts, at).unwrap();
    assert_eq!(
        p.order.lines[0].state,
        LineState::WrittenOff(ClosedReason::Stolen)
    );
    assert_eq!(p.order.lines[0].status, ReturnStatus::NotReturned);
    assert_eq!(p.order.status, ReturnStatus::Pending);
    let (_, archived) = &p.items[0];
    assert_eq!(archived.deploy_status, DeployStatus::Archived);
    assert_eq!(
        archived.deploy_reason,
        Some(crate::inventory::DeployReason::Stolen)
    );
    assert_eq!(
        archived.assignment.unwrap().assignee,
        Assignee::Person(person)
    );
    assert_eq!(
        (archived.return_order.clone(), archived.updated_at),
        (None, at)
    );
    // The same write-off again changes nothing; another reason is refused.
    let again = plan(&p.order, &c, &facts, at).unwrap();
    assert_eq!((again.order, again.items.len()), (p.order.clone(), 0));
    let mut other = c.clone();
    other.lines[0].closed_reason = Some(ClosedReason::BoughtOut);
    let e = plan(&p.order, &other, &facts, at).unwrap_err();
    assert!(e.to_string().contains("is NOT_RETURNED"), "{e}");
    // Every line written off: NOT_COMPLETED.
    let mut rest = c;
    rest.lines[0].id = o.lines[1].id;
    let done = plan(&p.order, &rest, &facts, at).unwrap().order;
    assert_eq!(done.status, ReturnStatus::NotCompleted);
    assert!(done.finished());
    let e = apply(&done, &method(RetrievalType::Physical, None)).unwrap_err();
    assert!(e.to_string().contains("no longer moves"), "{e}");
}

#[test]
fn itad_is_set_on_open_lines_and_unknown_lines_are_refused() {
    let o = order(1);
    let c = ReturnOrderChange {
        lines: vec![LineChange {
            id: o.lines[0].id,
            itad_requested: Some(true),
            closed_reason: None,
        }],
        ..ReturnOrderChange::default()
    };
    assert!(apply(&o, &c).unwrap().lines[0].itad_requested);
    let mut unknown = c;
    unknown.lines[0].id = ReturnOrderItemId::new();
    let e = apply(&o, &unknown).unwrap_err();
    assert!(
        matches!(&e, DomainError::Invalid { field, .. } if field == "lines[0].id"),
        "{e:?}"
    );
}

#[test]
fn a_cancel_ends_every_line_while_nothing_closed() {
    let o = order(2);
    let cancel = ReturnOrderChange {
        cancel: true,
        ..ReturnOrderChange::default()
    };
    let p = plan(&o, &cancel, &active(), Utc::now()).unwrap();
    assert_eq!(p.order.status, ReturnStatus::Cancelled);
    assert!(p
        .order
        .lines
        .iter()
        .all(|l| !l.active() && l.status == ReturnStatus::Cancelled));
    assert!(p.items.is_empty(), "the items stay with the person");
    assert_eq!(p.events.len(), 2);
    assert_eq!(p.events[0].kind, EventType::ItemUpdated);
    // Cancelled: a second cancel changes nothing, anything else is refused.
    assert_eq!(apply(&p.order, &cancel).unwrap(), p.order);
    let e = apply(&p.order, &method(RetrievalType::Physical, None)).unwrap_err();
    assert!(e.to_string().contains("CANCELLED"), "{e}");
    // An offboarding person's order is written off, not cancelled.
    let mut facts = active();
    facts.person = Some(StoredPersonState {
        status: PersonStatus::Offboarding,
        version: 2,
    });
    let e = plan(&o, &cancel, &facts, Utc::now()).unwrap_err();
    assert!(e.to_string().contains("write the lines off instead"), "{e}");
    // Once a line closed, no cancel.
    let mut closed = o;
    closed.lines[1].state = LineState::Received;
    let closed = closed.restated();
    let e = apply(&closed, &cancel).unwrap_err();
    assert!(e.to_string().contains("RECEIVED_IN_WAREHOUSE"), "{e}");
}

#[test]
fn the_shape_is_checked_before_any_work() {
    let o = order(1);
    let empty = ReturnOrderChange::default();
    assert!(empty
        .check()
        .unwrap_err()
        .to_string()
        .contains("nothing to change"));
    let mut both = method(RetrievalType::Physical, None);
    both.cancel = true;
    assert!(both.check().unwrap_err().to_string().starts_with("status:"));
    let mut tracked = method(RetrievalType::Physical, None);
    tracked
        .retrieval
        .as_mut()
        .unwrap()
        .tracking
        .inbound_tracking_code = Some(Some("x".into()));
    let e = tracked.check().unwrap_err().to_string();
    assert!(e.starts_with("retrievalMethod.inboundTrackingCode:"), "{e}");
    let mut label = method(RetrievalType::InboundLabel, None);
    label
        .retrieval
        .as_mut()
        .unwrap()
        .tracking
        .outbound_tracking_link = Some(None);
    assert!(label.check().is_err());
    let twice = ReturnOrderChange {
        lines: vec![
            LineChange {
                id: o.lines[0].id,
                itad_requested: Some(true),
                closed_reason: None,
            };
            2
        ],
        ..ReturnOrderChange::default()
    };
    assert!(twice
        .check()
        .unwrap_err()
        .to_string()
        .starts_with("lines[1].id:"));
}
