//! Which AVAILABLE item a line takes: an item of the line's category (a
//! preferred SKU first, in the package's order), in a warehouse the
//! organization may use, preferring one in the person's country, oldest
//! item first.
//!
//! The choice is a list of [`Tier`]s searched in order: the first tier with
//! an AVAILABLE item gives its oldest (creation time, then id). A database
//! store runs one locking query per tier (`FOR UPDATE SKIP LOCKED`, so two
//! writers never take one item and never wait for each other's candidates);
//! the in-memory store and tests use [`pick`].

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use crate::ids::{InventoryItemId, SkuId, WarehouseId};
use crate::orders::order::OrderLine;
use crate::person::Address;

/// A warehouse the organization may use, with its country.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StockPlace {
    /// The warehouse.
    pub warehouse_id: WarehouseId,
    /// Its address's country (ISO 3166-1 alpha-2), when known.
    pub country_code: Option<String>,
}

/// One step of the search: items of these SKUs in these warehouses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tier {
    /// The SKUs.
    pub sku_ids: Vec<SkuId>,
    /// The warehouses.
    pub warehouse_ids: Vec<WarehouseId>,
}

/// The country a person's equipment goes to: their primary address's, else
/// their first address's with a country.
#[must_use]
pub fn destination_country(addresses: &[Address]) -> Option<&str> {
    addresses
        .iter()
        .find(|a| a.primary && a.country.is_some())
        .or_else(|| addresses.iter().find(|a| a.country.is_some()))
        .and_then(|a| a.country.as_deref())
}

/// The tiers for a line preferring `preferred` among its category's SKUs
/// `category` (a preferred SKU not of the category is ignored), over the
/// organization's `places`, for a person in `country`: each preferred SKU in
/// order, then the category's other SKUs; each first in the person's
/// country, then elsewhere. Empty tiers are left out; no tier when the
/// category has no SKU or the organization no warehouse.
#[must_use]
pub fn tiers(
    preferred: &[SkuId],
    category: &[SkuId],
    places: &[StockPlace],
    country: Option<&str>,
) -> Vec<Tier> {
    let mut sku_groups: Vec<Vec<SkuId>> = Vec::new();
    let mut seen: Vec<SkuId> = Vec::new();
    for sku in preferred {
        if category.contains(sku) && !seen.contains(sku) {
            seen.push(*sku);
            sku_groups.push(vec![*sku]);
        }
    }
    let others: Vec<SkuId> = category
        .iter()
        .filter(|s| !seen.contains(s))
        .copied()
        .collect();
    if !others.is_empty() {
        sku_groups.push(others);
    }
    let same_country = |p: &StockPlace| {
        country.is_some_and(|c| {
            p.country_code
                .as_deref()
                .is_some_and(|w| w.eq_ignore_ascii_case(c))
        })
    };
    let near: Vec<WarehouseId> = places
        .iter()
        .filter(|p| same_country(p))
        .map(|p| p.warehouse_id)
        .collect();
    let far: Vec<WarehouseId> = places
        .iter()
        .filter(|p| !same_country(p))
        .map(|p| p.warehouse_id)
        .collect();
    let mut out = Vec::new();
    for skus in sku_groups {
        for warehouses in [&near, &far] {
            if !warehouses.is_empty() {
                out.push(Tier {
                    sku_ids: skus.clone(),
                    warehouse_ids: warehouses.clone(),
                });
            }
        }
    }
    out
}

/// What allocation reads once per write: the organization's usable
/// warehouses with their countries, and its SKUs by category.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StockMap {
    places: Vec<StockPlace>,
    by_category: HashMap<String, Vec<SkuId>>,
    category_of: HashMap<SkuId, String>,
}

impl StockMap {
    /// From the usable `places` (in the order allocation prefers them) and
    /// the organization's SKUs with their categories (in id order).
    #[must_use]
    pub fn new(places: Vec<StockPlace>, skus: impl IntoIterator<Item = (SkuId, String)>) -> Self {
        let mut by_category: HashMap<String, Vec<SkuId>> = HashMap::new();
        let mut category_of = HashMap::new();
        for (sku, category) in skus {
            by_category.entry(category.clone()).or_default().push(sku);
            category_of.insert(sku, category);
        }
        Self {
            places,
            by_category,
            category_of,
        }
    }

    /// The category of an SKU of the organization.
    #[must_use]
    pub fn category_of(&self, sku: SkuId) -> Option<&str> {
        self.category_of.get(&sku).map(String::as_str)
    }

    /// The search for `line` going to a person in `country` ([`tiers`]).
    #[must_use]
    pub fn tiers(&self, line: &OrderLine, country: Option<&str>) -> Vec<Tier> {
        let category = self
            .by_category
            .get(&line.category_code)
            .map_or(&[][..], Vec::as_slice);
        tiers(&line.sku_ids, category, &self.places, country)
    }
}

/// An AVAILABLE item a line could take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The item.
    pub item_id: InventoryItemId,
    /// Its SKU.
    pub sku_id: SkuId,
    /// The warehouse holding it.
    pub warehouse_id: WarehouseId,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// The item the first tier with a candidate gives: its oldest (creation
/// time, then id).
#[must_use]
pub fn pick(tiers: &[Tier], candidates: &[Candidate]) -> Option<InventoryItemId> {
    tiers.iter().find_map(|tier| {
        candidates
            .iter()
            .filter(|c| {
                tier.sku_ids.contains(&c.sku_id) && tier.warehouse_ids.contains(&c.warehouse_id)
            })
            .min_by(|a, b| {
                a.created_at
                    .cmp(&b.created_at)
                    .then_with(|| a.item_id.to_string().cmp(&b.item_id.to_string()))
            })
            .map(|c| c.item_id)
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn place(country: Option<&str>) -> StockPlace {
        StockPlace {
            warehouse_id: WarehouseId::new(),
            country_code: country.map(str::to_owned),
        }
    }

    fn candidate(sku: SkuId, w: &StockPlace, minutes: i64) -> Candidate {
        Candidate {
            item_id: InventoryItemId::new(),
            sku_id: sku,
            warehouse_id: w.warehouse_id,
            created_at: DateTime::<Utc>::from_timestamp(1_700_000_000 + minutes * 60, 0).unwrap(),
        }
    }

    #[test]
    fn a_preferred_sku_comes_before_the_country_and_the_country_before_age() {
        let (mac, dell) = (SkuId::new(), SkuId::new());
        let (de, fr) = (place(Some("DE")), place(Some("FR")));
        let tiers = tiers(&[mac], &[dell, mac], &[de.clone(), fr.clone()], Some("de"));
        assert_eq!(tiers.len(), 4);
        assert_eq!(tiers[0].sku_ids, vec![mac]);
        assert_eq!(tiers[0].warehouse_ids, vec![de.warehouse_id]);
        assert_eq!(tiers[1].warehouse_ids, vec![fr.warehouse_id]);
        assert_eq!(tiers[2].sku_ids, vec![dell]);

        let old_dell_de = candidate(dell, &de, 0);
        let mac_fr = candidate(mac, &fr, 50);
        let new_mac_de = candidate(mac, &de, 100);
        let old_mac_de = candidate(mac, &de, 10);
        // The preferred SKU abroad beats another SKU at home.
        assert_eq!(
            pick(&tiers, &[old_dell_de.clone(), mac_fr.clone()]),
            Some(mac_fr.item_id)
        );
        // At home beats abroad; the oldest at home wins.
        assert_eq!(
            pick(
                &tiers,
                &[mac_fr, new_mac_de, old_mac_de.clone(), old_dell_de.clone()]
            ),
            Some(old_mac_de.item_id)
        );
        // Without the preferred SKU, the category's others.
        assert_eq!(
            pick(&tiers, std::slice::from_ref(&old_dell_de)),
            Some(old_dell_de.item_id)
        );
        assert_eq!(pick(&tiers, &[]), None);
    }

    #[test]
    fn without_a_country_every_warehouse_is_one_tier() {
        let sku = SkuId::new();
        let places = [place(Some("DE")), place(None)];
        let t = tiers(&[], &[sku], &places, None);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].warehouse_ids.len(), 2);
        // A preferred SKU of another category is ignored; no SKU, no tier.
        assert_eq!(tiers(&[SkuId::new()], &[sku], &places, None).len(), 1);
        assert!(tiers(&[], &[], &places, None).is_empty());
        assert!(tiers(&[], &[sku], &[], Some("DE")).is_empty());
    }

    #[test]
    fn the_destination_is_the_primary_address_country() {
        let addr = |primary: bool, country: Option<&str>| Address {
            primary,
            country: country.map(str::to_owned),
            ..Address::default()
        };
        assert_eq!(
            destination_country(&[addr(false, Some("FR")), addr(true, Some("DE"))]),
            Some("DE")
        );
        assert_eq!(
            destination_country(&[addr(true, None), addr(false, Some("FR"))]),
            Some("FR")
        );
        assert_eq!(destination_country(&[]), None);
    }
}
