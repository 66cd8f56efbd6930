//! Joiners' orders and the stock they take or wait for (docs/orders.md,
//! "Backorders" and "Stock levels"): an allocation that takes a watched
//! level below its minimum records `inventory_level.below_minimum` once per
//! crossing, in its own write; a BACKORDERED line is filled by whatever
//! makes stock AVAILABLE (a warehouse receipt of new stock, a hold released
//! early or by the release pass, an item changed back to AVAILABLE), and the
//! background pass fills what no write did (on PostgreSQL: a line whose
//! order another transaction held when the stock arrived).

use equip_domain::event::{Event, EventType};
use equip_domain::ids::{OrderId, OrderLineId};
use equip_domain::inventory_level::StockedLevel;
use equip_domain::orders::order::{Order, OrderLine};
use equip_domain::orders::query::{OrderQuery, RawOrderQuery};
use equip_domain::orders::{LineStatus, OrderStatus};
use equip_domain::ports::{BackorderRepository, ItemWrite, OrderRepository, ReceiptRepository};
use equip_domain::returns::receipt::{ItemKey, ReceiptEntry, Receiving};

use crate::events::all_events;
use crate::joiners::{count, entry, item_status, joiner, load, package};
use crate::support::*;

storage_tests!(
    an_allocation_below_a_levels_minimum_records_one_crossing,
    a_receipt_and_hold_releases_fill_backorders,
    an_item_changed_back_to_available_fills_a_backorder,
    the_background_pass_fills_backorders_no_write_filled,
);

/// A joiner of `org` with `kit`, written at `at(5, n)` (their order's
/// lines are that old: the oldest backorder is filled first).
fn joining(org: &Organization, name: &str, kit: PackageId, n: i64) -> Person {
    let mut p = joiner(org, name, Some(kit), "DE");
    p.created_at = at(5, n);
    p.updated_at = at(5, n);
    p
}

/// The person's one order.
fn order_of(store: &Store, org: &Organization, person: &Person) -> Order {
    let query = OrderQuery::parse(&RawOrderQuery {
        person_id: Some(person.id.to_string()),
        ..RawOrderQuery::default()
    })
    .unwrap();
    let mut orders = store.list_orders(org.id, &query).unwrap().orders;
    assert_eq!(orders.len(), 1, "{orders:?}");
    orders.remove(0)
}

/// The order's single line's status and item.
fn only_line(order: &Order) -> (LineStatus, Option<InventoryItemId>) {
    assert_eq!(order.lines.len(), 1, "{order:?}");
    (order.lines[0].status, order.lines[0].item_id)
}

fn stocked(store: &Store, org: &Organization, id: InventoryLevelId) -> (i64, bool) {
    let l: StockedLevel = store
        .list_inventory_levels(org.id, true)
        .unwrap()
        .into_iter()
        .find(|l| l.level.id == id)
        .unwrap();
    (l.available_quantity, l.below_minimum())
}

fn of_kind(events: &[Event], kind: EventType) -> Vec<&Event> {
    events.iter().filter(|e| e.kind == kind).collect()
}

/// The events `write` records.
fn recorded_by(store: &Store, org: &Organization, write: impl FnOnce()) -> Vec<Event> {
    let seen = all_events(store, org).len();
    write();
    all_events(store, org).split_off(seen)
}

fn held_for_order() -> (String, Option<String>) {
    ("UNAVAILABLE".into(), Some("PENDING_FULFILLMENT".into()))
}

fn an_allocation_below_a_levels_minimum_records_one_crossing(_db: &TestDatabase, store: &Store) {
    let (org, laptop, w) = seeded(store, "Levels");
    let stock: Vec<_> = (0..3).map(|i| item(&org, &laptop, &w, at(3, i))).collect();
    let kit = package(&org, "eng", vec![entry("LAPTOP", &[], 1)]);
    load(
        store,
        &org,
        &ImportBatch {
            packages: vec![kit.clone()],
            inventory: stock,
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let mut l = level(&org, &laptop, &w, at(4, 0));
    l.minimum_quantity = 2;
    let created = store.insert_inventory_level(&l).unwrap();
    assert_eq!(
        (created.available_quantity, created.below_minimum()),
        (3, false)
    );

    // 3 → 2: at the minimum, no event.
    let ada = joining(&org, "ada", kit.id, 0);
    let first = recorded_by(store, &org, || store.insert_person(&ada).unwrap());
    assert_eq!(order_of(store, &org, &ada).status, OrderStatus::Allocated);
    assert!(of_kind(&first, EventType::LevelBelowMinimum).is_empty());
    assert_eq!(stocked(store, &org, l.id), (2, false));

    // 2 → 1: the allocation takes the level below its minimum; the write
    // that creates the order records the crossing with its own events.
    let grace = joining(&org, "grace", kit.id, 1);
    let second = recorded_by(store, &org, || store.insert_person(&grace).unwrap());
    assert_eq!(order_of(store, &org, &grace).status, OrderStatus::Allocated);
    let crossing = of_kind(&second, EventType::LevelBelowMinimum);
    assert_eq!(crossing.len(), 1, "exactly one crossing: {second:?}");
    let crossing = crossing[0];
    assert_eq!(crossing.subject.id, *l.id.as_uuid());
    let changes = crossing.changes();
    assert_eq!(changes["belowMinimum"].to, serde_json::json!(true));
    assert_eq!(changes["availableQuantity"].to, serde_json::json!(1));
    assert_eq!(changes["minimumQuantity"].to, serde_json::json!(2));
    let created = of_kind(&second, EventType::OrderCreated);
    assert_eq!(created.len(), 1);
    assert_eq!(
        crossing.occurred_at, created[0].occurred_at,
        "written by the provisioning change, at its time"
    );
    assert_eq!(of_kind(&second, EventType::ItemUpdated).len(), 1);
    assert_eq!(stocked(store, &org, l.id), (1, true));

    // 1 → 0: still below, the same crossing: nothing recorded.
    let linus = joining(&org, "linus", kit.id, 2);
    let third = recorded_by(store, &org, || store.insert_person(&linus).unwrap());
    assert_eq!(order_of(store, &org, &linus).status, OrderStatus::Allocated);
    assert!(
        of_kind(&third, EventType::LevelBelowMinimum).is_empty(),
        "{third:?}"
    );
    assert_eq!(of_kind(&third, EventType::OrderCreated).len(), 1);
    assert_eq!(stocked(store, &org, l.id), (0, true));

    // Two offboardings give their laptops back (0 → 2: re-armed, no
    // event); the next allocation (2 → 1) is a new crossing.
    store
        .offboard_person(org.id, ada.id, None, at(6, 0))
        .unwrap();
    store
        .offboard_person(org.id, grace.id, None, at(6, 1))
        .unwrap();
    assert_eq!(stocked(store, &org, l.id), (2, false));
    let ken = joining(&org, "ken", kit.id, 3);
    let fourth = recorded_by(store, &org, || store.insert_person(&ken).unwrap());
    assert_eq!(of_kind(&fourth, EventType::LevelBelowMinimum).len(), 1);
    assert_eq!(
        of_kind(&all_events(store, &org), EventType::LevelBelowMinimum).len(),
        2
    );
}

fn a_receipt_and_hold_releases_fill_backorders(db: &TestDatabase, store: &Store) {
    let (org, laptop, w) = seeded(store, "Arrivals");
    let kit = package(&org, "eng", vec![entry("LAPTOP", &[], 1)]);
    load(
        store,
        &org,
        &ImportBatch {
            packages: vec![kit.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let joiners: Vec<Person> = ["ada", "grace", "linus"]
        .iter()
        .zip(0..)
        .map(|(name, n)| joining(&org, name, kit.id, n))
        .collect();
    for p in &joiners {
        store.insert_person(p).unwrap();
        let order = order_of(store, &org, p);
        assert_eq!(order.status, OrderStatus::Pending);
        assert_eq!(only_line(&order), (LineStatus::Backordered, None));
    }

    // New stock announced (AWAITING_ARRIVAL) is not stock yet; its receipt
    // makes it AVAILABLE, and the receipt's write gives it to the oldest
    // backorder.
    let mut arriving = item(&org, &laptop, &w, at(7, 0));
    arriving.deploy_status = DeployStatus::AwaitingArrival;
    arriving.assignment = None;
    store.insert_inventory_item(&arriving).unwrap();
    assert_eq!(count(db, "order_lines WHERE status = 'BACKORDERED'"), 3);
    store
        .receive_item(
            org.id,
            &ReceiptEntry {
                key: ItemKey::Id(arriving.id),
                condition: Some(Condition::New),
            },
            Receiving {
                warehouse: w.id,
                at: Utc::now(),
            },
        )
        .unwrap()
        .result
        .unwrap();
    let ada = order_of(store, &org, &joiners[0]);
    assert_eq!(ada.status, OrderStatus::Allocated);
    assert_eq!(only_line(&ada), (LineStatus::Allocated, Some(arriving.id)));
    assert_eq!(item_status(store, &org, arriving.id), held_for_order());
    assert_eq!(count(db, "order_lines WHERE status = 'BACKORDERED'"), 2);

    // A returned laptop on hold is not stock; released early, it is.
    let today = Utc::now().date_naive();
    let on_hold = |created, unlock| {
        let mut i = item(&org, &laptop, &w, created);
        i.deploy_status = DeployStatus::Unavailable;
        i.deploy_reason = Some(DeployReason::PendingHoldRelease);
        i.hold_start_date = Some(today - Duration::days(30));
        i.unlock_date = Some(unlock);
        i.itad_requested = Some(false);
        i
    };
    let early = on_hold(at(7, 1), today + Duration::days(20));
    store.insert_inventory_item(&early).unwrap();
    assert_eq!(count(db, "order_lines WHERE status = 'BACKORDERED'"), 2);
    store
        .release_hold(org.id, early.id, Utc::now())
        .unwrap()
        .result
        .unwrap();
    let grace = order_of(store, &org, &joiners[1]);
    assert_eq!(only_line(&grace), (LineStatus::Allocated, Some(early.id)));
    assert_eq!(item_status(store, &org, early.id), held_for_order());

    // A hold that is due: the release pass makes it AVAILABLE and fills the
    // last backorder in the same transaction.
    let due = on_hold(at(7, 2), today - Duration::days(1));
    store.insert_inventory_item(&due).unwrap();
    assert_eq!(count(db, "order_lines WHERE status = 'BACKORDERED'"), 1);
    assert_eq!(
        equip_domain::services::receipts::release_due_holds(store, Utc::now(), 8).unwrap(),
        1
    );
    let linus = order_of(store, &org, &joiners[2]);
    assert_eq!(linus.status, OrderStatus::Allocated);
    assert_eq!(only_line(&linus), (LineStatus::Allocated, Some(due.id)));
    assert_eq!(item_status(store, &org, due.id), held_for_order());
    assert_eq!(count(db, "order_lines WHERE status = 'BACKORDERED'"), 0);

    let events = all_events(store, &org);
    assert_eq!(of_kind(&events, EventType::OrderBackordered).len(), 3);
    assert_eq!(
        of_kind(&events, EventType::OrderUpdated).len(),
        3,
        "one fill each"
    );
}

fn an_item_changed_back_to_available_fills_a_backorder(db: &TestDatabase, store: &Store) {
    let (org, laptop, w) = seeded(store, "Repairs");
    let kit = package(&org, "eng", vec![entry("LAPTOP", &[], 1)]);
    let mut broken = item(&org, &laptop, &w, at(3, 0));
    broken.deploy_status = DeployStatus::Unavailable;
    broken.deploy_reason = Some(DeployReason::AwaitingInformation);
    load(
        store,
        &org,
        &ImportBatch {
            packages: vec![kit.clone()],
            inventory: vec![broken.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let ada = joining(&org, "ada", kit.id, 0);
    store.insert_person(&ada).unwrap();
    assert_eq!(
        only_line(&order_of(store, &org, &ada)),
        (LineStatus::Backordered, None)
    );

    let patched = |change: &dyn Fn(&mut InventoryItem)| {
        let current = store
            .find_inventory_item(org.id, broken.id)
            .unwrap()
            .unwrap();
        let mut after = current.clone();
        change(&mut after);
        after.updated_at = current.updated_at + Duration::seconds(1);
        let write = store.update_inventory_item(&current, &after).unwrap();
        assert!(matches!(write, ItemWrite::Written), "{write:?}");
    };
    // A change that leaves it UNAVAILABLE fills nothing.
    patched(&|i| i.description = Some("screen replaced".into()));
    assert_eq!(count(db, "order_lines WHERE status = 'BACKORDERED'"), 1);
    // Back to AVAILABLE: the PATCH's write gives it to the backorder.
    patched(&|i| {
        i.deploy_status = DeployStatus::Available;
        i.deploy_reason = None;
    });
    let order = order_of(store, &org, &ada);
    assert_eq!(order.status, OrderStatus::Allocated);
    assert_eq!(only_line(&order), (LineStatus::Allocated, Some(broken.id)));
    assert_eq!(item_status(store, &org, broken.id), held_for_order());
}

fn the_background_pass_fills_backorders_no_write_filled(db: &TestDatabase, store: &Store) {
    let (org, laptop, w) = seeded(store, "Sweep");
    let phone = crate::joiners::category_sku(&org, "Phone", "PHONE");
    let spare = item(&org, &laptop, &w, at(3, 0));
    load(
        store,
        &org,
        &ImportBatch {
            skus: vec![phone.clone()],
            inventory: vec![spare.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    // An order waiting for a laptop and a phone while a laptop is AVAILABLE:
    // the state a write that skipped the order leaves (written here as
    // provisioning writes an order, without allocating it).
    let p = person(&org, "ada@example.com");
    store.insert_person(&p).unwrap();
    let line = |position: u32, category: &str| OrderLine {
        id: OrderLineId::new(),
        position,
        category_code: category.into(),
        sku_ids: vec![],
        status: LineStatus::Backordered,
        item_id: None,
        shipment_id: None,
        created_at: at(5, 0),
        updated_at: at(5, 0),
    };
    let waiting = Order {
        id: OrderId::new(),
        organization_id: org.id,
        person_id: p.id,
        package_id: None,
        status: OrderStatus::Pending,
        lines: vec![line(0, "LAPTOP"), line(1, "PHONE")],
        shipments: vec![],
        created_at: at(5, 0),
        updated_at: at(5, 0),
    }
    .restated();
    store.put_order_for_tests(&waiting).unwrap();
    assert_eq!(
        item_status(store, &org, spare.id),
        ("AVAILABLE".into(), None)
    );

    let filled = recorded_by(store, &org, || {
        assert_eq!(store.fill_waiting_backorders(Utc::now()).unwrap(), 1);
    });
    let after = store.find_order(org.id, waiting.id).unwrap().unwrap();
    assert_eq!(
        after
            .lines
            .iter()
            .map(|l| (l.status, l.item_id))
            .collect::<Vec<_>>(),
        [
            (LineStatus::Allocated, Some(spare.id)),
            (LineStatus::Backordered, None)
        ],
        "the laptop taken; no phone exists"
    );
    assert_eq!(after.status, OrderStatus::Pending);
    assert_eq!(item_status(store, &org, spare.id), held_for_order());
    assert_eq!(of_kind(&filled, EventType::OrderUpdated).len(), 1);
    assert_eq!(of_kind(&filled, EventType::ItemUpdated).len(), 1);
    // Nothing left that stock could fill: the next pass writes nothing.
    let again = recorded_by(store, &org, || {
        assert_eq!(store.fill_waiting_backorders(Utc::now()).unwrap(), 0);
    });
    assert!(again.is_empty(), "{again:?}");

    if store.backend() == Backend::Postgres {
        a_write_skips_a_held_order_and_the_pass_fills_it(db, store, &org, &laptop, &w);
    }
}

/// PostgreSQL: stock made AVAILABLE while another transaction holds the
/// waiting order is left AVAILABLE by its write (which skips the order
/// rather than wait); the background pass then fills the line.
fn a_write_skips_a_held_order_and_the_pass_fills_it(
    db: &TestDatabase,
    store: &Store,
    org: &Organization,
    laptop: &Sku,
    w: &Warehouse,
) {
    use diesel::connection::SimpleConnection;
    use diesel::Connection;

    let kit = package(org, "eng", vec![entry("LAPTOP", &[], 1)]);
    load(
        store,
        org,
        &ImportBatch {
            packages: vec![kit.clone()],
            ..ImportBatch::default()
        },
    )
    .unwrap();
    let grace = joining(org, "grace", kit.id, 9);
    store.insert_person(&grace).unwrap();
    let order = order_of(store, org, &grace);
    assert_eq!(only_line(&order), (LineStatus::Backordered, None));

    let mut holder = diesel::PgConnection::establish(db.url()).unwrap();
    holder
        .batch_execute(&format!(
            "BEGIN; SELECT id FROM orders WHERE id = '{}' FOR UPDATE",
            order.id
        ))
        .unwrap();
    let arrived = item(org, laptop, w, at(8, 0));
    store.insert_inventory_item(&arrived).unwrap();
    holder.batch_execute("ROLLBACK").unwrap();
    assert_eq!(
        only_line(&order_of(store, org, &grace)),
        (LineStatus::Backordered, None),
        "the create skipped the held order"
    );
    assert_eq!(
        item_status(store, org, arrived.id),
        ("AVAILABLE".into(), None)
    );

    assert_eq!(store.fill_waiting_backorders(Utc::now()).unwrap(), 1);
    let order = order_of(store, org, &grace);
    assert_eq!(order.status, OrderStatus::Allocated);
    assert_eq!(only_line(&order), (LineStatus::Allocated, Some(arrived.id)));
    assert_eq!(item_status(store, org, arrived.id), held_for_order());
}
