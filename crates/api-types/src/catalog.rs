//! The organization's SKUs and offices as `GET /api/v1/skus` and `GET
//! /api/v1/offices` list them (docs/api.md, "SKUs and offices"): what the ids
//! of items, levels and packages name.

use serde::Serialize;
use utoipa::ToSchema;

use equip_domain::catalog::Sku;
use equip_domain::ids::{OfficeId, SkuId};
use equip_domain::location::Office;

/// A SKU: a product the organization's items are units of.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Sku)]
pub struct SkuBody<'a> {
    #[schema(value_type = uuid::Uuid)]
    id: SkuId,
    title: &'a str,
    /// The category code items and packages name (e.g. `LAPTOP`).
    category_code: &'a str,
    /// The category's name, as people read it (e.g. `Laptops`).
    category_name: &'a str,
    vendor_code: &'a str,
    vendor_name: &'a str,
    vendor_sku: &'a str,
}

impl<'a> From<&'a Sku> for SkuBody<'a> {
    fn from(s: &'a Sku) -> Self {
        Self {
            id: s.id,
            title: &s.title,
            category_code: &s.category_code,
            category_name: &s.category_name,
            vendor_code: &s.vendor_code,
            vendor_name: &s.vendor_name,
            vendor_sku: &s.vendor_sku,
        }
    }
}

/// `{"data": [sku, …]}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SkuList<'a> {
    /// Every SKU of the organization, by category name, then title, then id.
    pub data: Vec<SkuBody<'a>>,
}

/// An office of the organization (a holder of items).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Office)]
pub struct OfficeBody<'a> {
    #[schema(value_type = uuid::Uuid)]
    id: OfficeId,
    name: &'a str,
}

impl<'a> From<&'a Office> for OfficeBody<'a> {
    fn from(o: &'a Office) -> Self {
        Self {
            id: o.id,
            name: &o.name,
        }
    }
}

/// `{"data": [office, …]}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OfficeList<'a> {
    /// Every office of the organization, by name, then id.
    pub data: Vec<OfficeBody<'a>>,
}
