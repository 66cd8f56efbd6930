//! The joiner's orders in the database (docs/orders.md): what every
//! provisioning writer runs for the people it changed ([`provisioned`]: the
//! order `equip_domain::orders::plan` decides, written, its new lines
//! allocated), and the backorder filling that stock made AVAILABLE
//! triggers ([`fill_backorders`]).
//!
//! Locks on PostgreSQL: a person's open order row (`FOR NO KEY UPDATE`),
//! then the items its lines take (`FOR UPDATE SKIP LOCKED`, never waited
//! for). Two writers creating the first order of one person at once meet
//! the unique index `orders_open_person_key`: one of them fails whole.

mod allocate;
pub(crate) mod read;
pub(crate) mod write;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use equip_domain::group::effective_package;
use equip_domain::ids::{OrderId, PackageId, PersonId};
use equip_domain::orders::allocation::destination_country;
use equip_domain::orders::order::Order;
use equip_domain::orders::plan::{plan, JoinerFacts, OrderPlan, PackageContents};
use equip_domain::orders::LineStatus;

use crate::connection::DbConnection;
use crate::error::DbResult;
use crate::events::Recorder;
use crate::listing::{refresh, Scope};
use crate::models::{parse_id, OrderRow};
use crate::schema::{order_lines, orders};
use crate::stock::StockTouched;

pub(crate) use allocate::StockMap;

/// After a write that may have changed the effective package, status,
/// `active` or start date of `people` (ids as text): each one's order as
/// planned, written with its events, its new lines allocated, the items it
/// released given back (and the backorders they can fill filled), the
/// levels restated. Runs in the writer's transaction.
pub(crate) fn provisioned(
    c: &mut DbConnection,
    events: &mut Recorder,
    org: &str,
    people: &[String],
    at: DateTime<Utc>,
) -> DbResult<()> {
    if people.is_empty() {
        return Ok(());
    }
    let mut ids: Vec<String> = people.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let persons = crate::repositories::people::load_people(c, org, &ids)?;
    let mut groups: HashMap<PersonId, Vec<_>> = HashMap::new();
    for (person, group) in crate::membership::person_groups(c, org, &ids)? {
        groups.entry(person).or_default().push(group);
    }
    // The effective package of each, and the contents of those packages.
    let effective: HashMap<PersonId, Option<PackageId>> = persons
        .iter()
        .map(|p| {
            let theirs = groups.get(&p.id).map_or(&[][..], Vec::as_slice);
            (p.id, effective_package(p.package_id, theirs))
        })
        .collect();
    let package_ids: BTreeSet<String> = effective
        .values()
        .flatten()
        .map(ToString::to_string)
        .collect();
    let package_ids: Vec<String> = package_ids.into_iter().collect();
    let contents: HashMap<String, PackageContents> =
        crate::package_contents::contents_of(c, org, &package_ids)?
            .into_iter()
            .map(|(id, items)| {
                Ok((
                    id.clone(),
                    PackageContents {
                        package_id: parse_id(&id)?,
                        items,
                    },
                ))
            })
            .collect::<DbResult<_>>()?;
    let mut open = open_orders_of(c, org, &ids)?;
    let today = at.date_naive();
    let mut map: Option<StockMap> = None;
    let mut touched = StockTouched::default();
    let mut items = Vec::new();
    for person in &persons {
        let package = effective
            .get(&person.id)
            .copied()
            .flatten()
            .and_then(|id| contents.get(&id.to_string()));
        let order = open.remove(&person.id);
        let facts = JoinerFacts {
            organization_id: person.organization_id,
            person_id: person.id,
            status: person.status,
            active: person.active,
            start_date: person.start_date,
            package,
            order: order.as_ref(),
            today,
            at,
        };
        let decided = plan(&facts);
        let (mut after, released) = match decided {
            OrderPlan::Keep => continue,
            OrderPlan::Create(order) => (order, Vec::new()),
            OrderPlan::Change { order, released } => (order, released),
        };
        for item in released {
            allocate::release_item(c, events, org, item, &mut touched, &mut items, at)?;
        }
        let country = destination_country(&person.addresses);
        let map = match &mut map {
            Some(map) => map,
            None => map.insert(StockMap::read(c, org)?),
        };
        for line in &mut after.lines {
            if line.status == LineStatus::Backordered {
                allocate::allocate_line(
                    c,
                    events,
                    org,
                    map,
                    line,
                    country,
                    &mut touched,
                    &mut items,
                    at,
                )?;
            }
        }
        let after = after.restated();
        write::write_order(c, events, org, order.as_ref(), &after)?;
    }
    refresh_items(c, org, &mut items)?;
    crate::stock::after_write(c, events, org, touched, at)
}

/// The open (not CANCELLED) orders of `people`, by person; their rows
/// locked on PostgreSQL.
fn open_orders_of(
    c: &mut DbConnection,
    org: &str,
    people: &[String],
) -> DbResult<HashMap<PersonId, Order>> {
    let mut rows: Vec<OrderRow> = Vec::new();
    for chunk in people.chunks(crate::sql_builder::ID_CHUNK) {
        let query = orders::table
            .filter(orders::organization_id.eq(org))
            .filter(orders::person_id.eq_any(chunk))
            .filter(orders::status.ne("CANCELLED"))
            .order(orders::id.asc());
        rows.extend(match c {
            DbConnection::Postgres(pg) => query
                .select(OrderRow::as_select())
                .for_no_key_update()
                .load(pg)?,
            DbConnection::Sqlite(lite) => query.select(OrderRow::as_select()).load(lite)?,
        });
    }
    Ok(read::orders_of_rows(c, org, rows)?
        .into_iter()
        .map(|o| (o.person_id, o))
        .collect())
}

/// Refreshes the listing rows of the items an order write changed, once.
fn refresh_items(c: &mut DbConnection, org: &str, items: &mut Vec<String>) -> DbResult<()> {
    if items.is_empty() {
        return Ok(());
    }
    items.sort_unstable();
    items.dedup();
    refresh(c, org, Scope::Items(items))
}

/// At most this many BACKORDERED lines are read at a time.
const BACKORDER_BATCH: i64 = 100;

/// Allocates the oldest BACKORDERED lines of the categories of the SKUs in
/// `touched.gained`, as long as stock lasts; the items taken are added to
/// `touched.pairs`; returns how many lines were allocated. A line whose
/// order another writer holds (PostgreSQL) is left for the background sweep
/// (`BackorderRepository`).
pub(crate) fn fill_backorders(
    c: &mut DbConnection,
    events: &mut Recorder,
    org: &str,
    touched: &mut StockTouched,
    at: DateTime<Utc>,
) -> DbResult<usize> {
    if touched.gained.is_empty() {
        return Ok(0);
    }
    let mut filled = 0;
    let map = StockMap::read(c, org)?;
    let categories: BTreeSet<String> = std::mem::take(&mut touched.gained)
        .iter()
        .filter_map(|sku| map.category_of(sku).map(str::to_owned))
        .collect();
    let mut items = Vec::new();
    for category in categories {
        let mut skipped: BTreeSet<String> = BTreeSet::new();
        'category: loop {
            let lines: Vec<(String, String)> = order_lines::table
                .filter(order_lines::organization_id.eq(org))
                .filter(order_lines::category_code.eq(&category))
                .filter(order_lines::status.eq("BACKORDERED"))
                .order((order_lines::created_at.asc(), order_lines::id.asc()))
                .select((order_lines::id, order_lines::order_id))
                .limit(BACKORDER_BATCH + i64::try_from(skipped.len()).unwrap_or(0))
                .load(c)?;
            let lines: Vec<_> = lines
                .into_iter()
                .filter(|(id, _)| !skipped.contains(id))
                .collect();
            if lines.is_empty() {
                break;
            }
            // Lines of one order together, in the order of its oldest line.
            let mut by_order: BTreeMap<usize, (String, Vec<String>)> = BTreeMap::new();
            let mut first_of: HashMap<String, usize> = HashMap::new();
            for (i, (line, order)) in lines.into_iter().enumerate() {
                let k = *first_of.entry(order.clone()).or_insert(i);
                by_order
                    .entry(k)
                    .or_insert_with(|| (order, Vec::new()))
                    .1
                    .push(line);
            }
            for (order_id, line_ids) in by_order.into_values() {
                let id: OrderId = parse_id(&order_id)?;
                let Some(before) = lock_order_unless_held(c, org, id)? else {
                    skipped.extend(line_ids);
                    continue;
                };
                let country = crate::repositories::people::load_people(
                    c,
                    org,
                    &[before.person_id.to_string()],
                )?
                .first()
                .and_then(|p| destination_country(&p.addresses).map(str::to_owned));
                let mut after = before.clone();
                let mut out_of_stock = false;
                for line in &mut after.lines {
                    if !line_ids.contains(&line.id.to_string())
                        || line.status != LineStatus::Backordered
                    {
                        continue;
                    }
                    let taken = allocate::allocate_line(
                        c,
                        events,
                        org,
                        &map,
                        line,
                        country.as_deref(),
                        touched,
                        &mut items,
                        at,
                    )?;
                    if taken {
                        filled += 1;
                    } else {
                        skipped.insert(line.id.to_string());
                        out_of_stock = true;
                    }
                }
                let mut after = after.restated();
                if after != before {
                    after.updated_at = at;
                    write::write_order(c, events, org, Some(&before), &after)?;
                }
                if out_of_stock {
                    // No stock of the category left in any usable
                    // warehouse (the tiers cover them all): nothing later
                    // can be filled either.
                    break 'category;
                }
            }
        }
    }
    refresh_items(c, org, &mut items)?;
    Ok(filled)
}

/// The order locked, or `None` when another writer holds it (PostgreSQL:
/// `SKIP LOCKED`; SQLite: the write transaction holds the database).
fn lock_order_unless_held(c: &mut DbConnection, org: &str, id: OrderId) -> DbResult<Option<Order>> {
    if let DbConnection::Postgres(pg) = c {
        let free: Option<String> = orders::table
            .filter(orders::id.eq(id.to_string()))
            .filter(orders::organization_id.eq(org))
            .select(orders::id)
            .for_no_key_update()
            .skip_locked()
            .first(pg)
            .optional()?;
        if free.is_none() {
            return Ok(None);
        }
    }
    read::read_order(c, org, id)
}
