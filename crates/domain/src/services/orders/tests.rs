#![allow(clippy::unwrap_used)]

use chrono::{DateTime, Duration, Utc};

use super::*;
use crate::event::EventType;
use crate::ids::{InventoryItemId, OrderLineId, PersonId, SkuId, WarehouseId};
use crate::inventory::{
    Assignee, Assignment, Condition, DeployReason, DeployStatus, InventoryItem, SuppliedBy,
};
use crate::orders::order::OrderLine;
use crate::orders::{LineStatus, OrderStatus};
use crate::testing::{fixtures, InMemoryStore};

fn allocated_item(
    org: OrganizationId,
    sku: SkuId,
    warehouse: WarehouseId,
    at: DateTime<Utc>,
) -> InventoryItem {
    InventoryItem {
        id: InventoryItemId::new(),
        organization_id: org,
        sku_id: sku,
        serial_number: None,
        imei: vec![],
        deploy_status: DeployStatus::Unavailable,
        deploy_reason: Some(DeployReason::PendingFulfillment),
        condition: Condition::New,
        renewal_date: None,
        renewal_date_updated_by: None,
        billing_start_date: None,
        billing_end_date: None,
        procurement_method: None,
        assignment: Some(Assignment {
            assignee: Assignee::Warehouse(warehouse),
            assigned_at: Some(at),
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
        created_at: at,
        updated_at: at,
    }
}

struct Setup {
    store: InMemoryStore,
    org: OrganizationId,
    order: Order,
    items: Vec<InventoryItem>,
}

/// An order of two ALLOCATED lines (items in stock) and a BACKORDERED one.
fn setup() -> Setup {
    let store = InMemoryStore::default();
    let seeded = fixtures::seed(&store);
    let org = seeded.org.id;
    let at = Utc::now() - Duration::hours(1);
    let items: Vec<_> = (0..2)
        .map(|_| allocated_item(org, seeded.sku.id, seeded.warehouse.id, at))
        .collect();
    let line = |position: u32, item: Option<InventoryItemId>| OrderLine {
        id: OrderLineId::new(),
        position,
        category_code: "LAPTOP".into(),
        sku_ids: vec![seeded.sku.id],
        status: if item.is_some() {
            LineStatus::Allocated
        } else {
            LineStatus::Backordered
        },
        item_id: item,
        shipment_id: None,
        created_at: at,
        updated_at: at,
    };
    let order = Order {
        id: OrderId::new(),
        organization_id: org,
        person_id: PersonId::new(),
        package_id: None,
        status: OrderStatus::Pending,
        lines: vec![
            line(0, Some(items[0].id)),
            line(1, Some(items[1].id)),
            line(2, None),
        ],
        shipments: vec![],
        created_at: at,
        updated_at: at,
    }
    .restated();
    store.state().inventory.extend(items.iter().cloned());
    store.put_order(&order);
    Setup {
        store,
        org,
        order,
        items,
    }
}

fn item(store: &InMemoryStore, id: InventoryItemId) -> InventoryItem {
    store
        .state()
        .inventory
        .iter()
        .find(|i| i.id == id)
        .cloned()
        .unwrap()
}

fn kinds(store: &InMemoryStore) -> Vec<EventType> {
    store.state().events.iter().map(|e| e.kind).collect()
}

#[test]
fn lists_and_finds_orders_of_the_organization_only() {
    let Setup {
        store, org, order, ..
    } = setup();
    let (_, page) = list_orders(&store, org, &RawOrderQuery::default()).unwrap();
    assert_eq!(
        (page.total_records, page.orders.clone()),
        (1, vec![order.clone()])
    );
    let raw = RawOrderQuery {
        status: Some("ALLOCATED".into()),
        ..RawOrderQuery::default()
    };
    assert_eq!(list_orders(&store, org, &raw).unwrap().1.total_records, 0);
    let raw = RawOrderQuery {
        person_id: Some(order.person_id.to_string()),
        status: Some("pending".into()),
        ..RawOrderQuery::default()
    };
    assert_eq!(list_orders(&store, org, &raw).unwrap().1.total_records, 1);
    assert_eq!(get_order(&store, org, order.id).unwrap(), order);
    let other = OrganizationId::new();
    assert!(matches!(
        get_order(&store, other, order.id),
        Err(DomainError::NotFound { .. })
    ));
    assert_eq!(
        list_orders(&store, other, &RawOrderQuery::default())
            .unwrap()
            .1
            .total_records,
        0
    );
}

#[test]
fn shipping_then_delivering_moves_the_items_to_the_person() {
    let Setup {
        store,
        org,
        order,
        items,
    } = setup();
    let new = NewShipment {
        line_ids: vec![order.lines[0].id],
        carrier: Some("UPS".into()),
        ..NewShipment::default()
    };
    let s = ship_order(&store, org, order.id, &new).unwrap();
    assert_eq!(s.status, ShipmentStatus::Shipped);
    let shipped = item(&store, items[0].id);
    assert_eq!(
        (shipped.deploy_status, shipped.deploy_reason),
        (DeployStatus::Unavailable, Some(DeployReason::InTransit))
    );
    assert_eq!(item(&store, items[1].id), items[1]);
    let now = get_order(&store, org, order.id).unwrap();
    assert_eq!(now.status, OrderStatus::Shipped);
    assert_eq!(now.lines[0].status, LineStatus::Shipped);
    assert_eq!(
        kinds(&store),
        vec![
            EventType::OrderCreated,
            EventType::OrderBackordered,
            EventType::OrderUpdated,
            EventType::ItemUpdated
        ]
    );
    // Shipping the same line again: 409.
    assert!(matches!(
        ship_order(&store, org, order.id, &new),
        Err(DomainError::Conflict { .. })
    ));

    let d = record_delivery(&store, org, order.id, s.id, ShipmentStatus::Delivered).unwrap();
    let at = d.delivered_at.unwrap();
    let delivered = item(&store, items[0].id);
    assert_eq!(delivered.deploy_status, DeployStatus::Deployed);
    assert_eq!(delivered.deploy_reason, None);
    assert_eq!(
        delivered.assignment,
        Some(Assignment {
            assignee: Assignee::Person(order.person_id),
            assigned_at: Some(at),
        })
    );
    let now = get_order(&store, org, order.id).unwrap();
    assert_eq!(now.lines[0].status, LineStatus::Delivered);
    assert_eq!(now.shipments, vec![d.clone()]);
    let events = store.state().events.len();
    // The same status again: nothing written.
    let again = record_delivery(&store, org, order.id, s.id, ShipmentStatus::Delivered).unwrap();
    assert_eq!(again, d);
    assert_eq!(store.state().events.len(), events);
    assert!(matches!(
        record_delivery(
            &store,
            org,
            order.id,
            s.id,
            ShipmentStatus::DeliveryException
        ),
        Err(DomainError::Conflict { .. })
    ));
}

#[test]
fn refusals_write_nothing() {
    let Setup {
        store, org, order, ..
    } = setup();
    let events = store.state().events.len();
    let cases = [
        ship_order(&store, org, order.id, &NewShipment::default()),
        ship_order(
            &store,
            org,
            order.id,
            &NewShipment {
                line_ids: vec![order.lines[2].id],
                ..NewShipment::default()
            },
        ),
        ship_order(
            &store,
            org,
            OrderId::new(),
            &NewShipment {
                line_ids: vec![order.lines[0].id],
                ..NewShipment::default()
            },
        ),
        record_delivery(
            &store,
            org,
            order.id,
            ShipmentId::new(),
            ShipmentStatus::Delivered,
        ),
        record_delivery(
            &store,
            org,
            order.id,
            ShipmentId::new(),
            ShipmentStatus::Shipped,
        ),
    ];
    let statuses: Vec<&str> = cases
        .iter()
        .map(|r| match r {
            Err(DomainError::Invalid { .. }) => "400",
            Err(DomainError::Conflict { .. }) => "409",
            Err(DomainError::NotFound { .. }) => "404",
            _ => "other",
        })
        .collect();
    assert_eq!(statuses, ["400", "409", "404", "404", "400"]);
    assert_eq!(store.state().events.len(), events);
    assert_eq!(get_order(&store, org, order.id).unwrap(), order);
}
