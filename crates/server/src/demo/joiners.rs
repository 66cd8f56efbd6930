//! The demo's joiners, after its import (which already made the orders of
//! its new joiners, through the same rules as SCIM: docs/orders.md): their
//! orders moved along through the API's rules, so that the console and the
//! API show every stage out of the box:
//!
//! 1. one order left ALLOCATED (with the import's orders beyond the
//!    [`STAGES`] the stages take);
//! 2. one SHIPPED, with tracking;
//! 3. one DELIVERED: its items DEPLOYED to the joiner;
//! 4. one whose shipment hit a DELIVERY_EXCEPTION (the order stays SHIPPED);
//! 5. one CANCELLED: the joiner deactivated before anything shipped, their
//!    items AVAILABLE again;
//! 6. and a joiner whose order waits for stock (PENDING, a line
//!    BACKORDERED): more joiners of the first new joiner's package are
//!    provisioned until one finds its stock gone (at most [`MAX_EXTRA`]).
//!
//! Deterministic: the same seed and number of items give the same joiners
//! the same stages. The import allocates its joiners in the order of their
//! ids (which depend on the organization), so which of them the scarce
//! stock reaches varies; first, stock therefore arrives for every line the
//! import left BACKORDERED (one AVAILABLE item each, in the first warehouse,
//! filling the oldest backorder of its category), and more joiners are
//! provisioned while fewer than [`STAGES`] orders exist. Every order is then
//! ALLOCATED whole, and the stages take them in the generator's order of
//! their people (not by id), so that the cancelled one gives back the same
//! equipment every run and the search for a backorder provisions the same
//! number of joiners.

use std::collections::HashMap;

use equip_domain::catalog::Sku;
use equip_domain::error::DomainError;
use equip_domain::ids::{InventoryItemId, PersonId, WarehouseId};
use equip_domain::inventory::{
    Assignee, AssigneeType, Assignment, Condition, DeployStatus, InventoryItem, SuppliedBy,
};
use equip_domain::orders::order::Order;
use equip_domain::orders::query::{OrderQuery, RawOrderQuery};
use equip_domain::orders::shipment::NewShipment;
use equip_domain::orders::{LineStatus, OrderStatus, ShipmentStatus};
use equip_domain::person::Person;
use equip_domain::ports::{InventoryRepository, OrderRepository, PersonRepository, PersonWrite};

use super::{kind, DemoConfig, Generator, IdSpace};

/// What the joiners need of a store.
pub trait JoinerPorts: PersonRepository + OrderRepository + InventoryRepository {}
impl<T: PersonRepository + OrderRepository + InventoryRepository> JoinerPorts for T {}

/// Joiners added at most while looking for a backorder (and, apart, at most
/// while too few orders exist for the stages).
const MAX_EXTRA: u128 = 20;

/// Orders the stages take: one left ALLOCATED, one shipped, one delivered,
/// one stopped by a delivery exception, one cancelled.
pub const STAGES: usize = 5;

/// How the demo's joiners' orders ended, by status.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Joiners {
    /// Orders ALLOCATED (waiting to ship).
    pub allocated: usize,
    /// Orders SHIPPED (in transit, or stopped by a delivery exception).
    pub shipped: usize,
    /// Of those, the orders whose shipment hit a DELIVERY_EXCEPTION.
    pub exceptions: usize,
    /// Orders DELIVERED.
    pub delivered: usize,
    /// Orders CANCELLED.
    pub cancelled: usize,
    /// Orders PENDING: a line waits for stock.
    pub waiting: usize,
    /// Items that arrived for the import's backorders.
    pub restocked: usize,
}

impl Joiners {
    /// One line for the demo's summary.
    #[must_use]
    pub fn describe(&self) -> String {
        format!(
            "{} allocated, {} shipped ({} with a delivery exception), {} delivered, {} cancelled, {} waiting for stock",
            self.allocated,
            self.shipped,
            self.exceptions,
            self.delivered,
            self.cancelled,
            self.waiting
        )
    }
}

/// The demo's data a joiner stage needs: its people, SKUs, first
/// warehouse and ids.
struct Demo<'a> {
    config: &'a DemoConfig,
    /// The generator's people, in its order.
    people: Vec<Person>,
    skus: Vec<Sku>,
    warehouse: WarehouseId,
    ids: IdSpace,
}

/// Moves the demo's joiners' orders along: every stage, one backorder.
///
/// # Errors
/// A store failure, or (a bug) a move the rules refuse.
pub fn run(ports: &dyn JoinerPorts, config: &DemoConfig) -> Result<Joiners, DomainError> {
    let org = config.organization;
    let mut generator = Generator::new(config.clone());
    let base = generator.base();
    let demo = Demo {
        config,
        people: base.people,
        skus: base.skus,
        warehouse: generator.first_warehouse_id(),
        ids: generator.ids,
    };
    let today = config.now.date_naive();
    let template = demo
        .people
        .iter()
        .find(|p| p.is_new_joiner(today) && p.package_id.is_some())
        .cloned();

    // The generator's order of the people (the extra joiners after them,
    // in the order they were provisioned).
    let rank: HashMap<PersonId, usize> = demo
        .people
        .iter()
        .enumerate()
        .map(|(n, p)| (p.id, n))
        .collect();
    let in_order = |status| -> Result<Vec<Order>, DomainError> {
        let mut orders = all_orders(ports, config, Some(status))?;
        orders.sort_by_key(|o| {
            (
                o.created_at,
                rank.get(&o.person_id).copied().unwrap_or(usize::MAX),
                o.id,
            )
        });
        Ok(orders)
    };

    // Stock for what the import left waiting, and joiners enough.
    let mut restocked = restock(ports, &demo, 0)?;
    let mut extra = 0;
    loop {
        let allocated = in_order(OrderStatus::Allocated)?;
        if allocated.len() >= STAGES {
            break;
        }
        let Some(template) = &template else { break };
        if extra >= MAX_EXTRA {
            break;
        }
        extra += 1;
        provision(ports, &demo, template, extra)?;
        restocked = restock(ports, &demo, restocked)?;
    }

    // The stages: the first stays ALLOCATED; the next three ship; the
    // fifth is cancelled.
    let allocated = in_order(OrderStatus::Allocated)?;
    let moves = [
        Some(ShipmentStatus::Shipped),
        Some(ShipmentStatus::Delivered),
        Some(ShipmentStatus::DeliveryException),
        None,
    ];
    for (n, (order, stage)) in allocated.iter().skip(1).zip(moves).enumerate() {
        let at = config.clock();
        match stage {
            Some(stage) => {
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
                    ports.record_delivery(org, order.id, sent.id, stage, config.clock())??;
                }
            }
            None => deactivate(ports, config, order.person_id, at)?,
        }
    }

    // One joiner waiting for stock.
    let waiting = !all_orders(ports, config, Some(OrderStatus::Pending))?.is_empty();
    if !waiting {
        if let Some(template) = &template {
            for n in extra + 1..=extra + MAX_EXTRA {
                let joiner = provision(ports, &demo, template, n)?;
                if orders_of(ports, config, joiner)?.iter().any(has_backorder) {
                    break;
                }
            }
        }
    }
    tally(ports, config, restocked)
}

fn has_backorder(order: &Order) -> bool {
    order
        .lines
        .iter()
        .any(|l| l.status == LineStatus::Backordered)
}

/// Provisions joiner `n` like `template` (the demo's first new joiner with
/// a package); their id.
fn provision(
    ports: &dyn JoinerPorts,
    demo: &Demo<'_>,
    template: &Person,
    n: u128,
) -> Result<PersonId, DomainError> {
    let mut joiner = template.clone();
    joiner.id = PersonId::from_uuid(uuid::Uuid::from_u128(template.id.as_uuid().as_u128() ^ n));
    joiner.user_name = format!("joiner{n}.{}", template.user_name);
    for email in &mut joiner.emails {
        email.value = format!("joiner{n}.{}", email.value);
    }
    joiner.external_id = None;
    let at = demo.config.clock();
    joiner.created_at = at;
    joiner.updated_at = at;
    ports.insert_person(&joiner)?;
    Ok(joiner.id)
}

/// One AVAILABLE item in the first warehouse for each BACKORDERED line of
/// the organization's orders (each item fills the oldest backorder of its
/// category as it is created); `made` items were made before. How many
/// items made in all.
fn restock(ports: &dyn JoinerPorts, demo: &Demo<'_>, made: usize) -> Result<usize, DomainError> {
    let config = demo.config;
    let mut made = made;
    let waiting: Vec<Order> = all_orders(ports, config, Some(OrderStatus::Pending))?;
    for line in waiting.iter().flat_map(|o| &o.lines) {
        if line.status != LineStatus::Backordered {
            continue;
        }
        let sku = line.sku_ids.first().copied().or_else(|| {
            demo.skus
                .iter()
                .find(|s| s.category_code == line.category_code)
                .map(|s| s.id)
        });
        let Some(sku) = sku else { continue };
        let at = config.clock();
        let item = InventoryItem {
            id: InventoryItemId::from_uuid(demo.ids.id(kind::RESTOCK, made as u64)),
            organization_id: config.organization,
            sku_id: sku,
            serial_number: Some(format!("RESTOCK-{:05}", made + 1)),
            imei: vec![],
            deploy_status: DeployStatus::Available,
            deploy_reason: None,
            condition: Condition::New,
            renewal_date: None,
            renewal_date_updated_by: None,
            billing_start_date: None,
            billing_end_date: None,
            procurement_method: Some("Purchase".into()),
            assignment: Some(Assignment {
                assignee: Assignee::new(AssigneeType::Warehouse, *demo.warehouse.as_uuid()),
                assigned_at: Some(at),
            }),
            tags: vec![],
            pricing: None,
            description: Some("Received for a joiner's backorder".into()),
            erp_invoice_id: None,
            hold_start_date: None,
            unlock_date: None,
            itad_requested: None,
            device_program: None,
            supplied_by: SuppliedBy::Organization,
            return_order: None,
            created_at: at,
            updated_at: at,
        };
        ports.insert_inventory_item(&item)?;
        made += 1;
    }
    Ok(made)
}

/// The joiner withdrawn before anything shipped (`active: false`, as a
/// SCIM PATCH would write it): their order is CANCELLED and its items are
/// AVAILABLE again.
fn deactivate(
    ports: &dyn JoinerPorts,
    config: &DemoConfig,
    person: PersonId,
    at: chrono::DateTime<chrono::Utc>,
) -> Result<(), DomainError> {
    let Some(current) = ports.find_person(config.organization, person)? else {
        return Err(DomainError::not_found("person", person.to_string()));
    };
    let mut after = current.clone();
    after.active = false;
    after.version += 1;
    after.updated_at = at.max(current.updated_at);
    match ports.update_person(&current, &after)? {
        PersonWrite::Done => Ok(()),
        PersonWrite::Stale { .. } | PersonWrite::Missing => Err(DomainError::conflict(
            "active",
            format!("joiner {person} changed while the demo deactivated them"),
        )),
    }
}

/// How the organization's orders ended.
fn tally(
    ports: &dyn JoinerPorts,
    config: &DemoConfig,
    restocked: usize,
) -> Result<Joiners, DomainError> {
    let mut out = Joiners {
        restocked,
        ..Joiners::default()
    };
    for order in all_orders(ports, config, None)? {
        match order.status {
            OrderStatus::Allocated => out.allocated += 1,
            OrderStatus::Shipped => out.shipped += 1,
            OrderStatus::Delivered => out.delivered += 1,
            OrderStatus::Cancelled => out.cancelled += 1,
            OrderStatus::Pending => out.waiting += 1,
        }
        if order
            .shipments
            .iter()
            .any(|s| s.status == ShipmentStatus::DeliveryException)
        {
            out.exceptions += 1;
        }
    }
    Ok(out)
}

/// The orders of `person`.
fn orders_of(
    ports: &dyn JoinerPorts,
    config: &DemoConfig,
    person: PersonId,
) -> Result<Vec<Order>, DomainError> {
    let query = OrderQuery::parse(&RawOrderQuery {
        person_id: Some(person.to_string()),
        ..RawOrderQuery::default()
    })?;
    Ok(ports.list_orders(config.organization, &query)?.orders)
}

/// Every order of the demo organization (of `status`).
fn all_orders(
    ports: &dyn JoinerPorts,
    config: &DemoConfig,
    status: Option<OrderStatus>,
) -> Result<Vec<Order>, DomainError> {
    let mut out = Vec::new();
    for page in 1.. {
        let query = OrderQuery::parse(&RawOrderQuery {
            page: Some(page.to_string()),
            size: Some("1000".into()),
            status: status.map(|s| s.as_str().to_owned()),
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
