//! A listing query answered over an organization's rows in memory: the
//! filter compiled against the interned texts ([`Compiled`]), its matches
//! counted, and the page's slots chosen in the order's sequence.
//!
//! Each filter means what its SQL means (`listing/filter.rs`) over the same
//! stored keys: a substring of the stored search text, equality of the
//! lowercased keys, the holder's type and id. How a page is chosen depends on
//! how many rows match: a common filter walks the order and stops after the
//! page; a rare one collects its matches and picks the page by their
//! positions in the order. The total is exact either way: the maintained
//! counts per status and category, or the number of matches.

use chrono::NaiveDateTime;
use memchr::memmem::Finder;

use equip_domain::inventory_query::{AssigneeFilter, InventoryFilter, SortDirection};

use super::columns::{holder_key, Columns};
use super::order::Order;

/// Matches held as one bit per slot.
#[derive(Debug, Clone)]
pub(super) struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Self {
        Self(vec![0; n.div_ceil(64)])
    }
    fn set(&mut self, slot: u32) {
        let i = slot as usize;
        if let Some(word) = self.0.get_mut(i / 64) {
            *word |= 1 << (i % 64);
        }
    }
    /// The slots set, ascending.
    fn slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(i, word)| {
            let mut w = *word;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let bit = w.trailing_zeros();
                w &= w - 1;
                u32::try_from(i * 64).ok().map(|base| base + bit)
            })
        })
    }
    fn get(&self, slot: u32) -> bool {
        let i = slot as usize;
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
}

/// A filter over one organization's columns. `None` in a field: that filter
/// is absent; an empty list: it matches nothing.
#[derive(Debug)]
pub(super) struct Compiled {
    statuses: Option<Vec<u32>>,
    categories: Option<Vec<u32>>,
    skus: Option<Vec<u32>>,
    /// The holders every holder filter allows (their intersection).
    holders: Option<Vec<u32>>,
    serials: Option<Vec<String>>,
    vendor_skus: Option<Vec<u32>>,
    updated_from: Option<NaiveDateTime>,
    updated_to: Option<NaiveDateTime>,
    search: Option<Bits>,
}

/// The ids of the texts in `values` that some row holds.
fn ids_of<'a>(cols: &Columns, values: impl IntoIterator<Item = &'a str>) -> Vec<u32> {
    values
        .into_iter()
        .filter_map(|v| cols.strings.id(v))
        .collect()
}

fn keep(allowed: Option<Vec<u32>>, more: Vec<u32>) -> Option<Vec<u32>> {
    Some(match allowed {
        None => more,
        Some(before) => before.into_iter().filter(|h| more.contains(h)).collect(),
    })
}

impl Compiled {
    /// `f` against `cols`; `email_people` are the people an assigned-email
    /// filter resolved to.
    pub(super) fn new(cols: &Columns, f: &InventoryFilter, email_people: &[String]) -> Self {
        // Every field is named, so that a new filter does not compile until
        // it is given its meaning here too.
        let InventoryFilter {
            person,
            warehouse_id,
            office_id,
            categories,
            deploy_statuses,
            matches_nothing,
            sku_ids,
            search,
            updated_from,
            updated_to,
            serial_numbers,
            vendor_skus,
        } = f;
        let list = |values: Vec<u32>, present: bool| present.then_some(values);
        let statuses = if *matches_nothing {
            Some(Vec::new())
        } else {
            list(
                ids_of(cols, deploy_statuses.iter().map(|s| s.as_str())),
                !deploy_statuses.is_empty(),
            )
        };
        let mut holders = None;
        match person {
            Some(AssigneeFilter::Person(id)) => {
                holders = keep(
                    holders,
                    ids_of(cols, [holder_key("PERSON", &id.to_string()).as_str()]),
                );
            }
            Some(AssigneeFilter::Email(_)) => {
                let keys: Vec<String> = email_people
                    .iter()
                    .map(|p| holder_key("PERSON", p))
                    .collect();
                holders = keep(holders, ids_of(cols, keys.iter().map(String::as_str)));
            }
            None => {}
        }
        if let Some(id) = warehouse_id {
            holders = keep(
                holders,
                ids_of(cols, [holder_key("WAREHOUSE", &id.to_string()).as_str()]),
            );
        }
        if let Some(id) = office_id {
            holders = keep(
                holders,
                ids_of(cols, [holder_key("OFFICE", &id.to_string()).as_str()]),
            );
        }
        let sku_texts: Vec<String> = sku_ids.iter().map(ToString::to_string).collect();
        Self {
            statuses,
            categories: list(
                ids_of(cols, categories.iter().map(String::as_str)),
                !categories.is_empty(),
            ),
            skus: list(
                ids_of(cols, sku_texts.iter().map(String::as_str)),
                !sku_ids.is_empty(),
            ),
            holders,
            serials: (!serial_numbers.is_empty()).then(|| serial_numbers.clone()),
            vendor_skus: list(
                ids_of(cols, vendor_skus.iter().map(String::as_str)),
                !vendor_skus.is_empty(),
            ),
            updated_from: *updated_from,
            updated_to: *updated_to,
            search: search.as_deref().map(|q| search_hits(cols, q)),
        }
    }

    /// Whether some filter can match no row at all.
    fn matches_nothing(&self) -> bool {
        [
            &self.statuses,
            &self.categories,
            &self.skus,
            &self.holders,
            &self.vendor_skus,
        ]
        .iter()
        .any(|f| f.as_ref().is_some_and(Vec::is_empty))
    }

    /// Whether only statuses and categories (or nothing) filter: the total
    /// is then the maintained counts'. Every field is named, so that a new
    /// one does not compile until it is decided here (a wrong total
    /// otherwise).
    fn by_status_and_category_only(&self) -> bool {
        let Self {
            statuses: _,
            categories: _,
            skus,
            holders,
            serials,
            vendor_skus,
            updated_from,
            updated_to,
            search,
        } = self;
        skus.is_none()
            && holders.is_none()
            && serials.is_none()
            && vendor_skus.is_none()
            && updated_from.is_none()
            && updated_to.is_none()
            && search.is_none()
    }

    fn matches(&self, cols: &Columns, slot: u32) -> bool {
        let i = slot as usize;
        let r = &cols.rows[i];
        let within =
            |allowed: &Option<Vec<u32>>, v: u32| allowed.as_ref().is_none_or(|a| a.contains(&v));
        within(&self.statuses, cols.status[i])
            && within(&self.categories, cols.category[i])
            && within(&self.skus, r.sku)
            && within(&self.holders, r.holder)
            && within(&self.vendor_skus, r.vendor_sku)
            && self
                .serials
                .as_ref()
                .is_none_or(|s| s.iter().any(|v| v.as_bytes() == cols.serial(slot)))
            && self.updated_from.is_none_or(|t| r.updated >= t)
            && self.updated_to.is_none_or(|t| r.updated <= t)
            && self.search.as_ref().is_none_or(|b| b.get(slot))
    }
}

/// The rows whose search text holds `q` (lowercased, as the stored text is).
fn search_hits(cols: &Columns, q: &str) -> Bits {
    let n = cols.len();
    let mut hits = Bits::new(n);
    let finder = Finder::new(q.as_bytes());
    if q.contains('\n') {
        // A search with a newline may span the text's fields: each row's
        // whole text (rare: no form sends one).
        for (slot, row) in cols.rows.iter().enumerate() {
            let slot = u32::try_from(slot).unwrap_or(u32::MAX);
            let mut text = cols
                .heads
                .text(cols.head[slot as usize])
                .as_bytes()
                .to_vec();
            if row.serial_in_search {
                text.push(b'\n');
                text.extend_from_slice(cols.serial(slot));
            }
            if finder.find(&text).is_some() {
                hits.set(slot);
            }
        }
        return hits;
    }
    // Otherwise a match lies within the head (shared by the items of a SKU)
    // or within the serial number.
    let head_hit: Vec<bool> = (0..cols.heads.len())
        .map(|h| {
            finder
                .find(
                    cols.heads
                        .text(u32::try_from(h).unwrap_or(u32::MAX))
                        .as_bytes(),
                )
                .is_some()
        })
        .collect();
    if head_hit.iter().any(|h| *h) {
        for (slot, head) in cols.head.iter().enumerate() {
            if head_hit[*head as usize] {
                hits.set(u32::try_from(slot).unwrap_or(u32::MAX));
            }
        }
    }
    for at in finder.find_iter(&cols.serials) {
        let owner = cols
            .serial_owners
            .partition_point(|(start, _)| *start as usize <= at);
        let Some(&(start, slot)) = owner.checked_sub(1).and_then(|i| cols.serial_owners.get(i))
        else {
            continue;
        };
        let row = &cols.rows[slot as usize];
        // Only the row's current serial, and only within it.
        if row.serial.start == start
            && row.serial_in_search
            && at + q.len() <= (start + row.serial.len) as usize
        {
            hits.set(slot);
        }
    }
    hits
}

/// Rarer than one row in this many: the matches are collected and sorted;
/// commoner: the order is walked.
const RARE: u64 = 16;

/// The slots of the page (`offset`, `size`) of the rows `f` matches in
/// `order` and `direction`, and the number of matches.
pub(super) fn select(
    cols: &Columns,
    order: &Order,
    f: &Compiled,
    direction: SortDirection,
    offset: u64,
    size: u32,
) -> (Vec<u32>, u64) {
    let n = cols.len() as u64;
    if f.matches_nothing() {
        return (Vec::new(), 0);
    }
    if f.by_status_and_category_only() {
        let total: u64 = cols
            .counts
            .iter()
            .filter(|((s, c), _)| {
                f.statuses.as_ref().is_none_or(|a| a.contains(s))
                    && f.categories.as_ref().is_none_or(|a| a.contains(c))
            })
            .map(|(_, k)| *k)
            .sum();
        if total == n {
            return (walk(order, direction, offset, size, |_| true), total);
        }
        if total.saturating_mul(RARE) >= n {
            return (
                walk(order, direction, offset, size, |s| f.matches(cols, s)),
                total,
            );
        }
    }
    // A search names its candidates: only they are checked further.
    let matched: Vec<u32> = match &f.search {
        Some(hits) => hits.slots().filter(|s| f.matches(cols, *s)).collect(),
        None => (0..u32::try_from(cols.len()).unwrap_or(u32::MAX))
            .filter(|s| f.matches(cols, *s))
            .collect(),
    };
    let total = matched.len() as u64;
    if total.saturating_mul(RARE) >= n {
        let mut member = Bits::new(cols.len());
        for s in &matched {
            member.set(*s);
        }
        return (
            walk(order, direction, offset, size, |s| member.get(s)),
            total,
        );
    }
    (
        by_order(cols, order, matched, direction, offset, size),
        total,
    )
}

/// Walks the order, skipping `offset` matches and taking `size`.
fn walk(
    order: &Order,
    direction: SortDirection,
    offset: u64,
    size: u32,
    matches: impl Fn(u32) -> bool,
) -> Vec<u32> {
    let mut page = Vec::with_capacity(size as usize);
    let mut skip = offset;
    let mut take = |slot: u32| {
        if !matches(slot) {
            return true;
        }
        if skip > 0 {
            skip -= 1;
            return true;
        }
        page.push(slot);
        page.len() < size as usize
    };
    match direction {
        SortDirection::Asc => {
            for &slot in &order.perm {
                if !take(slot) {
                    break;
                }
            }
        }
        SortDirection::Desc => {
            for &slot in order.perm.iter().rev() {
                if !take(slot) {
                    break;
                }
            }
        }
    }
    page
}

/// The page of a few matched slots, in the order: the first `offset + size`
/// selected, then sorted.
fn by_order(
    cols: &Columns,
    order: &Order,
    mut matched: Vec<u32>,
    direction: SortDirection,
    offset: u64,
    size: u32,
) -> Vec<u32> {
    let Ok(offset) = usize::try_from(offset) else {
        return Vec::new();
    };
    if offset >= matched.len() {
        return Vec::new();
    }
    let cmp = |a: &u32, b: &u32| match direction {
        SortDirection::Asc => order.cmp(cols, *a, *b),
        SortDirection::Desc => order.cmp(cols, *b, *a),
    };
    let end = offset.saturating_add(size as usize).min(matched.len());
    if end < matched.len() {
        matched.select_nth_unstable_by(end, cmp);
        matched.truncate(end);
    }
    matched.sort_unstable_by(cmp);
    matched.drain(..offset);
    matched
}

#[cfg(test)]
mod tests {
    use equip_domain::inventory_query::{InventoryQuery, RawInventoryQuery, SortKey};

    use super::super::columns::tests::source;
    use super::*;

    fn filter(raw: RawInventoryQuery) -> InventoryFilter {
        InventoryQuery::parse(&raw).unwrap().filter().clone()
    }

    fn inventory(n: u128) -> Columns {
        let mut c = Columns::default();
        let statuses = ["AVAILABLE", "DEPLOYED", "ARCHIVED"];
        c.apply(
            (0..n)
                .map(|i| {
                    source(
                        i,
                        statuses[(i % 3) as usize],
                        &format!("macbook {}", i % 5),
                        &format!("c02x{i:04}"),
                    )
                })
                .collect(),
        );
        c
    }

    /// The page by brute force: every row checked, sorted by the order.
    fn expected(
        c: &Columns,
        o: &Order,
        f: &Compiled,
        dir: SortDirection,
        offset: usize,
        size: usize,
    ) -> (Vec<u32>, u64) {
        let mut all: Vec<u32> = o
            .perm
            .iter()
            .copied()
            .filter(|s| f.matches(c, *s))
            .collect();
        if dir == SortDirection::Desc {
            all.reverse();
        }
        let total = all.len() as u64;
        (all.into_iter().skip(offset).take(size).collect(), total)
    }

    #[test]
    fn every_strategy_gives_the_brute_force_page() {
        let c = inventory(2000);
        let o = Order::of(&c, SortKey::SerialNumber, None);
        let filters = [
            RawInventoryQuery::default(),
            RawInventoryQuery {
                deploy_statuses: vec!["ARCHIVED".into()],
                ..Default::default()
            },
            RawInventoryQuery {
                categories: vec!["phone".into()],
                deploy_statuses: vec!["DEPLOYED".into()],
                ..Default::default()
            },
            // Common (every row's head) and rare (a few serials).
            RawInventoryQuery {
                search_string: Some("macbook".into()),
                ..Default::default()
            },
            RawInventoryQuery {
                search_string: Some("x001".into()),
                ..Default::default()
            },
            RawInventoryQuery {
                search_string: Some("k 3".into()),
                deploy_statuses: vec!["AVAILABLE".into()],
                ..Default::default()
            },
            RawInventoryQuery {
                serial_numbers: vec!["c02x0007,c02x0011".into()],
                ..Default::default()
            },
            RawInventoryQuery {
                categories: vec!["tablet".into()],
                ..Default::default()
            },
        ];
        for raw in filters {
            let f = Compiled::new(&c, &filter(raw.clone()), &[]);
            for dir in [SortDirection::Asc, SortDirection::Desc] {
                for (offset, size) in [(0, 10), (95, 10), (600, 100), (1990, 100), (5000, 1)] {
                    let got = select(&c, &o, &f, dir, offset as u64, size as u32);
                    assert_eq!(
                        got,
                        expected(&c, &o, &f, dir, offset, size),
                        "{raw:?} {dir:?} {offset}"
                    );
                }
            }
        }
    }

    #[test]
    fn search_finds_substrings_of_the_head_and_of_the_serial_only() {
        let c = inventory(20);
        let hits = |q: &str| {
            let f = Compiled::new(
                &c,
                &filter(RawInventoryQuery {
                    search_string: Some(q.into()),
                    ..Default::default()
                }),
                &[],
            );
            let o = Order::of(&c, SortKey::CreatedAt, None);
            select(&c, &o, &f, SortDirection::Asc, 0, 100).1
        };
        assert_eq!(hits("c02x0013"), 1);
        assert_eq!(hits("macbook 2"), 4);
        assert_eq!(hits("vendor"), 20);
        // Across the serial's end into the next serial: no row holds it.
        assert_eq!(hits("0013c02x"), 0);
        // A newline joins the head and the serial.
        assert_eq!(hits("macbook 3\nc02x0013"), 1);
        assert_eq!(hits("macbook 2\nc02x0013"), 0);
    }
}
