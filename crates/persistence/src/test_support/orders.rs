//! Orders set up for tests, written as provisioning writes them (the
//! order's rows and events through `crate::orders::write::write_order`, each
//! item a newly ALLOCATED line holds moved with
//! `orders::fulfilment::allocated`), so that the order endpoints can be
//! tested without going through provisioning.

use equip_domain::error::StoreResult;
use equip_domain::orders::fulfilment;
use equip_domain::orders::order::Order;
use equip_domain::orders::LineStatus;

use crate::error::DbError;
use crate::events::recorded;
use crate::listing::{refresh, Scope};
use crate::orders::read::lock_order;
use crate::orders::write::write_order;
use crate::returns::{lock_items, read_item, write_item};
use crate::Store;

impl Store {
    /// Writes `order` (new, or over the stored one): its rows and events,
    /// and each item a line of it newly holds as ALLOCATED made UNAVAILABLE
    /// with PENDING_FULFILLMENT. For tests.
    ///
    /// # Errors
    /// Store failures (a second open order of the person is `Duplicate`).
    #[doc(hidden)]
    pub fn put_order_for_tests(&self, order: &Order) -> StoreResult<()> {
        let org = order.organization_id.to_string();
        self.with("order", "", |c| {
            let _writer = self.sqlite_writer(c);
            recorded(c, &self.actor, |c, events| {
                let before = lock_order(c, &org, order.id)?;
                write_order(c, events, &org, before.as_ref(), order)?;
                let taken: Vec<_> = order
                    .lines
                    .iter()
                    .filter(|l| l.status == LineStatus::Allocated)
                    .filter(|l| {
                        before
                            .as_ref()
                            .and_then(|b| b.line(l.id))
                            .is_none_or(|b| b.status != LineStatus::Allocated)
                    })
                    .filter_map(|l| l.item_id)
                    .collect();
                lock_items(c, &org, &taken)?;
                for id in &taken {
                    let item = read_item(c, &org, *id)?
                        .ok_or_else(|| DbError::corrupt(format!("no item {id}")))?;
                    let after = fulfilment::allocated(&item, order.updated_at);
                    write_item(c, &org, &item, &after, events)?;
                }
                let texts: Vec<String> = taken.iter().map(ToString::to_string).collect();
                refresh(c, &org, Scope::Items(&texts))?;
                Ok::<_, DbError>(())
            })
        })
    }
}
