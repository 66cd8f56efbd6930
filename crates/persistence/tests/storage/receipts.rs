//! Warehouse receipts, hold periods and hold releases (`ReceiptRepository`):
//! what each writes, per entry, and the races: two receipts of one item,
//! two release passes over the same due holds.

use super::support::*;
use equip_domain::error::DomainError;
use equip_domain::event::{Actor, EventType, Subject, SubjectType};
use equip_domain::inventory::ReturnStatus;
use equip_domain::ports::{
    EntryOutcome, EventRepository, ReceiptRepository, ReturnOrderRepository,
};
use equip_domain::returns::change::ReturnOrderChange;
use equip_domain::returns::create::ReturnRequest;
use equip_domain::returns::hold::HoldPeriod;
use equip_domain::returns::receipt::{ItemKey, ReceiptEntry, Receiving};

storage_tests!(
    a_returned_item_goes_on_hold_at_the_warehouse,
    new_stock_becomes_available_and_other_items_are_refused,
    the_hold_period_is_the_organizations_and_zero_releases_at_once,
    two_receipts_of_one_item_receive_it_once,
    an_early_release_needs_a_hold,
    two_release_passes_release_each_due_hold_once,
    a_receipt_racing_a_cancel_gives_one_outcome,
);

/// A person with one item DEPLOYED to them, offboarded: the item is on an
/// open (PENDING) return.
fn returning(store: &Store, org: &Organization, sku: &Sku, w: &Warehouse) -> InventoryItem {
    let p = person(org, &format!("{}@acme.example", Uuid::new_v4().simple()));
    store.insert_person(&p).unwrap();
    let mut i = item(org, sku, w, at(3, 0));
    i.deploy_status = DeployStatus::Deployed;
    i.assignment = Some(Assignment {
        assignee: Assignee::Person(p.id),
        assigned_at: Some(at(3, 0)),
    });
    store.insert_inventory_item(&i).unwrap();
    store.offboard_person(org.id, p.id, None, at(4, 0)).unwrap();
    let i = store.find_inventory_item(org.id, i.id).unwrap().unwrap();
    assert!(i.return_order.is_some(), "the offboarding opened a return");
    i
}

fn by_serial(i: &InventoryItem) -> ReceiptEntry {
    ReceiptEntry {
        key: ItemKey::Serial(i.serial_number.clone().unwrap()),
        condition: None,
    }
}

fn here(w: &Warehouse, when: DateTime<Utc>) -> Receiving {
    Receiving {
        warehouse: w.id,
        at: when,
    }
}

fn item_events(store: &Store, org: &Organization, id: InventoryItemId) -> Vec<(EventType, Actor)> {
    history(store, org, SubjectType::InventoryItem, *id.as_uuid())
}

fn history(
    store: &Store,
    org: &Organization,
    kind: SubjectType,
    id: Uuid,
) -> Vec<(EventType, Actor)> {
    let subject = Subject { kind, id };
    store
        .read_history(org.id, subject, None, 100)
        .unwrap()
        .into_iter()
        .map(|e| (e.kind, e.actor))
        .collect()
}

fn a_returned_item_goes_on_hold_at_the_warehouse(_db: &TestDatabase, store: &Store) {
    let (org, sku, w) = seeded(store, "Acme");
    let i = returning(store, &org, &sku, &w);
    let Some(Assignment {
        assignee: Assignee::Person(leaver),
        ..
    }) = i.assignment
    else {
        panic!("deployed to a person");
    };
    let order = i.return_order.clone().unwrap();
    let when = Utc.with_ymd_and_hms(2026, 3, 1, 23, 30, 0).unwrap();
    let entry = ReceiptEntry {
        condition: Some(Condition::UsedFair),
        ..by_serial(&i)
    };
    let out = store.receive_item(org.id, &entry, here(&w, when)).unwrap();
    assert_eq!(out.item, Some(i.id));
    assert_eq!(out.serial_number, i.serial_number);
    out.result.unwrap();
    let got = store.find_inventory_item(org.id, i.id).unwrap().unwrap();
    assert_eq!(got.deploy_status, DeployStatus::Unavailable);
    assert_eq!(got.deploy_reason, Some(DeployReason::PendingHoldRelease));
    assert_eq!(got.hold_start_date, Some(date(2026, 3, 1)));
    assert_eq!(got.unlock_date, Some(date(2026, 3, 31)));
    assert_eq!(got.itad_requested, Some(false));
    assert_eq!(got.condition, Condition::UsedFair);
    assert_eq!(
        got.assignment,
        Some(Assignment {
            assignee: Assignee::Warehouse(w.id),
            assigned_at: Some(when)
        })
    );
    assert_eq!(got.return_order, None, "its line is closed");
    // The listing shows it as it is now.
    let view = store.find_inventory_views(org.id, &[i.id]).unwrap();
    assert_eq!(view[0].item.deploy_status, DeployStatus::Unavailable);
    let events = item_events(store, &org, i.id);
    assert_eq!(events[0].0, EventType::ItemUpdated);
    // Their only line received: the order is COMPLETED and the offboarding
    // completes, each with its event.
    let order_events = history(store, &org, SubjectType::ReturnOrder, *order.id.as_uuid());
    assert_eq!(order_events[0].0, EventType::ReturnOrderUpdated);
    let person_events = history(store, &org, SubjectType::Person, *leaver.as_uuid());
    assert_eq!(person_events[0].0, EventType::PersonOffboarded);
    let p = store.find_person(org.id, leaver).unwrap().unwrap();
    assert_eq!(p.status, PersonStatus::Offboarded);
    // A second receipt of the same item: it is no longer on a return.
    let again = store
        .receive_item(org.id, &by_serial(&i), here(&w, when))
        .unwrap();
    let e = again.result.unwrap_err().to_string();
    assert!(e.contains("is UNAVAILABLE"), "{e}");
}

fn new_stock_becomes_available_and_other_items_are_refused(_db: &TestDatabase, store: &Store) {
    let (org, sku, w) = seeded(store, "Acme");
    let mut arriving = item(&org, &sku, &w, at(3, 0));
    arriving.deploy_status = DeployStatus::AwaitingArrival;
    arriving.assignment = None;
    store.insert_inventory_item(&arriving).unwrap();
    let entry = ReceiptEntry {
        key: ItemKey::Id(arriving.id),
        condition: Some(Condition::New),
    };
    store
        .receive_item(org.id, &entry, here(&w, Utc::now()))
        .unwrap()
        .result
        .unwrap();
    let got = store
        .find_inventory_item(org.id, arriving.id)
        .unwrap()
        .unwrap();
    assert_eq!(got.deploy_status, DeployStatus::Available);
    assert_eq!(got.unlock_date, None);
    assert_eq!(
        got.assignment.map(|a| a.assignee),
        Some(Assignee::Warehouse(w.id))
    );

    let shelf = item(&org, &sku, &w, at(3, 0));
    store.insert_inventory_item(&shelf).unwrap();
    let out = store
        .receive_item(org.id, &by_serial(&shelf), here(&w, Utc::now()))
        .unwrap();
    assert!(matches!(out.result, Err(DomainError::Conflict { .. })));
    assert!(out.result.unwrap_err().to_string().contains("is AVAILABLE"));
    assert_eq!(item_events(store, &org, shelf.id).len(), 1, "created only");

    let unknown = ReceiptEntry {
        key: ItemKey::Serial("NOPE".into()),
        condition: None,
    };
    let out = store
        .receive_item(org.id, &unknown, here(&w, Utc::now()))
        .unwrap();
    assert!(matches!(out.result, Err(DomainError::NotFound { .. })));
    assert_eq!(
        (out.item, out.serial_number.as_deref()),
        (None, Some("NOPE"))
    );

    // Another organization's item, by id or serial: unknown here.
    let (other, other_sku, other_w) = seeded(store, "Other");
    let theirs = returning(store, &other, &other_sku, &other_w);
    for entry in [
        by_serial(&theirs),
        ReceiptEntry {
            key: ItemKey::Id(theirs.id),
            condition: None,
        },
    ] {
        let out = store
            .receive_item(org.id, &entry, here(&w, Utc::now()))
            .unwrap();
        assert!(matches!(out.result, Err(DomainError::NotFound { .. })));
    }
    let still = store
        .find_inventory_item(other.id, theirs.id)
        .unwrap()
        .unwrap();
    assert_eq!(still.deploy_status, DeployStatus::Deployed);
}

fn the_hold_period_is_the_organizations_and_zero_releases_at_once(
    _db: &TestDatabase,
    store: &Store,
) {
    let (org, sku, w) = seeded(store, "Acme");
    let (other, _, _) = seeded(store, "Other");
    assert_eq!(
        store.hold_period(org.id).unwrap(),
        Some(HoldPeriod::DEFAULT)
    );
    assert_eq!(store.hold_period(OrganizationId::new()).unwrap(), None);
    assert!(store
        .set_hold_period(org.id, HoldPeriod::new(0).unwrap())
        .unwrap());
    assert!(!store
        .set_hold_period(OrganizationId::new(), HoldPeriod::new(5).unwrap())
        .unwrap());
    assert_eq!(
        store.hold_period(org.id).unwrap(),
        Some(HoldPeriod::new(0).unwrap())
    );
    assert_eq!(
        store.hold_period(other.id).unwrap(),
        Some(HoldPeriod::DEFAULT)
    );
    let i = returning(store, &org, &sku, &w);
    store
        .receive_item(org.id, &by_serial(&i), here(&w, Utc::now()))
        .unwrap()
        .result
        .unwrap();
    let got = store.find_inventory_item(org.id, i.id).unwrap().unwrap();
    assert_eq!(got.deploy_status, DeployStatus::Available);
    assert_eq!(got.deploy_reason, None);
    assert_eq!((got.hold_start_date, got.unlock_date), (None, None));
}

/// Two stores (two instances) receive the same item at the same time: one
/// receives it, the other is refused; one event.
fn two_receipts_of_one_item_receive_it_once(db: &TestDatabase, store: &Store) {
    let (org, sku, w) = seeded(store, "Acme");
    for _ in 0..5 {
        let i = returning(store, &org, &sku, &w);
        let before = item_events(store, &org, i.id).len();
        let barrier = Arc::new(Barrier::new(2));
        let outcomes: Vec<EntryOutcome> = (0..2)
            .map(|_| {
                let (store, barrier, entry) = (db.store(), Arc::clone(&barrier), by_serial(&i));
                let (org, w) = (org.id, w.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    store
                        .receive_item(org, &entry, here(&w, Utc::now()))
                        .unwrap()
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect();
        let ok = outcomes.iter().filter(|o| o.result.is_ok()).count();
        assert_eq!(ok, 1, "{outcomes:?}");
        let refused = outcomes.iter().find(|o| o.result.is_err()).unwrap();
        assert!(matches!(refused.result, Err(DomainError::Conflict { .. })));
        let events = item_events(store, &org, i.id);
        assert_eq!(events.len(), before + 1, "one receipt, one event");
        assert_eq!(events[0].0, EventType::ItemUpdated);
    }
}

fn an_early_release_needs_a_hold(_db: &TestDatabase, store: &Store) {
    let (org, sku, w) = seeded(store, "Acme");
    let i = returning(store, &org, &sku, &w);
    let out = store.release_hold(org.id, i.id, Utc::now()).unwrap();
    assert!(matches!(out.result, Err(DomainError::Conflict { .. })));
    store
        .receive_item(org.id, &by_serial(&i), here(&w, Utc::now()))
        .unwrap()
        .result
        .unwrap();
    let out = store
        .release_hold(OrganizationId::new(), i.id, Utc::now())
        .unwrap();
    assert!(matches!(out.result, Err(DomainError::NotFound { .. })));
    store
        .release_hold(org.id, i.id, Utc::now())
        .unwrap()
        .result
        .unwrap();
    let got = store.find_inventory_item(org.id, i.id).unwrap().unwrap();
    assert_eq!(got.deploy_status, DeployStatus::Available);
    assert_eq!(
        (got.hold_start_date, got.unlock_date, got.itad_requested),
        (None, None, None)
    );
    let out = store.release_hold(org.id, i.id, Utc::now()).unwrap();
    assert!(matches!(out.result, Err(DomainError::Conflict { .. })));
}

/// Held items, some due; two stores run the release pass at once, in small
/// batches: each due hold is released once, with one event by SYSTEM; the
/// others stay held.
fn two_release_passes_release_each_due_hold_once(db: &TestDatabase, store: &Store) {
    let (org, sku, w) = seeded(store, "Acme");
    let today = Utc::now().date_naive();
    let mut due = Vec::new();
    let mut later = Vec::new();
    for n in 0..60_u32 {
        let mut i = item(&org, &sku, &w, at(3, 0));
        i.deploy_status = DeployStatus::Unavailable;
        i.deploy_reason = Some(DeployReason::PendingHoldRelease);
        i.hold_start_date = Some(today - Duration::days(30));
        i.itad_requested = Some(n.is_multiple_of(3));
        if n < 50 {
            i.unlock_date = Some(today - Duration::days(i64::from(n % 4)));
            due.push(i.clone());
        } else {
            i.unlock_date = Some(today + Duration::days(1));
            later.push(i.clone());
        }
        store.insert_inventory_item(&i).unwrap();
    }
    let barrier = Arc::new(Barrier::new(2));
    let released: usize = (0..2)
        .map(|_| {
            let (store, barrier) = (db.store(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                equip_domain::services::receipts::release_due_holds(&store, Utc::now(), 7).unwrap()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|h| h.join().unwrap())
        .sum();
    assert_eq!(released, due.len());
    for i in &due {
        let got = store.find_inventory_item(org.id, i.id).unwrap().unwrap();
        assert_eq!(got.unlock_date, None);
        if i.itad_requested == Some(true) {
            assert_eq!(got.deploy_reason, Some(DeployReason::MarkedForDestruction));
        } else {
            assert_eq!(got.deploy_status, DeployStatus::Available);
        }
        let events = item_events(store, &org, i.id);
        assert_eq!(
            events,
            vec![
                (EventType::ItemUpdated, Actor::System),
                (EventType::ItemCreated, Actor::System)
            ]
        );
    }
    for i in &later {
        let got = store.find_inventory_item(org.id, i.id).unwrap().unwrap();
        assert_eq!(got.deploy_reason, Some(DeployReason::PendingHoldRelease));
    }
    assert_eq!(
        equip_domain::services::receipts::release_due_holds(store, Utc::now(), 7).unwrap(),
        0
    );
}

/// Two instances at once: one receives an item on a return requested for an
/// ACTIVE person (a repair), the other cancels that return. Exactly one
/// wins, and the item, the order and the events all tell the same story.
fn a_receipt_racing_a_cancel_gives_one_outcome(db: &TestDatabase, store: &Store) {
    let (org, sku, w) = seeded(store, "Acme");
    let (mut received, mut cancelled) = (0, 0);
    for _ in 0..6 {
        let p = person(&org, &format!("{}@acme.example", Uuid::new_v4().simple()));
        store.insert_person(&p).unwrap();
        let mut i = item(&org, &sku, &w, at(3, 0));
        i.deploy_status = DeployStatus::Deployed;
        i.assignment = Some(Assignment {
            assignee: Assignee::Person(p.id),
            assigned_at: Some(at(3, 0)),
        });
        store.insert_inventory_item(&i).unwrap();
        let request = ReturnRequest {
            person: p.id,
            items: vec![i.id],
            itad_requested: false,
        };
        let order = store
            .create_return_order(org.id, &request, at(4, 0))
            .unwrap()
            .unwrap();
        let barrier = Arc::new(Barrier::new(2));
        let receipt = {
            let (store, barrier, entry) = (db.store(), Arc::clone(&barrier), by_serial(&i));
            let (org, w) = (org.id, w.clone());
            std::thread::spawn(move || {
                barrier.wait();
                store
                    .receive_item(org, &entry, here(&w, Utc::now()))
                    .unwrap()
                    .result
                    .is_ok()
            })
        };
        let cancel = {
            let (store, barrier, id, org) = (db.store(), Arc::clone(&barrier), order.id, org.id);
            std::thread::spawn(move || {
                barrier.wait();
                let change = ReturnOrderChange {
                    retrieval: None,
                    lines: vec![],
                    cancel: true,
                };
                store
                    .change_return_order(org, id, &change, Utc::now())
                    .unwrap()
                    .is_ok()
            })
        };
        let (got_receipt, got_cancel) = (receipt.join().unwrap(), cancel.join().unwrap());
        assert!(
            got_receipt ^ got_cancel,
            "one wins: receipt {got_receipt}, cancel {got_cancel}"
        );
        let now = store.find_inventory_item(org.id, i.id).unwrap().unwrap();
        let order = store.find_return_order(org.id, order.id).unwrap().unwrap();
        let events = item_events(store, &org, i.id);
        if got_receipt {
            received += 1;
            assert_eq!(now.deploy_status, DeployStatus::Unavailable);
            assert_eq!(now.deploy_reason, Some(DeployReason::PendingHoldRelease));
            assert_eq!(order.status, ReturnStatus::Completed);
        } else {
            cancelled += 1;
            assert_eq!(now.deploy_status, DeployStatus::Deployed);
            assert_eq!(now.return_order, None);
            assert_eq!(order.status, ReturnStatus::Cancelled);
        }
        // Created, its return started, then one ending: received or cancelled.
        assert_eq!(events.len(), 3, "{events:?}");
    }
    assert_eq!(received + cancelled, 6);
}
