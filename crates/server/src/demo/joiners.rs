//! The demo's joiners, after its import (which already made the orders of
//! its new joiners, through the same rules as SCIM: docs/orders.md): their
//! orders moved along through the API's rules, so that the console and the
//! API show every stage out of the box:
//!
//! 1. one order left ALLOCATED;
//! 2. one SHIPPED, with tracking;
//! 3. one DELIVERED: its items DEPLOYED to the joiner;
//! 4. one whose shipment hit a DELIVERY_EXCEPTION;
//! 5. and a joiner whose order waits for stock (BACKORDERED): more joiners
//!    of the package with the scarcest category are provisioned until one
//!    finds its stock gone (at most [`MAX_EXTRA`]).
//!
//! The orders are taken oldest first; the same seed gives the same joiners.

use chrono::Duration;

use equip_domain::error::DomainError;
use equip_domain::ids::PersonId;
use equip_domain::orders::order::Order;
use equip_domain::orders::query::{OrderQuery, RawOrderQuery};
use equip_domain::orders::shipment::NewShipment;
use equip_domain::orders::{LineStatus, OrderStatus, ShipmentStatus};
use equip_domain::ports::{OrderRepository, PersonRepository};

use super::{DemoConfig, Generator};

/// What the joiners need of a store.
pub trait JoinerPorts: PersonRepository + OrderRepository {}
impl<T: PersonRepository + OrderRepository> JoinerPorts for T {}

/// Joiners added at most while looking for a backorder.
const MAX_EXTRA: u128 = 20;

/// What the demo's joiners came to: orders moved, and whether one waits for
/// stock.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Joiners {
    /// Orders shipped, delivered or stopped by an exception.
    pub moved: usize,
    /// Whether a joiner's order has a BACKORDERED line.
    pub backordered: bool,
}

/// Moves the demo's joiners' orders along and provisions a backordered one.
///
/// # Errors
/// A store failure, or (a bug) a move the rules refuse.
pub fn run(ports: &dyn JoinerPorts, config: &DemoConfig) -> Result<Joiners, DomainError> {
    let org = config.organization;
    let mut orders = all_orders(ports, config)?;
    orders.sort_by_key(|o| (o.created_at, o.id));
    let allocated: Vec<&Order> = orders
        .iter()
        .filter(|o| o.status == OrderStatus::Allocated)
        .collect();
    let mut moved = 0;
    // The first stays ALLOCATED; the next three move.
    let stages = [
        None,
        Some(ShipmentStatus::Shipped),
        Some(ShipmentStatus::Delivered),
        Some(ShipmentStatus::DeliveryException),
    ];
    for (n, (order, stage)) in allocated.iter().zip(stages).enumerate() {
        let Some(stage) = stage else { continue };
        let at = config.now + Duration::minutes(i64::try_from(n).unwrap_or(0));
        let shipment = NewShipment {
            line_ids: order
                .lines
                .iter()
                .filter(|l| l.status == LineStatus::Allocated)
                .map(|l| l.id)
                .collect(),
            carrier: Some("DHL Express".into()),
            tracking_code: Some(format!("JD{:010}", 1000 + n)),
            tracking_link: Some(format!(
                "https://www.dhl.com/track?tracking-id=JD{:010}",
                1000 + n
            )),
        };
        let (_, sent) = ports.ship_order(org, order.id, &shipment, at)??;
        if stage != ShipmentStatus::Shipped {
            ports.record_delivery(org, order.id, sent.id, stage, at + Duration::days(2))??;
        }
        moved += 1;
    }
    let backordered = orders.iter().any(has_backorder) || backorder(ports, config)?;
    Ok(Joiners { moved, backordered })
}

fn has_backorder(order: &Order) -> bool {
    order
        .lines
        .iter()
        .any(|l| l.status == LineStatus::Backordered)
}

/// Provisions more joiners like the demo's first new joiner with a package,
/// until one's order waits for stock; whether one does.
fn backorder(ports: &dyn JoinerPorts, config: &DemoConfig) -> Result<bool, DomainError> {
    let today = config.now.date_naive();
    let Some(template) = Generator::new(config.clone())
        .base()
        .people
        .into_iter()
        .find(|p| p.is_new_joiner(today) && p.package_id.is_some())
    else {
        return Ok(false);
    };
    for n in 1..=MAX_EXTRA {
        let mut joiner = template.clone();
        joiner.id = PersonId::from_uuid(uuid::Uuid::from_u128(template.id.as_uuid().as_u128() ^ n));
        joiner.user_name = format!("joiner{n}.{}", template.user_name);
        for email in &mut joiner.emails {
            email.value = format!("joiner{n}.{}", email.value);
        }
        joiner.external_id = None;
        let at = config.now + Duration::minutes(10 + i64::try_from(n).unwrap_or(0));
        joiner.created_at = at;
        joiner.updated_at = at;
        ports.insert_person(&joiner)?;
        let query = OrderQuery::parse(&RawOrderQuery {
            person_id: Some(joiner.id.to_string()),
            ..RawOrderQuery::default()
        })?;
        if ports
            .list_orders(config.organization, &query)?
            .orders
            .iter()
            .any(has_backorder)
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Every order of the demo organization.
fn all_orders(ports: &dyn JoinerPorts, config: &DemoConfig) -> Result<Vec<Order>, DomainError> {
    let mut out = Vec::new();
    for page in 1.. {
        let query = OrderQuery::parse(&RawOrderQuery {
            page: Some(page.to_string()),
            size: Some("1000".into()),
            ..RawOrderQuery::default()
        })?;
        let found = ports.list_orders(config.organization, &query)?.orders;
        if found.is_empty() {
            break;
        }
        out.extend(found);
    }
    Ok(out)
}
