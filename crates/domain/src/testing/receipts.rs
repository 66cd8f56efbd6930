//! Receipts, hold periods and hold releases in memory, by the rules of
//! `crate::returns` (the in-memory store keeps an item's active return on
//! the item: its line asks no ITAD, and no order status is kept).

use chrono::NaiveDate;

use super::*;
use crate::event::{EventType, NewEvent};
use crate::ports::{EntryOutcome, ReceiptRepository};
use crate::returns::hold::{self, HoldPeriod};
use crate::returns::receipt::{self, ItemKey, OpenLine, ReceiptEntry, ReceiptFacts, Receiving};

impl ReceiptRepository for InMemoryStore {
    fn hold_period(&self, organization: OrganizationId) -> StoreResult<Option<HoldPeriod>> {
        let s = self.state();
        if !s.organizations.iter().any(|o| o.id == organization) {
            return Ok(None);
        }
        Ok(Some(
            s.hold_periods
                .get(&organization)
                .copied()
                .unwrap_or_default(),
        ))
    }

    fn set_hold_period(
        &self,
        organization: OrganizationId,
        period: HoldPeriod,
    ) -> StoreResult<bool> {
        let mut s = self.state();
        if !s.organizations.iter().any(|o| o.id == organization) {
            return Ok(false);
        }
        s.hold_periods.insert(organization, period);
        Ok(true)
    }

    fn receive_item(
        &self,
        organization: OrganizationId,
        entry: &ReceiptEntry,
        receiving: Receiving,
    ) -> StoreResult<EntryOutcome> {
        let mut s = self.state();
        let period = s
            .hold_periods
            .get(&organization)
            .copied()
            .unwrap_or_default();
        let found: Vec<usize> = s
            .inventory
            .iter()
            .enumerate()
            .filter(|(_, i)| {
                i.organization_id == organization
                    && match &entry.key {
                        ItemKey::Id(id) => i.id == *id,
                        ItemKey::Serial(serial) => i.serial_number.as_deref() == Some(serial),
                    }
            })
            .map(|(n, _)| n)
            .collect();
        let sent_serial = match &entry.key {
            ItemKey::Serial(serial) => Some(serial.clone()),
            ItemKey::Id(_) => None,
        };
        let [at] = found[..] else {
            return Ok(EntryOutcome {
                item: None,
                serial_number: sent_serial,
                result: Err(receipt::not_found(&entry.key, found.len())),
            });
        };
        let current = s.inventory[at].clone();
        let line = current.return_order.as_ref().map(|r| OpenLine {
            id: r.return_order_item_id,
            order: r.id,
            itad_requested: false,
        });
        let facts = ReceiptFacts {
            item: &current,
            line,
            hold_period: period,
        };
        let result = match receipt::receive(facts, entry.condition, receiving) {
            Ok(received) => {
                if let Some(event) =
                    NewEvent::updated(EventType::ItemUpdated, &current, &received.item)
                {
                    s.record(organization, self.actor(), receiving.at, event);
                }
                let after = received.item;
                s.inventory[at] = after.clone();
                s.restate_levels_for(
                    organization,
                    Some(&current),
                    Some(&after),
                    self.actor(),
                    receiving.at,
                )?;
                Ok(())
            }
            Err(refusal) => Err(refusal),
        };
        Ok(EntryOutcome {
            item: Some(current.id),
            serial_number: current.serial_number.clone(),
            result,
        })
    }

    fn release_hold(
        &self,
        organization: OrganizationId,
        item: InventoryItemId,
        at: DateTime<Utc>,
    ) -> StoreResult<EntryOutcome> {
        let mut s = self.state();
        let Some(n) = s
            .inventory
            .iter()
            .position(|i| i.id == item && i.organization_id == organization)
        else {
            return Ok(EntryOutcome {
                item: None,
                serial_number: None,
                result: Err(receipt::not_found(&ItemKey::Id(item), 0)),
            });
        };
        let current = s.inventory[n].clone();
        let result = match hold::release(&current, at) {
            Ok(released) => {
                if let Some(event) = NewEvent::updated(EventType::ItemUpdated, &current, &released)
                {
                    s.record(organization, self.actor(), at, event);
                }
                s.inventory[n] = released.clone();
                s.restate_levels_for(
                    organization,
                    Some(&current),
                    Some(&released),
                    self.actor(),
                    at,
                )?;
                Ok(())
            }
            Err(refusal) => Err(refusal),
        };
        Ok(EntryOutcome {
            item: Some(item),
            serial_number: current.serial_number,
            result,
        })
    }

    fn release_due_holds(
        &self,
        today: NaiveDate,
        at: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<usize> {
        let mut s = self.state();
        let due: Vec<usize> = s
            .inventory
            .iter()
            .enumerate()
            .filter(|(_, i)| i.unlock_date.is_some_and(|d| hold::is_due(d, today)))
            .map(|(n, _)| n)
            .take(limit)
            .collect();
        let actor = self.actor();
        for n in &due {
            let current = s.inventory[*n].clone();
            let released =
                hold::release(&current, at).map_err(|e| StoreError::Backend(e.to_string()))?;
            if let Some(event) = NewEvent::updated(EventType::ItemUpdated, &current, &released) {
                s.record(current.organization_id, actor.clone(), at, event);
            }
            s.inventory[*n] = released.clone();
            s.restate_levels_for(
                current.organization_id,
                Some(&current),
                Some(&released),
                actor.clone(),
                at,
            )?;
        }
        Ok(due.len())
    }
}
