//! One organization's listing in memory: a row per item holding every filter
//! and sort key exactly as its `inventory_listing` row holds them (texts
//! interned, serial numbers in one searchable arena), the item counts per
//! status and category, and the log of rows changed since the orders were
//! built (`order.rs` catches up from it).
//!
//! Pure: built and changed from [`SourceRow`]s, which `load.rs` reads.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use chrono::NaiveDateTime;

/// A listing row as the database holds it (`load.rs` reads them).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SourceRow {
    pub(crate) item_id: u128,
    pub(crate) created_at: NaiveDateTime,
    pub(crate) updated_at: NaiveDateTime,
    pub(crate) deploy_status: String,
    pub(crate) deploy_reason: String,
    pub(crate) condition_rank: i32,
    pub(crate) serial_number: String,
    pub(crate) sku_id: String,
    pub(crate) product: String,
    pub(crate) category: String,
    pub(crate) vendor_sku: String,
    pub(crate) assignee_type: String,
    pub(crate) assignee_id: String,
    pub(crate) assignee: String,
    pub(crate) renewal_date: String,
    pub(crate) supplied_by: String,
    pub(crate) search_text: String,
}

/// Interned texts: each distinct text once, named by a dense id.
#[derive(Debug, Default, Clone)]
pub(super) struct Strings {
    texts: Vec<Box<str>>,
    ids: HashMap<Box<str>, u32>,
}

impl Strings {
    /// The id of `s`, interning it if new.
    pub(super) fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        // More than 4 billion distinct texts cannot be held in memory anyway.
        let id = u32::try_from(self.texts.len()).unwrap_or(u32::MAX);
        self.texts.push(s.into());
        self.ids.insert(s.into(), id);
        id
    }

    /// The id of `s`, if any row holds it.
    pub(super) fn id(&self, s: &str) -> Option<u32> {
        self.ids.get(s).copied()
    }

    /// The text of `id`.
    pub(super) fn text(&self, id: u32) -> &str {
        self.texts.get(id as usize).map_or("", |t| t)
    }

    pub(super) fn len(&self) -> usize {
        self.texts.len()
    }

    /// Bytes held on the heap: each text twice (the list and the table's
    /// key), the list, and the table's entries and control bytes.
    pub(super) fn heap_bytes(&self) -> usize {
        let texts: usize = self.texts.iter().map(|t| t.len()).sum();
        self.texts.capacity() * size_of::<Box<str>>()
            + 2 * texts
            + self.ids.capacity() * (size_of::<(Box<str>, u32)>() + 1)
    }

    /// Each text's position in byte order (the order of `COLLATE "C"` and of
    /// SQLite's binary collation), by id.
    pub(super) fn ranks(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = (0..u32::try_from(self.texts.len()).unwrap_or(u32::MAX)).collect();
        ids.sort_unstable_by(|a, b| self.text(*a).as_bytes().cmp(self.text(*b).as_bytes()));
        let mut rank = vec![0_u32; ids.len()];
        for (position, id) in ids.into_iter().enumerate() {
            rank[id as usize] = u32::try_from(position).unwrap_or(u32::MAX);
        }
        rank
    }
}

/// Where a row's serial number is in the serial arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    pub(super) start: u32,
    pub(super) len: u32,
}

/// One item's keys (the ones every filter scan reads, status, category and
/// search head, are kept in columns of their own, [`Columns`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Row {
    /// The item id (a UUID; its byte order is the order of its text), as
    /// two halves: 8 bytes less per row than a `u128`'s alignment costs.
    id_halves: [u64; 2],
    pub(super) created: NaiveDateTime,
    pub(super) updated: NaiveDateTime,
    pub(super) reason: u32,
    pub(super) condition: i32,
    pub(super) sku: u32,
    pub(super) product: u32,
    pub(super) vendor_sku: u32,
    /// The holder: `TYPE` and id, interned (`holder_key`).
    pub(super) holder: u32,
    /// The holder's label (the `assignee` sort key).
    pub(super) label: u32,
    pub(super) renewal: u32,
    pub(super) supplied: u32,
    pub(super) serial: Span,
    /// Whether the search text is `head` + newline + the serial number (it
    /// always is as the store writes it); otherwise `head` is all of it.
    pub(super) serial_in_search: bool,
}

impl Row {
    /// The item id.
    pub(super) fn id(&self) -> u128 {
        (u128::from(self.id_halves[0]) << 64) | u128::from(self.id_halves[1])
    }
}

fn halves(id: u128) -> [u64; 2] {
    [(id >> 64) as u64, id as u64]
}

/// The interned key of a holder.
pub(super) fn holder_key(assignee_type: &str, assignee_id: &str) -> String {
    format!("{assignee_type}\u{0}{assignee_id}")
}

/// One organization's listing rows in memory.
#[derive(Debug, Default, Clone)]
pub(crate) struct Columns {
    /// Which build these columns are (an order built over other columns
    /// cannot catch up from this log).
    pub(super) epoch: u64,
    /// The organization's listing version these rows hold (at least).
    pub(super) version: i64,
    /// The first row stamp these rows may lack: rows stamped earlier are
    /// final and held (`load::marks`).
    pub(super) from: i64,
    pub(super) rows: Vec<Row>,
    /// Per row: its deploy status (interned), category (interned) and search
    /// head (interned in `heads`), scanned by every filter.
    pub(super) status: Vec<u32>,
    pub(super) category: Vec<u32>,
    pub(super) head: Vec<u32>,
    pub(super) strings: Strings,
    /// The search texts without their serial numbers.
    pub(super) heads: Strings,
    /// Every row's serial number, each followed by a newline; a changed
    /// serial is appended and its old bytes left until [`Self::compact`].
    pub(super) serials: Vec<u8>,
    /// (start in `serials`, slot) of each serial written, in arena order.
    pub(super) serial_owners: Vec<(u32, u32)>,
    /// The slots sorted by their rows' item ids (4 bytes an item: a
    /// twelfth of a hash map's memory), searched by halving.
    by_id: Vec<u32>,
    /// New items of the `apply` under way, merged into `by_id` at its end.
    new_ids: HashMap<[u64; 2], u32>,
    /// Rows per (status, category).
    pub(super) counts: HashMap<(u32, u32), u64>,
    /// Slots written since `log_start` (new or changed), in order.
    pub(super) log: Vec<u32>,
    pub(super) log_start: u64,
}

/// The next build's epoch.
static EPOCHS: AtomicU64 = AtomicU64::new(1);

impl Columns {
    /// Empty columns of a new build.
    pub(super) fn new() -> Self {
        Self {
            epoch: EPOCHS.fetch_add(1, AtomicOrdering::Relaxed),
            ..Self::default()
        }
    }

    /// Empty columns of a new build with room for `rows` rows.
    pub(super) fn with_capacity(rows: usize) -> Self {
        let mut c = Self::new();
        c.rows.reserve_exact(rows);
        c.status.reserve_exact(rows);
        c.category.reserve_exact(rows);
        c.head.reserve_exact(rows);
        c.by_id.reserve_exact(rows);
        c.serial_owners.reserve_exact(rows);
        // Serial numbers are about a dozen bytes, and a newline.
        c.serials.reserve_exact(rows * 14);
        c
    }

    /// Rows held.
    pub(super) fn len(&self) -> usize {
        self.rows.len()
    }

    /// Bytes held on the heap (by capacity; hash tables estimated).
    /// Every field is named, so that a new one does not compile until it
    /// is counted here too.
    pub(super) fn heap_bytes(&self) -> usize {
        let Self {
            epoch: _,
            version: _,
            from: _,
            rows,
            status,
            category,
            head,
            strings,
            heads,
            serials,
            serial_owners,
            by_id,
            new_ids,
            counts,
            log,
            log_start: _,
        } = self;
        rows.capacity() * size_of::<Row>()
            + (status.capacity() + category.capacity() + head.capacity()) * size_of::<u32>()
            + strings.heap_bytes()
            + heads.heap_bytes()
            + serials.capacity()
            + serial_owners.capacity() * size_of::<(u32, u32)>()
            + by_id.capacity() * size_of::<u32>()
            + new_ids.capacity() * (size_of::<([u64; 2], u32)>() + 1)
            + counts.capacity() * (size_of::<((u32, u32), u64)>() + 1)
            + log.capacity() * size_of::<u32>()
    }

    /// The position after the last logged change.
    pub(super) fn log_end(&self) -> u64 {
        self.log_start + self.log.len() as u64
    }

    /// The serial number of a row.
    pub(super) fn serial(&self, slot: u32) -> &[u8] {
        let span = self.rows[slot as usize].serial;
        let start = span.start as usize;
        &self.serials[start..start + span.len as usize]
    }

    /// Writes `rows` (new items, or the current state of held ones) and
    /// notes their slots in the log.
    pub(super) fn apply(&mut self, rows: Vec<SourceRow>) {
        for source in rows {
            self.apply_one(&source);
        }
        if !self.new_ids.is_empty() {
            let mut new: Vec<([u64; 2], u32)> = self.new_ids.drain().collect();
            new.sort_unstable();
            let old = std::mem::take(&mut self.by_id);
            let mut merged = Vec::with_capacity(old.len() + new.len());
            let mut new = new.into_iter().peekable();
            for slot in old {
                let held = self.rows[slot as usize].id_halves;
                while let Some((_, next)) = new.next_if(|n| n.0 < held) {
                    merged.push(next);
                }
                merged.push(slot);
            }
            merged.extend(new.map(|(_, slot)| slot));
            self.by_id = merged;
        }
        // Orders catch up from the log while it is short; past that they
        // are rebuilt, and the log starts again.
        if self.log.len() > self.rows.len() / 8 + 1024 {
            self.log_start = self.log_end();
            self.log.clear();
        }
        self.compact();
    }

    fn apply_one(&mut self, s: &SourceRow) {
        let status = self.strings.intern(&s.deploy_status);
        let category = self.strings.intern(&s.category);
        let suffix_len = s.serial_number.len() + 1;
        let (head_text, serial_in_search) = match s.search_text.len().checked_sub(suffix_len) {
            Some(at)
                if s.search_text.is_char_boundary(at)
                    && s.search_text[at..].strip_prefix('\n') == Some(s.serial_number.as_str()) =>
            {
                (&s.search_text[..at], true)
            }
            _ => (s.search_text.as_str(), false),
        };
        let head = self.heads.intern(head_text);
        let id = halves(s.item_id);
        let existing = self.slot_of_halves(id);
        let serial = match existing {
            Some(slot) if self.serial(slot) == s.serial_number.as_bytes() => {
                self.rows[slot as usize].serial
            }
            _ => self.push_serial(&s.serial_number, existing),
        };
        let row = Row {
            id_halves: id,
            created: s.created_at,
            updated: s.updated_at,
            reason: self.strings.intern(&s.deploy_reason),
            condition: s.condition_rank,
            sku: self.strings.intern(&s.sku_id),
            product: self.strings.intern(&s.product),
            vendor_sku: self.strings.intern(&s.vendor_sku),
            holder: self
                .strings
                .intern(&holder_key(&s.assignee_type, &s.assignee_id)),
            label: self.strings.intern(&s.assignee),
            renewal: self.strings.intern(&s.renewal_date),
            supplied: self.strings.intern(&s.supplied_by),
            serial,
            serial_in_search,
        };
        let slot = match existing {
            Some(slot) => {
                let i = slot as usize;
                self.uncount(self.status[i], self.category[i]);
                self.rows[i] = row;
                self.status[i] = status;
                self.category[i] = category;
                self.head[i] = head;
                slot
            }
            None => {
                let slot = u32::try_from(self.rows.len()).unwrap_or(u32::MAX);
                self.rows.push(row);
                self.status.push(status);
                self.category.push(category);
                self.head.push(head);
                self.new_ids.insert(id, slot);
                // The arena's owner of a new row's serial was written with
                // the slot it now has.
                slot
            }
        };
        *self.counts.entry((status, category)).or_insert(0) += 1;
        self.log.push(slot);
    }

    fn uncount(&mut self, status: u32, category: u32) {
        if let Some(n) = self.counts.get_mut(&(status, category)) {
            *n = n.saturating_sub(1);
        }
    }

    /// Appends a serial to the arena for the row `existing` (or the next new
    /// slot).
    fn push_serial(&mut self, serial: &str, existing: Option<u32>) -> Span {
        let slot = existing.unwrap_or_else(|| u32::try_from(self.rows.len()).unwrap_or(u32::MAX));
        let start = u32::try_from(self.serials.len()).unwrap_or(u32::MAX);
        self.serials.extend_from_slice(serial.as_bytes());
        self.serials.push(b'\n');
        self.serial_owners.push((start, slot));
        Span {
            start,
            len: u32::try_from(serial.len()).unwrap_or(u32::MAX),
        }
    }

    /// Rewrites the serial arena when most of it is old serials.
    fn compact(&mut self) {
        if self.serial_owners.len() <= self.rows.len() * 2 + 1024 {
            return;
        }
        let mut serials = Vec::with_capacity(self.serials.len() / 2);
        let mut owners = Vec::with_capacity(self.rows.len());
        for slot in 0..self.rows.len() {
            let span = self.rows[slot].serial;
            let from = span.start as usize;
            let start = u32::try_from(serials.len()).unwrap_or(u32::MAX);
            serials.extend_from_slice(&self.serials[from..from + span.len as usize]);
            serials.push(b'\n');
            owners.push((start, u32::try_from(slot).unwrap_or(u32::MAX)));
            self.rows[slot].serial = Span {
                start,
                len: span.len,
            };
        }
        self.serials = serials;
        self.serial_owners = owners;
    }

    fn slot_of_halves(&self, id: [u64; 2]) -> Option<u32> {
        let held = |slot: &u32| self.rows[*slot as usize].id_halves;
        match self.by_id.binary_search_by(|slot| held(slot).cmp(&id)) {
            Ok(i) => Some(self.by_id[i]),
            Err(_) => self.new_ids.get(&id).copied(),
        }
    }

    /// The slot of an item.
    #[cfg(test)]
    pub(super) fn slot_of(&self, id: u128) -> Option<u32> {
        self.slot_of_halves(halves(id))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use chrono::DateTime;

    use super::*;

    /// A row of the test inventories: `n` orders the times, `serial` and
    /// `title` feed the search text.
    pub(in crate::listing::index) fn source(
        n: u128,
        status: &str,
        title: &str,
        serial: &str,
    ) -> SourceRow {
        let at = DateTime::from_timestamp(1_700_000_000 + (n as i64 % 7), 0)
            .unwrap()
            .naive_utc();
        SourceRow {
            item_id: n,
            created_at: at,
            updated_at: at,
            deploy_status: status.to_owned(),
            deploy_reason: String::new(),
            condition_rank: (n % 3) as i32,
            serial_number: serial.to_owned(),
            sku_id: format!("sku-{}", n % 3),
            product: title.to_owned(),
            category: if n.is_multiple_of(2) {
                "laptop"
            } else {
                "phone"
            }
            .to_owned(),
            vendor_sku: String::new(),
            assignee_type: String::new(),
            assignee_id: String::new(),
            assignee: String::new(),
            renewal_date: String::new(),
            supplied_by: "OPERATOR".to_owned(),
            search_text: format!("\nvendor\ncat\ncat name\n{title}\n{serial}"),
        }
    }

    #[test]
    fn a_changed_row_keeps_its_slot_and_its_counts_move() {
        let mut c = Columns::default();
        c.apply(vec![
            source(1, "AVAILABLE", "mac", "s1"),
            source(2, "AVAILABLE", "mac", "s2"),
        ]);
        let available = c.strings.id("AVAILABLE").unwrap();
        let laptop = c.strings.id("laptop").unwrap();
        let phone = c.strings.id("phone").unwrap();
        assert_eq!(c.counts[&(available, phone)], 1);
        c.apply(vec![source(1, "DEPLOYED", "mac", "s1-new")]);
        assert_eq!(c.len(), 2);
        assert_eq!(c.slot_of(1), Some(0));
        assert_eq!(c.serial(0), b"s1-new");
        assert_eq!(c.counts[&(available, phone)], 0);
        let deployed = c.strings.id("DEPLOYED").unwrap();
        assert_eq!(c.counts[&(deployed, phone)], 1);
        assert_eq!(c.counts[&(available, laptop)], 1);
        assert_eq!(c.log, vec![0, 1, 0]);
    }

    #[test]
    fn the_search_head_is_the_text_before_the_serial() {
        let mut c = Columns::default();
        c.apply(vec![source(1, "AVAILABLE", "mac", "s1")]);
        assert!(c.rows[0].serial_in_search);
        assert_eq!(c.heads.text(c.head[0]), "\nvendor\ncat\ncat name\nmac");
        let mut odd = source(2, "AVAILABLE", "mac", "s2");
        odd.search_text = "something else".into();
        c.apply(vec![odd]);
        assert!(!c.rows[1].serial_in_search);
        assert_eq!(c.heads.text(c.head[1]), "something else");
    }

    #[test]
    fn heap_bytes_count_the_rows_held() {
        let empty = Columns::default().heap_bytes();
        let mut c = Columns::with_capacity(1000);
        let reserved = c.heap_bytes();
        assert!(reserved >= 1000 * (size_of::<Row>() + 4 * size_of::<u32>()) + empty);
        c.apply(
            (0..1000)
                .map(|n| source(n, "AVAILABLE", "mac", &format!("s{n}")))
                .collect(),
        );
        assert!(
            c.heap_bytes() >= reserved,
            "{} < {reserved}",
            c.heap_bytes()
        );
    }

    #[test]
    fn the_serial_arena_is_compacted_when_mostly_old() {
        let mut c = Columns::default();
        c.apply(vec![source(1, "AVAILABLE", "mac", "s0")]);
        for i in 1..3000 {
            c.apply(vec![source(1, "AVAILABLE", "mac", &format!("s{i}"))]);
        }
        // One live row: at most twice the rows plus the slack before compaction.
        assert!(c.serial_owners.len() <= 2 + 1024 + 1);
        assert_eq!(c.serial(0), b"s2999");
    }

    #[test]
    fn texts_rank_in_byte_order() {
        let mut s = Strings::default();
        for t in ["b", "B", "a", "é", ""] {
            s.intern(t);
        }
        let ranks = s.ranks();
        let order: Vec<&str> = {
            let mut ids: Vec<u32> = (0..5).collect();
            ids.sort_by_key(|id| ranks[*id as usize]);
            ids.into_iter().map(|id| s.text(id)).collect()
        };
        assert_eq!(order, vec!["", "B", "a", "b", "é"]);
    }
}
