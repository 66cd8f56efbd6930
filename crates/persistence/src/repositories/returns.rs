//! [`ReturnOrderRepository`] for [`Store`]: each write one transaction that
//! locks what it decides on (the order, then the items, then the person;
//! `crate::returns`), asks the domain and writes what it decided.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use equip_domain::error::{DomainError, StoreResult};
use equip_domain::ids::{InventoryItemId, OrganizationId, ReturnOrderId};
use equip_domain::inventory::{Assignee, AssigneeType, DeployStatus};
use equip_domain::ports::ReturnOrderRepository;
use equip_domain::returns::change::{self, ChangeFacts, ReturnOrderChange};
use equip_domain::returns::create::{self, CreateFacts, ItemFacts, ReturnRequest};
use equip_domain::returns::order::ReturnOrder;
use equip_domain::returns::query::{ReturnOrderPage, ReturnOrderQuery};
use equip_domain::services::returns::unknown_order;

use crate::connection::DbConnection;
use crate::error::{DbError, DbResult};
use crate::events::recorded;
use crate::models::{parse_id, return_order_from_rows, ReturnOrderItemRow, ReturnOrderRow};
use crate::repositories::people::lock_person;
use crate::returns::{
    insert_order, lock_items, lock_order, read_item, read_order, write_item, write_order,
};
use crate::schema::{inventory_items, return_order_items, return_orders};
use crate::sql_builder::ID_CHUNK;
use crate::store::Store;

impl ReturnOrderRepository for Store {
    fn list_return_orders(
        &self,
        organization: OrganizationId,
        query: &ReturnOrderQuery,
    ) -> StoreResult<ReturnOrderPage> {
        let org = organization.to_string();
        self.read("returnOrder", |c| c.transaction(|c| list(c, &org, query)))
    }

    fn find_return_order(
        &self,
        organization: OrganizationId,
        id: ReturnOrderId,
    ) -> StoreResult<Option<ReturnOrder>> {
        let org = organization.to_string();
        self.read("returnOrder", |c| {
            c.transaction(|c| read_order(c, &org, id))
        })
    }

    fn create_return_order(
        &self,
        organization: OrganizationId,
        request: &ReturnRequest,
        at: DateTime<Utc>,
    ) -> StoreResult<Result<ReturnOrder, DomainError>> {
        let org = organization.to_string();
        self.with("returnOrder", "", |c| {
            let _writer = self.sqlite_writer(c);
            recorded(c, &self.actor, |c, events| {
                // The facts: the items and the person, locked in that
                // order; the items' facts are read once both are held, so
                // that an offboarding of the person that committed while we
                // waited (and returned some of these items) is seen.
                lock_items(c, &org, &request.items)?;
                let person = lock_person(c, &org, &request.person.to_string())?;
                let facts = CreateFacts {
                    items: item_facts(c, &org, &request.items)?,
                    person,
                };
                let plan = match create::plan(organization, request, &facts, at) {
                    Ok(plan) => plan,
                    Err(refusal) => return Ok(Err(refusal)),
                };
                insert_order(c, &org, &plan.order)?;
                for event in plan.events {
                    events.push(&org, at, event);
                }
                Ok(Ok(plan.order))
            })
        })
    }

    fn change_return_order(
        &self,
        organization: OrganizationId,
        id: ReturnOrderId,
        change: &ReturnOrderChange,
        at: DateTime<Utc>,
    ) -> StoreResult<Result<ReturnOrder, DomainError>> {
        let org = organization.to_string();
        self.with("returnOrder", "", |c| {
            let _writer = self.sqlite_writer(c);
            recorded(c, &self.actor, |c, events| {
                // The facts: the order, the items written off, the person
                // (when the change decides on them), each locked in that
                // order.
                let Some(before) = lock_order(c, &org, id)? else {
                    return Ok(Err(unknown_order(id)));
                };
                let written_off = change.written_off_items(&before);
                lock_items(c, &org, &written_off)?;
                let mut facts = ChangeFacts::default();
                for item in written_off {
                    if let Some(found) = read_item(c, &org, item)? {
                        facts.items.insert(item, found);
                    }
                }
                if let (Some(person), true) = (before.person, change.needs_person()) {
                    facts.person = lock_person(c, &org, &person.to_string())?;
                }
                let plan = match change::plan(&before, change, &facts, at) {
                    Ok(plan) => plan,
                    Err(refusal) => return Ok(Err(refusal)),
                };
                let mut touched = crate::stock::StockTouched::default();
                for (read, archived) in &plan.items {
                    write_item(c, &org, read, archived, events)?;
                    crate::levels::touch(&mut touched, Some(read), Some(archived));
                }
                for event in plan.events {
                    events.push(&org, at, event);
                }
                let written = write_order(c, &org, &before, plan.order, at, events)?;
                // A written-off item that was AVAILABLE in a warehouse leaves
                // its level's stock.
                crate::stock::after_write(c, events, &org, touched, at)?;
                Ok(Ok(written))
            })
        })
    }
}

/// What the create rule needs of each requested item of the organization.
fn item_facts(
    c: &mut DbConnection,
    org: &str,
    ids: &[InventoryItemId],
) -> DbResult<HashMap<InventoryItemId, ItemFacts>> {
    let texts: Vec<String> = ids.iter().map(ToString::to_string).collect();
    let mut facts = HashMap::new();
    let mut on_return: HashSet<String> = HashSet::new();
    for chunk in texts.chunks(ID_CHUNK) {
        on_return.extend(
            return_order_items::table
                .filter(return_order_items::organization_id.eq(org))
                .filter(return_order_items::active.eq(true))
                .filter(return_order_items::inventory_item_id.eq_any(chunk))
                .select(return_order_items::inventory_item_id)
                .load::<String>(c)?,
        );
        let rows: Vec<(String, String, Option<String>, Option<String>)> = inventory_items::table
            .filter(inventory_items::organization_id.eq(org))
            .filter(inventory_items::id.eq_any(chunk))
            .select((
                inventory_items::id,
                inventory_items::deploy_status,
                inventory_items::assignee_type,
                inventory_items::assignee_id,
            ))
            .load(c)?;
        for (id, status, kind, assignee) in rows {
            let assignee = match (kind.as_deref(), assignee.as_deref()) {
                (Some(kind), Some(a)) => Some(Assignee::new(
                    AssigneeType::parse(kind).map_err(DbError::corrupt)?,
                    uuid::Uuid::parse_str(a).map_err(DbError::corrupt)?,
                )),
                _ => None,
            };
            facts.insert(
                parse_id::<InventoryItemId>(&id)?,
                ItemFacts {
                    deploy_status: DeployStatus::parse(&status).map_err(DbError::corrupt)?,
                    assignee,
                    on_active_return: on_return.contains(&id),
                },
            );
        }
    }
    Ok(facts)
}

/// One page of the organization's orders, newest first, with their lines.
fn list(c: &mut DbConnection, org: &str, query: &ReturnOrderQuery) -> DbResult<ReturnOrderPage> {
    let filtered = || {
        let mut q = return_orders::table
            .filter(return_orders::organization_id.eq(org.to_owned()))
            .into_boxed();
        if let Some(status) = query.status {
            q = q.filter(return_orders::status.eq(status.as_str()));
        }
        if let Some(person) = query.person {
            q = q.filter(return_orders::person_id.eq(person.to_string()));
        }
        if let Some(item) = query.item {
            q = q.filter(
                return_orders::id.eq_any(
                    return_order_items::table
                        .filter(return_order_items::organization_id.eq(org.to_owned()))
                        .filter(return_order_items::inventory_item_id.eq(item.to_string()))
                        .select(return_order_items::return_order_id),
                ),
            );
        }
        q
    };
    let total: i64 = filtered().count().get_result(c)?;
    let rows: Vec<ReturnOrderRow> = filtered()
        .order((return_orders::created_at.desc(), return_orders::id.desc()))
        .limit(i64::from(query.size()))
        .offset(i64::try_from(query.offset()).unwrap_or(i64::MAX))
        .select(ReturnOrderRow::as_select())
        .load(c)?;
    let ids: Vec<String> = rows.iter().map(|r| r.id.clone()).collect();
    let mut lines: HashMap<String, Vec<ReturnOrderItemRow>> = HashMap::new();
    for chunk in ids.chunks(ID_CHUNK) {
        let found: Vec<ReturnOrderItemRow> = return_order_items::table
            .filter(return_order_items::organization_id.eq(org))
            .filter(return_order_items::return_order_id.eq_any(chunk))
            .select(ReturnOrderItemRow::as_select())
            .load(c)?;
        for line in found {
            lines
                .entry(line.return_order_id.clone())
                .or_default()
                .push(line);
        }
    }
    let orders = rows
        .into_iter()
        .map(|row| {
            let its = lines.remove(&row.id).unwrap_or_default();
            return_order_from_rows(row, its)
        })
        .collect::<DbResult<Vec<_>>>()?;
    Ok(ReturnOrderPage {
        orders,
        total_records: u64::try_from(total).unwrap_or(0),
    })
}
