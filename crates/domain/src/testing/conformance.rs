//! The workflow conformance scenarios (docs/workflows.md, "The conformance
//! suite"): the same scenarios, written once over the ports, that every
//! store must pass with the same results. Each binary that has a store runs
//! them in a module named `workflow_conformance`: the domain's unit tests
//! over the in-memory store today.
//!
//! A scenario returns `Err` with what differed from what the lifecycle
//! promises; it never panics.

use chrono::{DateTime, Duration, NaiveDate, Utc};

use super::fixtures::Seeded;
use crate::error::StoreError;
use crate::event::EventType;
use crate::event_feed::{FeedQuery, FeedRead};
use crate::ids::{
    InventoryItemId, InventoryLevelId, OrderId, OrderLineId, OrganizationId, PersonId,
};
use crate::inventory::{
    Assignee, Assignment, Condition, DeployReason, DeployStatus, InventoryItem, SuppliedBy,
};
use crate::inventory_level::InventoryLevel;
use crate::orders::order::{Order, OrderLine};
use crate::orders::{LineStatus, OrderStatus};
use crate::ports::{
    EventRepository, InventoryLevelRepository, InventoryRepository, OrderRepository,
    ReceiptRepository,
};

/// A store under test, with what a scenario needs to set it up.
pub trait Harness {
    /// The store.
    type Store: InventoryRepository
        + InventoryLevelRepository
        + ReceiptRepository
        + OrderRepository
        + EventRepository;

    /// The store.
    fn store(&self) -> &Self::Store;

    /// A fresh organization with one SKU (category `LAPTOP`) and one
    /// warehouse it owns.
    ///
    /// # Errors
    /// The store's failures.
    fn seed(&self) -> Result<Seeded, String>;

    /// Stores `order` (new, its lines BACKORDERED) as provisioning writes
    /// one, without taking stock.
    ///
    /// # Errors
    /// The store's failures.
    fn put_order(&self, order: &Order) -> Result<(), String>;
}

/// One scenario: `Err` says what differed.
pub type Scenario = fn(&dyn DynHarness) -> Result<(), String>;

/// Every scenario, by name.
pub const SCENARIOS: &[(&str, Scenario)] = &[
    (
        "a_created_item_fills_a_backorder",
        a_created_item_fills_a_backorder,
    ),
    (
        "a_hold_release_fills_a_backorder",
        a_hold_release_fills_a_backorder,
    ),
    (
        "the_oldest_backorder_takes_the_one_item",
        the_oldest_backorder_takes_the_one_item,
    ),
    (
        "an_allocation_below_a_minimum_records_one_crossing",
        an_allocation_below_a_minimum_records_one_crossing,
    ),
];

/// [`Harness`] without its associated type, so that scenarios are plain
/// functions over any store.
pub trait DynHarness {
    /// See [`Harness::seed`].
    ///
    /// # Errors
    /// The store's failures.
    fn seed(&self) -> Result<Seeded, String>;
    /// See [`Harness::put_order`].
    ///
    /// # Errors
    /// The store's failures.
    fn put_order(&self, order: &Order) -> Result<(), String>;
    /// The inventory port.
    fn inventory(&self) -> &dyn InventoryRepository;
    /// The levels port.
    fn levels(&self) -> &dyn InventoryLevelRepository;
    /// The receipts port.
    fn receipts(&self) -> &dyn ReceiptRepository;
    /// The orders port.
    fn orders(&self) -> &dyn OrderRepository;
    /// The events port.
    fn events(&self) -> &dyn EventRepository;
}

impl<H: Harness> DynHarness for H {
    fn seed(&self) -> Result<Seeded, String> {
        Harness::seed(self)
    }
    fn put_order(&self, order: &Order) -> Result<(), String> {
        Harness::put_order(self, order)
    }
    fn inventory(&self) -> &dyn InventoryRepository {
        self.store()
    }
    fn levels(&self) -> &dyn InventoryLevelRepository {
        self.store()
    }
    fn receipts(&self) -> &dyn ReceiptRepository {
        self.store()
    }
    fn orders(&self) -> &dyn OrderRepository {
        self.store()
    }
    fn events(&self) -> &dyn EventRepository {
        self.store()
    }
}

/// Runs every scenario; the names of those that failed, with why.
///
/// # Errors
/// One line per failed scenario.
pub fn run_all(h: &dyn DynHarness) -> Result<(), String> {
    let failed: Vec<String> = SCENARIOS
        .iter()
        .filter_map(|(name, scenario)| scenario(h).err().map(|e| format!("{name}: {e}")))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("\n"))
    }
}

fn store_error(e: StoreError) -> String {
    format!("store: {e}")
}

fn check(holds: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if holds {
        Ok(())
    } else {
        Err(what())
    }
}

/// An hour ago, to the second (every store keeps at least that).
fn earlier(hours: i64) -> DateTime<Utc> {
    let t = Utc::now() - Duration::hours(hours);
    DateTime::from_timestamp(t.timestamp(), 0).unwrap_or(t)
}

/// An AVAILABLE item of the seed's SKU in its warehouse, created at `at`.
fn stock_item(seed: &Seeded, at: DateTime<Utc>) -> InventoryItem {
    InventoryItem {
        id: InventoryItemId::new(),
        organization_id: seed.org.id,
        sku_id: seed.sku.id,
        serial_number: None,
        imei: vec![],
        deploy_status: DeployStatus::Available,
        deploy_reason: None,
        condition: Condition::New,
        renewal_date: None,
        renewal_date_updated_by: None,
        billing_start_date: None,
        billing_end_date: None,
        procurement_method: None,
        assignment: Some(Assignment {
            assignee: Assignee::Warehouse(seed.warehouse.id),
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

/// A new person's order of one BACKORDERED line of the seed's category,
/// created at `at`.
fn backordered_order(seed: &Seeded, at: DateTime<Utc>) -> Order {
    Order {
        id: OrderId::new(),
        organization_id: seed.org.id,
        person_id: PersonId::new(),
        package_id: None,
        status: OrderStatus::Pending,
        lines: vec![OrderLine {
            id: OrderLineId::new(),
            position: 0,
            category_code: seed.sku.category_code.clone(),
            sku_ids: vec![seed.sku.id],
            status: LineStatus::Backordered,
            item_id: None,
            shipment_id: None,
            created_at: at,
            updated_at: at,
        }],
        shipments: vec![],
        created_at: at,
        updated_at: at,
    }
    .restated()
}

fn order(h: &dyn DynHarness, org: OrganizationId, id: OrderId) -> Result<Order, String> {
    h.orders()
        .find_order(org, id)
        .map_err(store_error)?
        .ok_or_else(|| format!("order {id} vanished"))
}

fn item(
    h: &dyn DynHarness,
    org: OrganizationId,
    id: InventoryItemId,
) -> Result<InventoryItem, String> {
    h.inventory()
        .find_inventory_item(org, id)
        .map_err(store_error)?
        .ok_or_else(|| format!("item {id} vanished"))
}

/// The organization's event types, oldest first.
fn event_types(h: &dyn DynHarness, org: OrganizationId) -> Result<Vec<EventType>, String> {
    let query = FeedQuery {
        after: None,
        types: vec![],
        subject_id: None,
        size: 1000,
    };
    match h.events().read_feed(org, &query).map_err(store_error)? {
        FeedRead::Events { events, .. } => Ok(events.into_iter().map(|e| e.kind).collect()),
        _ => Err("the feed did not answer with events".into()),
    }
}

/// The order's one line holds `item`, ALLOCATED, and so is the order; the item is taken for it.
fn allocated_to(
    h: &dyn DynHarness,
    org: OrganizationId,
    order_id: OrderId,
    item_id: InventoryItemId,
) -> Result<(), String> {
    let o = order(h, org, order_id)?;
    let line = o.lines.first().ok_or("the order has no line")?;
    check(
        line.status == LineStatus::Allocated && line.item_id == Some(item_id),
        || format!("line: {:?} holding {:?}", line.status, line.item_id),
    )?;
    check(o.status == OrderStatus::Allocated, || {
        format!("order status {:?}", o.status)
    })?;
    let i = item(h, org, item_id)?;
    check(
        i.deploy_status == DeployStatus::Unavailable
            && i.deploy_reason == Some(DeployReason::PendingFulfillment),
        || format!("item {:?} {:?}", i.deploy_status, i.deploy_reason),
    )
}

/// No stock: the line waits; an AVAILABLE item created in a warehouse the
/// organization uses is taken by it in the same write.
pub fn a_created_item_fills_a_backorder(h: &dyn DynHarness) -> Result<(), String> {
    let seed = h.seed()?;
    let org = seed.org.id;
    let o = backordered_order(&seed, earlier(2));
    h.put_order(&o)?;
    check(o.status == OrderStatus::Pending, || {
        format!("set-up order status {:?}", o.status)
    })?;
    let before = event_types(h, org)?.len();
    let new = stock_item(&seed, earlier(1));
    h.inventory()
        .insert_inventory_item(&new)
        .map_err(store_error)?;
    allocated_to(h, org, o.id, new.id)?;
    let written = event_types(h, org)?.split_off(before);
    check(
        written
            == [
                EventType::ItemCreated,
                EventType::ItemUpdated,
                EventType::OrderUpdated,
            ],
        || format!("events {written:?}"),
    )
}

/// An item on hold (PENDING_HOLD_RELEASE) released early becomes AVAILABLE
/// and is taken by the waiting line.
pub fn a_hold_release_fills_a_backorder(h: &dyn DynHarness) -> Result<(), String> {
    let seed = h.seed()?;
    let org = seed.org.id;
    let mut held = stock_item(&seed, earlier(3));
    held.deploy_status = DeployStatus::Unavailable;
    held.deploy_reason = Some(DeployReason::PendingHoldRelease);
    held.hold_start_date = Some(held.created_at.date_naive());
    held.unlock_date = NaiveDate::from_ymd_opt(2099, 1, 1);
    h.inventory()
        .insert_inventory_item(&held)
        .map_err(store_error)?;
    let o = backordered_order(&seed, earlier(2));
    h.put_order(&o)?;
    let outcome = h
        .receipts()
        .release_hold(org, held.id, earlier(0))
        .map_err(store_error)?;
    check(outcome.result.is_ok(), || {
        format!("release refused: {:?}", outcome.result)
    })?;
    allocated_to(h, org, o.id, held.id)
}

/// Two waiting lines, one item: the older line takes it, the other waits.
pub fn the_oldest_backorder_takes_the_one_item(h: &dyn DynHarness) -> Result<(), String> {
    let seed = h.seed()?;
    let org = seed.org.id;
    let newer = backordered_order(&seed, earlier(2));
    let older = backordered_order(&seed, earlier(3));
    h.put_order(&newer)?;
    h.put_order(&older)?;
    let new = stock_item(&seed, earlier(1));
    h.inventory()
        .insert_inventory_item(&new)
        .map_err(store_error)?;
    allocated_to(h, org, older.id, new.id)?;
    let waiting = order(h, org, newer.id)?;
    let line = waiting.lines.first().ok_or("the newer order has no line")?;
    check(line.status == LineStatus::Backordered, || {
        format!("the newer line is {:?}", line.status)
    })?;
    check(waiting.status == OrderStatus::Pending, || {
        format!("the newer order is {:?}", waiting.status)
    })
}

/// A level watching the warehouse with minimum 1 and one item in stock; an
/// order waits for two laptops (its lines were planned before that item
/// arrived). A second item created fills both lines, oldest item first, and
/// the level, left with nothing, records one `inventory_level.below_minimum`
/// after the order's events.
pub fn an_allocation_below_a_minimum_records_one_crossing(
    h: &dyn DynHarness,
) -> Result<(), String> {
    let seed = h.seed()?;
    let org = seed.org.id;
    let first = stock_item(&seed, earlier(5));
    h.inventory()
        .insert_inventory_item(&first)
        .map_err(store_error)?;
    let level = InventoryLevel {
        id: InventoryLevelId::new(),
        organization_id: org,
        sku_id: seed.sku.id,
        warehouse_id: seed.warehouse.id,
        minimum_quantity: 1,
        target_quantity: 2,
        created_at: earlier(4),
        deactivated_at: None,
    };
    let stocked = h
        .levels()
        .insert_inventory_level(&level)
        .map_err(store_error)?;
    check(!stocked.below_minimum(), || "the level starts below".into())?;
    let mut o = backordered_order(&seed, earlier(2));
    let mut second_line = o.lines[0].clone();
    second_line.id = OrderLineId::new();
    second_line.position = 1;
    o.lines.push(second_line);
    h.put_order(&o)?;
    let before = event_types(h, org)?.len();
    let new = stock_item(&seed, earlier(1));
    h.inventory()
        .insert_inventory_item(&new)
        .map_err(store_error)?;
    let after = order(h, org, o.id)?;
    let held: Vec<_> = after.lines.iter().map(|l| (l.status, l.item_id)).collect();
    check(
        held == [
            (LineStatus::Allocated, Some(first.id)),
            (LineStatus::Allocated, Some(new.id)),
        ] && after.status == OrderStatus::Allocated,
        || format!("lines {held:?}, order {:?}", after.status),
    )?;
    let written = event_types(h, org)?.split_off(before);
    check(
        written
            == [
                EventType::ItemCreated,
                EventType::ItemUpdated,
                EventType::ItemUpdated,
                EventType::OrderUpdated,
                EventType::LevelBelowMinimum,
            ],
        || format!("events {written:?}"),
    )
}
