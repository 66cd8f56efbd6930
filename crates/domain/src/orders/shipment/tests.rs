use chrono::{Duration, TimeZone};

use super::*;
use crate::event::EventType;
use crate::ids::{OrderId, OrganizationId, PersonId};
use crate::orders::order::{written, OrderLine};
use crate::orders::OrderStatus;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 28, 9, 0, 0).unwrap()
}

fn line(position: u32, status: LineStatus) -> OrderLine {
    OrderLine {
        id: OrderLineId::new(),
        position,
        category_code: "LAPTOP".into(),
        sku_ids: vec![],
        status,
        item_id: status.holds_item().then(InventoryItemId::new),
        shipment_id: None,
        created_at: t0(),
        updated_at: t0(),
    }
}

fn order(lines: Vec<OrderLine>) -> Order {
    Order {
        id: OrderId::new(),
        organization_id: OrganizationId::new(),
        person_id: PersonId::new(),
        package_id: None,
        status: OrderStatus::Pending,
        lines,
        shipments: vec![],
        created_at: t0(),
        updated_at: t0(),
    }
    .restated()
}

fn asking(ids: &[OrderLineId]) -> NewShipment {
    NewShipment {
        line_ids: ids.to_vec(),
        carrier: Some("DHL".into()),
        tracking_code: Some("JD0001".into()),
        tracking_link: Some("https://track.example/JD0001".into()),
    }
}

fn field(e: &DomainError) -> (&'static str, String) {
    match e {
        DomainError::Invalid { field, .. } => ("invalid", field.clone()),
        DomainError::Conflict { entity, .. } => ("conflict", entity.clone()),
        DomainError::NotFound { entity, .. } => ("not_found", entity.clone()),
        other => ("other", other.to_string()),
    }
}

#[test]
fn shipping_moves_the_lines_and_makes_a_shipment() {
    let o = order(vec![
        line(0, LineStatus::Allocated),
        line(1, LineStatus::Allocated),
        line(2, LineStatus::Backordered),
    ]);
    let at = t0() + Duration::hours(1);
    let (after, s) = ship(&o, &asking(&[o.lines[1].id]), at).unwrap();
    assert_eq!(s.status, ShipmentStatus::Shipped);
    assert_eq!(s.line_ids, vec![o.lines[1].id]);
    assert_eq!(s.shipped_at, at);
    assert_eq!(s.delivered_at, None);
    assert_eq!(s.carrier.as_deref(), Some("DHL"));
    assert_eq!(after.lines[1].status, LineStatus::Shipped);
    assert_eq!(after.lines[1].shipment_id, Some(s.id));
    assert_eq!(after.lines[1].updated_at, at);
    assert_eq!(after.lines[0], o.lines[0]);
    assert_eq!(after.lines[2], o.lines[2]);
    assert_eq!(after.status, OrderStatus::Shipped);
    assert_eq!(after.shipments, vec![s.clone()]);
    assert_eq!(after.updated_at, at);
    assert_eq!(shipped_items(&after, &s), vec![o.lines[1].item_id.unwrap()]);
    let events = written(Some(&o), &after);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].kind, EventType::OrderUpdated);
}

#[test]
fn shipping_checks_the_request() {
    let o = order(vec![line(0, LineStatus::Allocated)]);
    let id = o.lines[0].id;
    let cases: Vec<(NewShipment, (&str, &str))> = vec![
        (asking(&[]), ("invalid", "lineIds")),
        (asking(&[id, id]), ("invalid", "lineIds[1]")),
        (
            asking(
                &vec![OrderLineId::new(); 1]
                    .into_iter()
                    .chain((0..MAX_SHIPMENT_LINES).map(|_| OrderLineId::new()))
                    .collect::<Vec<_>>(),
            ),
            ("invalid", "lineIds"),
        ),
        (
            NewShipment {
                carrier: Some("x".repeat(SHORT_TEXT_MAX + 1)),
                ..asking(&[id])
            },
            ("invalid", "carrier"),
        ),
        (
            NewShipment {
                carrier: Some("  ".into()),
                ..asking(&[id])
            },
            ("invalid", "carrier"),
        ),
        (
            NewShipment {
                tracking_code: Some("a\nb".into()),
                ..asking(&[id])
            },
            ("invalid", "trackingCode"),
        ),
        (
            NewShipment {
                tracking_link: Some("ftp://track.example/1".into()),
                ..asking(&[id])
            },
            ("invalid", "trackingLink"),
        ),
        (
            NewShipment {
                tracking_link: Some("track.example/1".into()),
                ..asking(&[id])
            },
            ("invalid", "trackingLink"),
        ),
        (
            NewShipment {
                tracking_link: Some(format!("https://t.example/{}", "a".repeat(LONG_TEXT_MAX))),
                ..asking(&[id])
            },
            ("invalid", "trackingLink"),
        ),
    ];
    for (new, (kind, name)) in cases {
        let e = ship(&o, &new, t0()).unwrap_err();
        assert_eq!(field(&e), (kind, name.to_owned()), "{new:?}");
    }
    let bare = NewShipment {
        line_ids: vec![id],
        ..NewShipment::default()
    };
    assert!(ship(&o, &bare, t0()).is_ok());
    assert!(check_tracking_link("http://t.example/?q=1").is_ok());
}

#[test]
fn shipping_names_a_line_that_is_not_the_orders_or_not_allocated() {
    let o = order(vec![
        line(0, LineStatus::Allocated),
        line(1, LineStatus::Backordered),
        line(2, LineStatus::Cancelled),
    ]);
    let other = order(vec![line(0, LineStatus::Allocated)]);
    let e = ship(&o, &asking(&[o.lines[0].id, other.lines[0].id]), t0()).unwrap_err();
    assert_eq!(field(&e), ("invalid", "lineIds[1]".into()));
    let e = ship(&o, &asking(&[o.lines[0].id, o.lines[1].id]), t0()).unwrap_err();
    assert_eq!(field(&e), ("conflict", "lineIds[1]".into()));
    assert!(e.to_string().contains("BACKORDERED"), "{e}");
    let e = ship(&o, &asking(&[o.lines[2].id]), t0()).unwrap_err();
    assert_eq!(field(&e), ("conflict", "lineIds[0]".into()));
    // A line shipped once cannot ship again.
    let (shipped, _) = ship(&o, &asking(&[o.lines[0].id]), t0()).unwrap();
    let e = ship(&shipped, &asking(&[o.lines[0].id]), t0()).unwrap_err();
    assert_eq!(field(&e), ("conflict", "lineIds[0]".into()));
    assert!(e.to_string().contains("SHIPPED"), "{e}");
}

fn shipped_order() -> (Order, Shipment) {
    let o = order(vec![
        line(0, LineStatus::Allocated),
        line(1, LineStatus::Allocated),
    ]);
    let ids: Vec<_> = o.lines.iter().map(|l| l.id).collect();
    ship(&o, &asking(&ids[..1]), t0()).unwrap()
}

#[test]
fn delivery_delivers_the_lines_and_their_items() {
    let (o, s) = shipped_order();
    let at = t0() + Duration::days(2);
    let d = deliver(&o, s.id, ShipmentStatus::Delivered, at).unwrap();
    assert_eq!(d.shipment.status, ShipmentStatus::Delivered);
    assert_eq!(d.shipment.delivered_at, Some(at));
    assert_eq!(d.shipment.updated_at, at);
    assert_eq!(d.delivered, vec![o.lines[0].item_id.unwrap()]);
    assert_eq!(d.order.lines[0].status, LineStatus::Delivered);
    assert_eq!(d.order.lines[0].item_id, o.lines[0].item_id);
    assert_eq!(d.order.lines[1], o.lines[1]);
    assert_eq!(d.order.status, OrderStatus::Shipped);
    assert_eq!(d.order.shipments, vec![d.shipment.clone()]);
    // The rest shipped and delivered: the order is DELIVERED.
    let (o2, s2) = ship(&d.order, &asking(&[o.lines[1].id]), at).unwrap();
    let d2 = deliver(&o2, s2.id, ShipmentStatus::Delivered, at).unwrap();
    assert_eq!(d2.order.status, OrderStatus::Delivered);
    assert_eq!(d2.order.shipments.len(), 2);
}

#[test]
fn delivery_exception_then_delivered() {
    let (o, s) = shipped_order();
    let at = t0() + Duration::days(1);
    let x = deliver(&o, s.id, ShipmentStatus::DeliveryException, at).unwrap();
    assert_eq!(x.shipment.status, ShipmentStatus::DeliveryException);
    assert_eq!(x.shipment.delivered_at, None);
    assert!(x.delivered.is_empty());
    assert_eq!(x.order.lines, o.lines);
    assert_eq!(x.order.status, OrderStatus::Shipped);
    // Again: no change.
    let again = deliver(&x.order, s.id, ShipmentStatus::DeliveryException, at).unwrap();
    assert_eq!(again.order, x.order);
    let d = deliver(&x.order, s.id, ShipmentStatus::Delivered, at).unwrap();
    assert_eq!(d.order.lines[0].status, LineStatus::Delivered);
    assert_eq!(d.delivered.len(), 1);
}

#[test]
fn delivered_is_final_and_shipped_is_not_a_move() {
    let (o, s) = shipped_order();
    let at = t0() + Duration::days(1);
    let d = deliver(&o, s.id, ShipmentStatus::Delivered, at).unwrap();
    let same = deliver(
        &d.order,
        s.id,
        ShipmentStatus::Delivered,
        at + Duration::days(1),
    )
    .unwrap();
    assert_eq!(same.order, d.order);
    assert!(same.delivered.is_empty());
    assert_eq!(same.shipment.delivered_at, Some(at));
    let e = deliver(&d.order, s.id, ShipmentStatus::DeliveryException, at).unwrap_err();
    assert_eq!(field(&e), ("conflict", "status".into()));
    let e = deliver(&o, s.id, ShipmentStatus::Shipped, at).unwrap_err();
    assert_eq!(field(&e), ("invalid", "status".into()));
    let e = deliver(&o, ShipmentId::new(), ShipmentStatus::Delivered, at).unwrap_err();
    assert_eq!(field(&e).0, "not_found");
}
