//! A sort order of an organization's listing in memory: the slots in the
//! order of one sort key, ascending, ties broken by item id (descending is
//! the same walked backwards, as `ORDER BY key DESC, item_id DESC` is), and
//! the interned texts' positions in byte order it was built with (to sort a
//! few matches by the same comparison, [`Order::cmp`]).
//!
//! The keys compare exactly as the SQL order does (`listing/order.rs`):
//! texts in byte order, times and the condition's rank as values, the
//! category then the product for `category`. An order is built on first use
//! and afterwards catches up from the columns' log of changed rows (the
//! changed rows are taken out and merged back in), or is rebuilt when the log
//! moved past it.

use std::cmp::Ordering;

use equip_domain::inventory_query::SortKey;

use super::columns::Columns;

/// One sort order of the rows.
#[derive(Debug, Clone)]
pub(crate) struct Order {
    /// Slots, ascending.
    pub(super) perm: Vec<u32>,
    key: SortKey,
    /// The interned texts' positions in byte order, by id.
    ranks: Vec<u32>,
    /// The columns (their epoch) and log position this order holds.
    epoch: u64,
    seen: u64,
}

/// Compares slots by one key, as the SQL order does.
struct Sorter<'a> {
    cols: &'a Columns,
    key: SortKey,
    /// The interned texts' positions in byte order.
    ranks: &'a [u32],
}

/// A time as two ordered numbers (seconds, nanoseconds).
fn time_key(t: chrono::NaiveDateTime) -> (u64, u64) {
    let utc = t.and_utc();
    (
        flip(utc.timestamp()),
        u64::from(utc.timestamp_subsec_nanos()),
    )
}

/// A signed number as an unsigned one in the same order.
fn flip(n: i64) -> u64 {
    (n as u64) ^ (1 << 63)
}

impl Order {
    /// Bytes held on the heap.
    pub(super) fn heap_bytes(&self) -> usize {
        (self.perm.capacity() + self.ranks.capacity()) * size_of::<u32>()
    }
}

impl Sorter<'_> {
    fn text(&self, id: u32) -> u64 {
        u64::from(self.ranks.get(id as usize).copied().unwrap_or(u32::MAX))
    }

    /// The key of a slot as numbers, for every key but the serial number.
    fn numbers(&self, slot: u32) -> (u64, u64) {
        let i = slot as usize;
        let r = &self.cols.rows[i];
        match self.key {
            SortKey::CreatedAt => time_key(r.created),
            SortKey::UpdatedAt => time_key(r.updated),
            SortKey::Product => (self.text(r.product), 0),
            SortKey::SkuId => (self.text(r.sku), 0),
            SortKey::DeployStatus => (self.text(self.cols.status[i]), 0),
            SortKey::DeployReason => (self.text(r.reason), 0),
            SortKey::Assignee => (self.text(r.label), 0),
            SortKey::Condition => (flip(i64::from(r.condition)), 0),
            SortKey::RenewalDate => (self.text(r.renewal), 0),
            SortKey::Category => (self.text(self.cols.category[i]), self.text(r.product)),
            SortKey::SuppliedBy => (self.text(r.supplied), 0),
            // Compared as bytes (`cmp`).
            SortKey::SerialNumber => (0, 0),
        }
    }

    fn id(&self, slot: u32) -> u128 {
        self.cols.rows[slot as usize].id()
    }

    fn cmp(&self, a: u32, b: u32) -> Ordering {
        let first = match self.key {
            SortKey::SerialNumber => self.cols.serial(a).cmp(self.cols.serial(b)),
            _ => self.numbers(a).cmp(&self.numbers(b)),
        };
        first.then_with(|| self.id(a).cmp(&self.id(b)))
    }

    /// Sorts `slots` in this order.
    fn sort(&self, slots: &mut [u32]) {
        if self.key == SortKey::SerialNumber {
            slots.sort_unstable_by(|a, b| self.cmp(*a, *b));
        } else {
            let mut keyed: Vec<((u64, u64, u128), u32)> = slots
                .iter()
                .map(|&s| {
                    let (x, y) = self.numbers(s);
                    ((x, y, self.id(s)), s)
                })
                .collect();
            keyed.sort_unstable();
            for (out, (_, slot)) in slots.iter_mut().zip(keyed) {
                *out = slot;
            }
        }
    }
}

impl Order {
    /// Whether the order holds every change of `cols`.
    pub(super) fn is_current(&self, cols: &Columns) -> bool {
        self.epoch == cols.epoch && self.seen == cols.log_end() && self.perm.len() == cols.len()
    }

    /// The order of `key` over `cols`: `previous` caught up, or built anew.
    pub(super) fn of(cols: &Columns, key: SortKey, previous: Option<&Order>) -> Order {
        let ranks = cols.strings.ranks();
        let sorter = Sorter {
            cols,
            key,
            ranks: &ranks,
        };
        if let Some(old) = previous {
            if old.epoch == cols.epoch && old.seen >= cols.log_start && old.seen <= cols.log_end() {
                let from = usize::try_from(old.seen - cols.log_start).unwrap_or(usize::MAX);
                let changed = &cols.log[from.min(cols.log.len())..];
                if changed.len() <= cols.len() / 16 + 64 {
                    let perm = old.merged(&sorter, changed);
                    return Order::new(perm, key, ranks, cols);
                }
            }
        }
        let mut perm: Vec<u32> = (0..u32::try_from(cols.len()).unwrap_or(u32::MAX)).collect();
        sorter.sort(&mut perm);
        Order::new(perm, key, ranks, cols)
    }

    fn new(perm: Vec<u32>, key: SortKey, ranks: Vec<u32>, cols: &Columns) -> Order {
        Order {
            perm,
            key,
            ranks,
            epoch: cols.epoch,
            seen: cols.log_end(),
        }
    }

    /// Compares two slots of `cols` (which this order is current for) in
    /// this order.
    pub(super) fn cmp(&self, cols: &Columns, a: u32, b: u32) -> Ordering {
        Sorter {
            cols,
            key: self.key,
            ranks: &self.ranks,
        }
        .cmp(a, b)
    }

    /// This order with the `changed` slots (changed or new rows) taken out
    /// and merged back in at their new places.
    fn merged(&self, sorter: &Sorter<'_>, changed: &[u32]) -> Vec<u32> {
        let n = sorter.cols.len();
        let mut is_changed = vec![false; n];
        let mut moved: Vec<u32> = Vec::with_capacity(changed.len());
        for &slot in changed {
            if let Some(flag) = is_changed.get_mut(slot as usize) {
                if !*flag {
                    *flag = true;
                    moved.push(slot);
                }
            }
        }
        sorter.sort(&mut moved);
        let mut perm = Vec::with_capacity(n);
        let mut moved = moved.into_iter().peekable();
        for &slot in self.perm.iter().filter(|s| !is_changed[**s as usize]) {
            while let Some(&m) = moved.peek() {
                if sorter.cmp(m, slot) == Ordering::Less {
                    perm.push(m);
                    moved.next();
                } else {
                    break;
                }
            }
            perm.push(slot);
        }
        perm.extend(moved);
        perm
    }
}

#[cfg(test)]
mod tests {
    use super::super::columns::tests::source;
    use super::*;

    fn ids(cols: &Columns, order: &Order) -> Vec<u128> {
        order
            .perm
            .iter()
            .map(|s| cols.rows[*s as usize].id())
            .collect()
    }

    #[test]
    fn ties_break_by_item_id() {
        let mut c = Columns::default();
        c.apply(vec![
            source(3, "AVAILABLE", "b", "x"),
            source(1, "AVAILABLE", "a", "y"),
            source(2, "AVAILABLE", "b", "z"),
        ]);
        let o = Order::of(&c, SortKey::Product, None);
        assert_eq!(ids(&c, &o), vec![1, 2, 3]);
        let o = Order::of(&c, SortKey::SerialNumber, None);
        assert_eq!(ids(&c, &o), vec![3, 1, 2]);
    }

    #[test]
    fn a_caught_up_order_is_the_order_built_anew() {
        let mut c = Columns::default();
        let rows: Vec<_> = (0..500_u128)
            .map(|n| {
                source(
                    n,
                    "AVAILABLE",
                    &format!("t{}", n % 37),
                    &format!("s{}", n * 7 % 101),
                )
            })
            .collect();
        c.apply(rows);
        for key in SortKey::ALL {
            let old = Order::of(&c, *key, None);
            let mut changed = c.clone();
            changed.apply(vec![
                source(5, "DEPLOYED", "zz", "a"),
                source(900, "AVAILABLE", "t3", "s3"),
                source(17, "ARCHIVED", "", "s17"),
            ]);
            let caught_up = Order::of(&changed, *key, Some(&old));
            let fresh = Order::of(&changed, *key, None);
            assert_eq!(caught_up.perm, fresh.perm, "{key:?}");
            assert!(caught_up.is_current(&changed));
        }
    }
}
