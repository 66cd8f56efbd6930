//! Joiners' orders in the store: an order written (as provisioning writes
//! it) is read back and listed; shipping and delivery write the order, its
//! lines and shipment, the items (IN_TRANSIT, then DEPLOYED to the person)
//! with their events and listing rows; refusals write nothing; and two
//! shipments of one line from two stores (as two server instances) give
//! one shipment and one 409.

use equip_domain::event::{EventType, SubjectType};
use equip_domain::ids::{OrderId, OrderLineId, ShipmentId};
use equip_domain::orders::order::{Order, OrderLine};
use equip_domain::orders::query::{OrderQuery, RawOrderQuery};
use equip_domain::orders::shipment::NewShipment;
use equip_domain::orders::{LineStatus, OrderStatus, ShipmentStatus};
use equip_domain::ports::OrderRepository;
use equip_domain::DomainError;

use crate::events::all_events;
use crate::support::*;

storage_tests!(
    an_order_is_written_read_and_listed,
    shipping_and_delivery_move_the_order_and_its_items,
    refusals_write_nothing,
    two_shipments_of_one_line_from_two_stores_give_one_shipment,
);

/// A person of `org` with an order of `n` ALLOCATED lines (each holding a
/// new item of `s` in `w`) and one BACKORDERED line, written as
/// provisioning writes it.
fn joiner(
    store: &Store,
    org: &Organization,
    s: &Sku,
    w: &Warehouse,
    name: &str,
    n: usize,
    created: DateTime<Utc>,
) -> (Person, Order) {
    let p = person(org, &format!("{name}@example.com"));
    store.insert_person(&p).unwrap();
    let mut lines = Vec::new();
    for i in 0..=n {
        let held = (i < n).then(|| {
            let it = item(org, s, w, at(2, i64::try_from(i).unwrap()));
            store.insert_inventory_item(&it).unwrap();
            it.id
        });
        lines.push(OrderLine {
            id: OrderLineId::new(),
            position: u32::try_from(i).unwrap(),
            category_code: s.category_code.clone(),
            sku_ids: vec![s.id],
            status: if held.is_some() {
                LineStatus::Allocated
            } else {
                LineStatus::Backordered
            },
            item_id: held,
            shipment_id: None,
            created_at: created,
            updated_at: created,
        });
    }
    let order = Order {
        id: OrderId::new(),
        organization_id: org.id,
        person_id: p.id,
        package_id: None,
        status: OrderStatus::Pending,
        lines,
        shipments: vec![],
        created_at: created,
        updated_at: created,
    }
    .restated();
    store.put_order_for_tests(&order).unwrap();
    (p, order)
}

fn query(raw: RawOrderQuery) -> OrderQuery {
    OrderQuery::parse(&raw).unwrap()
}

fn ship_all(order: &Order) -> NewShipment {
    NewShipment {
        line_ids: order
            .lines
            .iter()
            .filter(|l| l.status == LineStatus::Allocated)
            .map(|l| l.id)
            .collect(),
        carrier: Some("DHL".into()),
        tracking_code: Some("JD014600".into()),
        tracking_link: Some("https://track.example/JD014600".into()),
    }
}

fn an_order_is_written_read_and_listed(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let (ada, first) = joiner(store, &org, &s, &w, "ada", 2, at(3, 0));
    let (bob, second) = joiner(store, &org, &s, &w, "bob", 0, at(4, 0));
    assert_eq!(first.status, OrderStatus::Pending);
    assert_eq!(
        store.find_order(org.id, first.id).unwrap(),
        Some(first.clone())
    );
    // The held items are UNAVAILABLE, PENDING_FULFILLMENT.
    let held = store
        .find_inventory_item(org.id, first.lines[0].item_id.unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(
        (held.deploy_status, held.deploy_reason),
        (
            DeployStatus::Unavailable,
            Some(DeployReason::PendingFulfillment)
        )
    );
    // Newest first; filters; paging.
    let all = store
        .list_orders(org.id, &query(RawOrderQuery::default()))
        .unwrap();
    assert_eq!(all.total_records, 2);
    assert_eq!(all.orders, vec![second.clone(), first.clone()]);
    let of_ada = store
        .list_orders(
            org.id,
            &query(RawOrderQuery {
                person_id: Some(ada.id.to_string()),
                ..RawOrderQuery::default()
            }),
        )
        .unwrap();
    assert_eq!(of_ada.orders, vec![first.clone()]);
    let page2 = store
        .list_orders(
            org.id,
            &query(RawOrderQuery {
                page: Some("2".into()),
                size: Some("1".into()),
                ..RawOrderQuery::default()
            }),
        )
        .unwrap();
    assert_eq!(
        (page2.total_records, page2.orders),
        (2, vec![first.clone()])
    );
    let shipped = store
        .list_orders(
            org.id,
            &query(RawOrderQuery {
                status: Some("SHIPPED".into()),
                ..RawOrderQuery::default()
            }),
        )
        .unwrap();
    assert_eq!(shipped.total_records, 0);
    // One open order per person.
    let mut twice = second.clone();
    twice.id = OrderId::new();
    for l in &mut twice.lines {
        l.id = OrderLineId::new();
    }
    assert!(matches!(
        store.put_order_for_tests(&twice),
        Err(StoreError::Duplicate { .. })
    ));
    let _ = bob;
    // Another organization sees nothing.
    let other = new_org(store, "Other");
    assert_eq!(store.find_order(other.id, first.id).unwrap(), None);
    assert_eq!(
        store
            .list_orders(other.id, &query(RawOrderQuery::default()))
            .unwrap()
            .total_records,
        0
    );
    // The events: created (and backordered: a line waits for stock).
    let events = all_events(store, &org);
    let of_first: Vec<EventType> = events
        .iter()
        .filter(|e| e.subject.kind == SubjectType::Order && e.subject.id == *first.id.as_uuid())
        .map(|e| e.kind)
        .collect();
    assert_eq!(
        of_first,
        vec![EventType::OrderCreated, EventType::OrderBackordered]
    );
}

fn shipping_and_delivery_move_the_order_and_its_items(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let (ada, order) = joiner(store, &org, &s, &w, "ada", 2, at(3, 0));
    let before = all_events(store, &org).len();
    let (after, shipment) = store
        .ship_order(org.id, order.id, &ship_all(&order), at(5, 7))
        .unwrap()
        .unwrap();
    assert_eq!(shipment.status, ShipmentStatus::Shipped);
    assert_eq!(shipment.line_ids.len(), 2);
    assert_eq!(shipment.shipped_at, at(5, 7));
    assert_eq!(after.status, OrderStatus::Shipped);
    assert_eq!(
        store.find_order(org.id, order.id).unwrap(),
        Some(after.clone())
    );
    for line in &order.lines[..2] {
        let it = store
            .find_inventory_item(org.id, line.item_id.unwrap())
            .unwrap()
            .unwrap();
        assert_eq!(
            (it.deploy_status, it.deploy_reason),
            (DeployStatus::Unavailable, Some(DeployReason::InTransit))
        );
    }
    let kinds: Vec<EventType> = all_events(store, &org)[before..]
        .iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(
        kinds,
        vec![
            EventType::OrderUpdated,
            EventType::ItemUpdated,
            EventType::ItemUpdated
        ]
    );

    // A delivery exception, then the delivery.
    let (_, x) = store
        .record_delivery(
            org.id,
            order.id,
            shipment.id,
            ShipmentStatus::DeliveryException,
            at(6, 0),
        )
        .unwrap()
        .unwrap();
    assert_eq!(
        (x.status, x.delivered_at),
        (ShipmentStatus::DeliveryException, None)
    );
    let (delivered, d) = store
        .record_delivery(
            org.id,
            order.id,
            shipment.id,
            ShipmentStatus::Delivered,
            at(7, 9),
        )
        .unwrap()
        .unwrap();
    assert_eq!(
        (d.status, d.delivered_at),
        (ShipmentStatus::Delivered, Some(at(7, 9)))
    );
    assert_eq!(delivered.lines[0].status, LineStatus::Delivered);
    assert_eq!(
        delivered.status,
        OrderStatus::Shipped,
        "a line is still BACKORDERED"
    );
    assert_eq!(
        store.find_order(org.id, order.id).unwrap(),
        Some(delivered.clone())
    );
    for line in &order.lines[..2] {
        let it = store
            .find_inventory_item(org.id, line.item_id.unwrap())
            .unwrap()
            .unwrap();
        assert_eq!(
            (it.deploy_status, it.deploy_reason),
            (DeployStatus::Deployed, None)
        );
        assert_eq!(
            it.assignment,
            Some(Assignment {
                assignee: Assignee::new(AssigneeType::Person, *ada.id.as_uuid()),
                assigned_at: Some(at(7, 9)),
            })
        );
    }
    // The listing shows them as the person's.
    let listed = store
        .list_inventory(
            org.id,
            &InventoryQuery::parse(&RawInventoryQuery {
                person_id: Some(ada.id.to_string()),
                ..RawInventoryQuery::default()
            })
            .unwrap(),
        )
        .unwrap();
    assert_eq!(listed.total_records, 2);
    // The same status again writes nothing; DELIVERED is final.
    let n = all_events(store, &org).len();
    let (_, again) = store
        .record_delivery(
            org.id,
            order.id,
            shipment.id,
            ShipmentStatus::Delivered,
            at(8, 0),
        )
        .unwrap()
        .unwrap();
    assert_eq!(again, d);
    assert_eq!(all_events(store, &org).len(), n);
    assert!(matches!(
        store
            .record_delivery(
                org.id,
                order.id,
                shipment.id,
                ShipmentStatus::DeliveryException,
                at(8, 0)
            )
            .unwrap(),
        Err(DomainError::Conflict { .. })
    ));
}

fn refusals_write_nothing(_db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let (_, order) = joiner(store, &org, &s, &w, "ada", 1, at(3, 0));
    let other = new_org(store, "Other");
    let n = all_events(store, &org).len();
    let backordered = NewShipment {
        line_ids: vec![order.lines[1].id],
        ..NewShipment::default()
    };
    assert!(matches!(
        store
            .ship_order(org.id, order.id, &backordered, at(5, 0))
            .unwrap(),
        Err(DomainError::Conflict { .. })
    ));
    let unknown = NewShipment {
        line_ids: vec![OrderLineId::new()],
        ..NewShipment::default()
    };
    assert!(matches!(
        store
            .ship_order(org.id, order.id, &unknown, at(5, 0))
            .unwrap(),
        Err(DomainError::Invalid { .. })
    ));
    assert!(matches!(
        store
            .ship_order(other.id, order.id, &ship_all(&order), at(5, 0))
            .unwrap(),
        Err(DomainError::NotFound { .. })
    ));
    assert!(matches!(
        store
            .record_delivery(
                org.id,
                order.id,
                ShipmentId::new(),
                ShipmentStatus::Delivered,
                at(5, 0)
            )
            .unwrap(),
        Err(DomainError::NotFound { .. })
    ));
    let (_, shipment) = store
        .ship_order(org.id, order.id, &ship_all(&order), at(5, 0))
        .unwrap()
        .unwrap();
    let n2 = all_events(store, &org).len();
    assert_eq!(n2, n + 2);
    assert!(matches!(
        store
            .record_delivery(
                other.id,
                order.id,
                shipment.id,
                ShipmentStatus::Delivered,
                at(6, 0)
            )
            .unwrap(),
        Err(DomainError::NotFound { .. })
    ));
    assert_eq!(all_events(store, &org).len(), n2);
}

fn two_shipments_of_one_line_from_two_stores_give_one_shipment(db: &TestDatabase, store: &Store) {
    let (org, s, w) = seeded(store, "Acme");
    let (_, order) = joiner(store, &org, &s, &w, "ada", 1, at(3, 0));
    let before = all_events(store, &org).len();
    let barrier = Arc::new(Barrier::new(2));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let (store, barrier, org, id) = (db.store(), Arc::clone(&barrier), org.id, order.id);
            let new = ship_all(&order);
            std::thread::spawn(move || {
                barrier.wait();
                store.ship_order(org, id, &new, Utc::now()).unwrap()
            })
        })
        .collect();
    let outcomes: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert_eq!(
        outcomes.iter().filter(|o| o.is_ok()).count(),
        1,
        "{outcomes:?}"
    );
    assert!(outcomes
        .iter()
        .any(|o| matches!(o, Err(DomainError::Conflict { .. }))));
    let now = store.find_order(org.id, order.id).unwrap().unwrap();
    assert_eq!(now.shipments.len(), 1);
    assert_eq!(
        all_events(store, &org).len() - before,
        2,
        "one order event, one item event"
    );
}
