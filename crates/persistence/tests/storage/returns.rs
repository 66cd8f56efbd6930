//! Return orders in the store: created, read and listed; changes written
//! with their events and the items' listing rows; and concurrent writers,
//! each from its own pool (as two server instances): two changes of one
//! order give one outcome, and two orders of one person closing their last
//! lines at once complete the offboarding exactly once.

use equip_domain::event::{EventType, SubjectType};
use equip_domain::inventory::RetrievalStatus;
use equip_domain::ports::{Offboarding, ReturnOrderRepository};
use equip_domain::returns::change::{LineChange, RetrievalChange, ReturnOrderChange, Tracking};
use equip_domain::returns::create::ReturnRequest;
use equip_domain::returns::order::ReturnOrder;
use equip_domain::returns::query::{RawReturnOrderQuery, ReturnOrderQuery};
use equip_domain::returns::{ClosedReason, RetrievalType};
use equip_domain::DomainError;

use crate::events::all_events;
use crate::support::*;

storage_tests!(
    a_return_is_created_read_listed_and_written_off,
    two_write_offs_of_one_line_from_two_stores_give_one_outcome,
    closing_the_last_lines_of_two_orders_at_once_completes_the_offboarding_once,
    a_return_racing_its_persons_offboarding_never_returns_an_item_twice,
);

/// A person of `org` with `n` items deployed to them.
fn holder(
    store: &Store,
    org: &Organization,
    s: &Sku,
    w: &Warehouse,
    name: &str,
    n: usize,
) -> (Person, Vec<InventoryItemId>) {
    let p = person(org, &format!("{name}@example.com"));
    store.insert_person(&p).unwrap();
    let items = (0..n)
        .map(|i| {
            let mut it = item(org, s, w, at(3, i64::try_from(i).unwrap()));
            it.deploy_status = DeployStatus::Deployed;
            it.assignment = Some(Assignment {
                assignee: Assignee::new(AssigneeType::Person, *p.id.as_uuid()),
                assigned_at: None,
            });
            store.insert_inventory_item(&it).unwrap();
            it.id
        })
        .collect();
    (p, items)
}

fn write_off(line: ReturnOrderItemId, reason: ClosedReason) -> ReturnOrderChange {
    ReturnOrderChange {
        lines: vec![LineChange {
            id: line,
            itad_requested: None,
            closed_reason: Some(reason),
        }],
        ..ReturnOrderChange::default()
    }
}

fn orders_of(store: &Store, org: &Organization, person: PersonId) -> Vec<ReturnOrder> {
    let q = ReturnOrderQuery::parse(&RawReturnOrderQuery {
        person_id: Some(person.to_string()),
        ..RawReturnOrderQuery::default()
    })
    .unwrap();
    store.list_return_orders(org.id, &q).unwrap().orders
}

fn a_return_is_created_read_listed_and_written_off(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let (ada, items) = holder(store, &org, &s, &w, "ada", 2);
    let request = ReturnRequest {
        person: ada.id,
        items: items.clone(),
        itad_requested: true,
    };
    let order = store
        .create_return_order(org.id, &request, at(4, 0))
        .unwrap()
        .unwrap();
    assert_eq!(order.status, ReturnStatus::Pending);
    assert_eq!(
        store.find_return_order(org.id, order.id).unwrap(),
        Some(order.clone()),
        "read back as created"
    );
    // The item shows its return; a second return of it is refused.
    let shown = store
        .find_inventory_item(org.id, items[0])
        .unwrap()
        .unwrap();
    assert_eq!(shown.return_order.unwrap().id, order.id);
    let again = store
        .create_return_order(org.id, &request, at(4, 1))
        .unwrap()
        .unwrap_err();
    assert!(matches!(again, DomainError::Conflict { .. }), "{again}");
    // Another organization sees nothing of it.
    let other = new_org(store, "Other");
    assert_eq!(store.find_return_order(other.id, order.id).unwrap(), None);
    assert!(matches!(
        store
            .change_return_order(
                other.id,
                order.id,
                &write_off(order.lines[0].id, ClosedReason::Stolen),
                at(5, 0)
            )
            .unwrap(),
        Err(DomainError::NotFound { .. })
    ));
    // A write-off: the line closes, the item is ARCHIVED with the reason.
    let line = order.lines.iter().find(|l| l.item == items[0]).unwrap().id;
    let changed = store
        .change_return_order(
            org.id,
            order.id,
            &write_off(line, ClosedReason::Stolen),
            at(5, 0),
        )
        .unwrap()
        .unwrap();
    assert_eq!(changed.updated_at, at(5, 0));
    assert_eq!(
        store.find_return_order(org.id, order.id).unwrap(),
        Some(changed)
    );
    let archived = store
        .find_inventory_item(org.id, items[0])
        .unwrap()
        .unwrap();
    assert_eq!(archived.deploy_status, DeployStatus::Archived);
    assert_eq!(archived.return_order, None);
    let events = all_events(store, &org);
    let kinds: Vec<EventType> = events.iter().rev().take(2).map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [EventType::ReturnOrderUpdated, EventType::ItemUpdated]
    );
    assert_eq!(
        events.last().unwrap().subject.kind,
        SubjectType::ReturnOrder
    );
    // A kit shipped: the order's event, and the item still on it records
    // its return's move (its history follows the return); the written-off
    // item records nothing more.
    let before = all_events(store, &org).len();
    let shipped = ReturnOrderChange {
        retrieval: Some(RetrievalChange {
            method: RetrievalType::ReturnKit,
            status: Some(RetrievalStatus::Shipped),
            tracking: Tracking::default(),
        }),
        ..ReturnOrderChange::default()
    };
    let moved = store
        .change_return_order(org.id, order.id, &shipped, at(6, 0))
        .unwrap()
        .unwrap();
    assert_eq!(moved.status, ReturnStatus::ReturnKitSent);
    let events = all_events(store, &org);
    let new: Vec<(EventType, uuid::Uuid)> = events[before..]
        .iter()
        .map(|e| (e.kind, e.subject.id))
        .collect();
    assert_eq!(
        new,
        [
            (EventType::ReturnOrderUpdated, *order.id.as_uuid()),
            (EventType::ItemUpdated, *items[1].as_uuid()),
        ]
    );
    let changes: serde_json::Value =
        serde_json::from_str(events.last().unwrap().changes.text().unwrap()).unwrap();
    assert_eq!(changes["returnOrder.status"]["to"], "RETURN_KIT_SENT");
    // Listed by person and by item, newest first.
    assert_eq!(orders_of(store, &org, ada.id).len(), 1);
    assert!(orders_of(store, &org, PersonId::new()).is_empty());
}

fn two_write_offs_of_one_line_from_two_stores_give_one_outcome(db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let (ada, items) = holder(store, &org, &s, &w, "ada", 1);
    let order = store
        .create_return_order(
            org.id,
            &ReturnRequest {
                person: ada.id,
                items,
                itad_requested: false,
            },
            at(4, 0),
        )
        .unwrap()
        .unwrap();
    let line = order.lines[0].id;
    let before = all_events(store, &org).len();
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = [ClosedReason::Stolen, ClosedReason::LostByWorker]
        .into_iter()
        .map(|reason| {
            let (store, barrier, org, id) = (db.store(), Arc::clone(&barrier), org.id, order.id);
            std::thread::spawn(move || {
                barrier.wait();
                store
                    .change_return_order(org, id, &write_off(line, reason), Utc::now())
                    .unwrap()
            })
        })
        .collect();
    let outcomes: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let won: Vec<&ReturnOrder> = outcomes.iter().filter_map(|o| o.as_ref().ok()).collect();
    assert_eq!(won.len(), 1, "{outcomes:?}");
    assert!(outcomes
        .iter()
        .any(|o| matches!(o, Err(DomainError::Conflict { .. }))));
    // ada is ACTIVE: nothing completes.
    let events = all_events(store, &org);
    assert_eq!(events.len() - before, 2, "one item event, one order event");
}

fn closing_the_last_lines_of_two_orders_at_once_completes_the_offboarding_once(
    db: &TestDatabase,
    store: &Store,
) {
    let (org, s, w) = seeded(store, "Acme");
    let (ada, items) = holder(store, &org, &s, &w, "ada", 2);
    // One return on request, then the offboarding returns the other item.
    store
        .create_return_order(
            org.id,
            &ReturnRequest {
                person: ada.id,
                items: vec![items[0]],
                itad_requested: false,
            },
            at(4, 0),
        )
        .unwrap()
        .unwrap();
    assert_eq!(
        store
            .offboard_person(org.id, ada.id, None, at(4, 1))
            .unwrap(),
        Offboarding::Started { returns: 1 }
    );
    let orders = orders_of(store, &org, ada.id);
    assert_eq!(orders.len(), 2);
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = orders
        .iter()
        .map(|o| {
            let (store, barrier, org) = (db.store(), Arc::clone(&barrier), org.id);
            let (id, line) = (o.id, o.lines[0].id);
            std::thread::spawn(move || {
                barrier.wait();
                store
                    .change_return_order(
                        org,
                        id,
                        &write_off(line, ClosedReason::BoughtOut),
                        Utc::now(),
                    )
                    .unwrap()
                    .unwrap()
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap().status, ReturnStatus::NotCompleted);
    }
    let stored = store.find_person(org.id, ada.id).unwrap().unwrap();
    assert_eq!(
        stored.status,
        PersonStatus::Offboarded,
        "neither missed the other's close"
    );
    let offboarded = all_events(store, &org)
        .into_iter()
        .filter(|e| e.kind == EventType::PersonOffboarded)
        .count();
    assert_eq!(offboarded, 1);
}

fn a_return_racing_its_persons_offboarding_never_returns_an_item_twice(
    db: &TestDatabase,
    store: &Store,
) {
    let (org, s, w) = seeded(store, "Acme");
    for round in 0..4 {
        let (p, items) = holder(store, &org, &s, &w, &format!("leaver{round}"), 1);
        let barrier = Arc::new(Barrier::new(2));
        let create = {
            let (store, barrier, org) = (db.store(), Arc::clone(&barrier), org.id);
            let request = ReturnRequest {
                person: p.id,
                items: items.clone(),
                itad_requested: false,
            };
            std::thread::spawn(move || {
                barrier.wait();
                store
                    .create_return_order(org, &request, Utc::now())
                    .unwrap()
            })
        };
        let offboard = {
            let (store, barrier, org, id) = (db.store(), Arc::clone(&barrier), org.id, p.id);
            std::thread::spawn(move || {
                barrier.wait();
                store.offboard_person(org, id, None, Utc::now()).unwrap()
            })
        };
        let created = create.join().unwrap();
        let started = offboard.join().unwrap();
        // Whichever came first, the item is on exactly one active return.
        let active = db.count_rows(&format!(
            "return_order_items WHERE inventory_item_id = '{}' AND active",
            items[0]
        ));
        assert_eq!(active, 1, "round {round}: {created:?} / {started:?}");
        match created {
            Ok(_) => assert_eq!(started, Offboarding::Started { returns: 0 }),
            Err(e) => {
                assert!(matches!(e, DomainError::Conflict { .. }), "{e}");
                assert_eq!(started, Offboarding::Started { returns: 1 });
            }
        }
        let stored = store.find_person(org.id, p.id).unwrap().unwrap();
        assert_eq!(stored.status, PersonStatus::Offboarding, "a line is open");
    }
}
