//! Remembered keyset positions of deep listing pages ([`Anchors`]), so that a
//! page far from the start of a time order starts from a remembered key
//! through the order's index instead of walking `OFFSET` rows.
//!
//! A position belongs to one (organization, filter and order) and one offset,
//! and holds only while the organization's listing version (bumped by every
//! listing change, see `listing/refresh.rs`) is the one it was taken at, so a
//! remembered position never shifts a page. Process-local: several instances
//! each keep their own.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use chrono::NaiveDateTime;

use diesel::prelude::*;

use crate::connection::{on_inner, DbConnection};
use crate::error::DbResult;

/// Deep pages start at least this far in before their keyset positions are
/// remembered.
pub(super) const ANCHOR_MIN_OFFSET: u64 = 1_000;
/// Remembered positions, over all organizations and queries; when full, all
/// are forgotten.
const ANCHOR_CAPACITY: usize = 10_000;

/// Which remembered positions a page may use: the organization, and its
/// filter and order as SQL (with their values).
pub(super) type AnchorScope = (String, String);

/// A remembered keyset position: the order key of the row just before
/// `offset` in one (organization, filter, order), valid while the
/// organization's listing version is `version`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Anchor {
    pub(super) version: i64,
    pub(super) key: NaiveDateTime,
    pub(super) item_id: String,
}

/// Keyset positions of deep pages, per (organization, filter and order) and
/// offset: a page far from the start (and the page after one that was served)
/// starts from the remembered key. Used for the time orders (`createdAt`, the
/// default, and `updatedAt`).
#[derive(Debug, Default)]
pub(crate) struct Anchors {
    map: Mutex<HashMap<AnchorScope, BTreeMap<u64, Anchor>>>,
}

impl Anchors {
    /// The nearest remembered position at or before `offset` of this version.
    pub(super) fn best(
        &self,
        scope: &AnchorScope,
        offset: u64,
        version: i64,
    ) -> Option<(u64, Anchor)> {
        let map = self.map.lock().ok()?;
        map.get(scope)?
            .range(..=offset)
            .rev()
            .find(|(_, a)| a.version == version)
            .map(|(o, a)| (*o, a.clone()))
    }

    /// Remembers `anchor` as the position of `offset`; positions of other
    /// versions of the same scope are forgotten.
    pub(super) fn remember(&self, scope: &AnchorScope, offset: u64, anchor: Anchor) {
        let Ok(mut map) = self.map.lock() else {
            return;
        };
        if map.values().map(BTreeMap::len).sum::<usize>() >= ANCHOR_CAPACITY {
            map.clear();
        }
        let positions = map.entry(scope.clone()).or_default();
        positions.retain(|_, a| a.version == anchor.version);
        positions.insert(offset, anchor);
    }
}

/// The organization's listing version (0 before its first listing change).
pub(super) fn listing_version(c: &mut DbConnection, org: &str) -> DbResult<i64> {
    use crate::schema::inventory_listing_versions::dsl::{
        inventory_listing_versions, organization_id, version,
    };
    // On the backend's own connection, so that it is prepared once per connection.
    let found: Option<i64> = on_inner!(c, |c| inventory_listing_versions
        .filter(organization_id.eq(org))
        .select(version)
        .first(c)
        .optional())?;
    Ok(found.unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;

    use super::*;

    fn anchor(version: i64, second: i64, id: &str) -> Anchor {
        Anchor {
            version,
            key: DateTime::from_timestamp(second, 0).unwrap().naive_utc(),
            item_id: id.to_owned(),
        }
    }

    fn scope(filter: &str) -> AnchorScope {
        ("org".to_owned(), filter.to_owned())
    }

    #[test]
    fn the_nearest_position_at_or_before_the_offset_is_used() {
        let anchors = Anchors::default();
        anchors.remember(&scope("f"), 1_000, anchor(1, 10, "a"));
        anchors.remember(&scope("f"), 2_000, anchor(1, 20, "b"));
        assert_eq!(
            anchors.best(&scope("f"), 2_500, 1),
            Some((2_000, anchor(1, 20, "b")))
        );
        assert_eq!(
            anchors.best(&scope("f"), 1_999, 1),
            Some((1_000, anchor(1, 10, "a")))
        );
        assert_eq!(anchors.best(&scope("f"), 999, 1), None);
        // Another filter or order has its own positions.
        assert_eq!(anchors.best(&scope("g"), 2_500, 1), None);
    }

    #[test]
    fn positions_of_another_listing_version_are_never_used() {
        let anchors = Anchors::default();
        anchors.remember(&scope("f"), 1_000, anchor(1, 10, "a"));
        assert_eq!(anchors.best(&scope("f"), 1_000, 2), None);
        // Remembering under the new version forgets the old ones.
        anchors.remember(&scope("f"), 3_000, anchor(2, 30, "c"));
        assert_eq!(anchors.best(&scope("f"), 1_000, 1), None);
        assert_eq!(
            anchors.best(&scope("f"), 3_000, 2),
            Some((3_000, anchor(2, 30, "c")))
        );
    }

    #[test]
    fn a_full_memory_starts_over() {
        let anchors = Anchors::default();
        for i in 0..ANCHOR_CAPACITY {
            anchors.remember(&scope(&i.to_string()), 1_000, anchor(1, 10, "a"));
        }
        anchors.remember(&scope("last"), 1_000, anchor(1, 10, "z"));
        assert_eq!(anchors.best(&scope("0"), 1_000, 1), None);
        assert_eq!(
            anchors.best(&scope("last"), 1_000, 1),
            Some((1_000, anchor(1, 10, "z")))
        );
    }
}
