//! The unit of work over the in-memory state (`crate::ports::UnitOfWork`):
//! the state is held under its lock for the whole write, so every fact read
//! is "locked" and no order is ever held by another writer.

use std::collections::{BTreeSet, HashMap};

use super::*;
use crate::event::{Actor, EventType, NewEvent};
use crate::ids::{OrderId, OrderLineId};
use crate::inventory_level::counted_at;
use crate::orders::allocation::{destination_country, pick, Candidate, StockMap, StockPlace, Tier};
use crate::orders::order::{written, Order};
use crate::orders::LineStatus;
use crate::ports::unit_of_work::{LevelFacts, StockPair, UnitOfWork};

/// One write of one organization over the locked state.
pub(crate) struct MemoryUnit<'s> {
    pub(crate) state: &'s mut State,
    pub(crate) organization: OrganizationId,
    pub(crate) actor: Actor,
    pub(crate) at: DateTime<Utc>,
}

impl UnitOfWork for MemoryUnit<'_> {
    fn organization(&self) -> OrganizationId {
        self.organization
    }

    fn at(&self) -> DateTime<Utc> {
        self.at
    }

    fn stock_map(&mut self) -> StoreResult<StockMap> {
        let org = self.organization;
        let mut places: Vec<StockPlace> = self
            .state
            .warehouses
            .iter()
            .filter(|w| w.is_accessible_to(org, self.state.grants.contains(&(w.id, org))))
            .map(|w| StockPlace {
                warehouse_id: w.id,
                country_code: w.address.as_ref().and_then(|a| a.country_code.clone()),
            })
            .collect();
        places.sort_by_key(|p| p.warehouse_id.to_string());
        let mut skus: Vec<(SkuId, String)> = self
            .state
            .skus
            .iter()
            .filter(|s| s.organization_id == org)
            .map(|s| (s.id, s.category_code.clone()))
            .collect();
        skus.sort_by_key(|(id, _)| id.to_string());
        Ok(StockMap::new(places, skus))
    }

    fn backordered_lines(
        &mut self,
        category: &str,
        limit: usize,
    ) -> StoreResult<Vec<(OrderLineId, OrderId)>> {
        let mut lines: Vec<_> = self
            .state
            .orders
            .iter()
            .filter(|o| o.organization_id == self.organization)
            .flat_map(|o| o.lines.iter().map(move |l| (l, o.id)))
            .filter(|(l, _)| l.status == LineStatus::Backordered && l.category_code == category)
            .map(|(l, order)| ((l.created_at, l.id.to_string()), (l.id, order)))
            .collect();
        lines.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(lines.into_iter().take(limit).map(|(_, l)| l).collect())
    }

    fn order_unless_held(&mut self, id: OrderId) -> StoreResult<Option<Order>> {
        Ok(self
            .state
            .orders
            .iter()
            .find(|o| o.id == id && o.organization_id == self.organization)
            .cloned())
    }

    fn destination_country(&mut self, person: PersonId) -> StoreResult<Option<String>> {
        Ok(self
            .state
            .people
            .iter()
            .find(|p| p.id == person && p.organization_id == self.organization)
            .and_then(|p| destination_country(&p.addresses).map(str::to_owned)))
    }

    fn take_item(&mut self, tiers: &[Tier]) -> StoreResult<Option<InventoryItem>> {
        let candidates: Vec<Candidate> = self
            .state
            .inventory
            .iter()
            .filter(|i| i.organization_id == self.organization)
            .filter_map(|i| {
                counted_at(i).map(|(sku_id, warehouse_id)| Candidate {
                    item_id: i.id,
                    sku_id,
                    warehouse_id,
                    created_at: i.created_at,
                })
            })
            .collect();
        let Some(id) = pick(tiers, &candidates) else {
            return Ok(None);
        };
        self.item(id)
    }

    fn item(&mut self, id: InventoryItemId) -> StoreResult<Option<InventoryItem>> {
        Ok(self
            .state
            .inventory
            .iter()
            .find(|i| i.id == id && i.organization_id == self.organization)
            .cloned())
    }

    fn write_item(&mut self, before: &InventoryItem, after: &InventoryItem) -> StoreResult<()> {
        let org = self.organization;
        let Some(slot) = self
            .state
            .inventory
            .iter_mut()
            .find(|i| i.id == before.id && i.organization_id == org)
        else {
            return Err(StoreError::NotFound {
                entity: "inventoryItem",
            });
        };
        *slot = after.clone();
        if let Some(event) = NewEvent::updated(EventType::ItemUpdated, before, after) {
            self.record(event);
        }
        Ok(())
    }

    fn write_order(&mut self, before: Option<&Order>, after: &Order) -> StoreResult<()> {
        for event in written(before, after) {
            self.record(event);
        }
        upsert(&mut self.state.orders, after, |o| o.id);
        Ok(())
    }

    fn lock_levels(&mut self, pairs: &BTreeSet<StockPair>) -> StoreResult<Vec<LevelFacts>> {
        let mut levels: Vec<LevelFacts> = self
            .state
            .inventory_levels
            .iter()
            .filter(|l| l.organization_id == self.organization && l.is_active())
            .filter(|l| pairs.contains(&(l.sku_id, l.warehouse_id)))
            .map(|l| LevelFacts {
                id: l.id,
                sku_id: l.sku_id,
                warehouse_id: l.warehouse_id,
                minimum_quantity: l.minimum_quantity,
                below: self.state.levels_below.contains(&l.id),
            })
            .collect();
        levels.sort_by_key(|l| l.id.to_string());
        Ok(levels)
    }

    fn available_counts(&mut self, pairs: &[StockPair]) -> StoreResult<HashMap<StockPair, i64>> {
        let wanted: BTreeSet<&StockPair> = pairs.iter().collect();
        let mut counts: HashMap<StockPair, i64> = HashMap::new();
        for item in &self.state.inventory {
            if item.organization_id != self.organization {
                continue;
            }
            if let Some(pair) = counted_at(item).filter(|p| wanted.contains(p)) {
                *counts.entry(pair).or_default() += 1;
            }
        }
        Ok(counts)
    }

    fn set_level_flags(
        &mut self,
        below: &[InventoryLevelId],
        clear: &[InventoryLevelId],
    ) -> StoreResult<()> {
        self.state.levels_below.extend(below.iter().copied());
        for id in clear {
            self.state.levels_below.remove(id);
        }
        Ok(())
    }

    fn record(&mut self, event: NewEvent) {
        self.state
            .record(self.organization, self.actor.clone(), self.at, event);
    }
}
