//! Packages as the API shows and takes them (docs/api.md, "Packages";
//! docs/orders.md, "Package contents"): a package with its contents
//! ([`PackageBody`]), the listing ([`PackageList`]) and the body of `PUT
//! /api/v1/packages/{id}` ([`PackageContentsPut`]), turned into the domain's
//! raw entries, which `catalog::parse_contents` checks.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use equip_domain::catalog::{
    Package, PackageItem, RawPackageItem, MAX_PACKAGE_ITEMS, MAX_PACKAGE_ITEM_QUANTITY,
    MAX_PACKAGE_ITEM_SKUS,
};
use equip_domain::ids::{PackageId, SkuId};
use equip_domain::text::SHORT_TEXT_MAX;

// The `#[schema]` facts below are literals (utoipa takes no constant there).
const _: () = assert!(MAX_PACKAGE_ITEMS == 20, "items: maxItems");
const _: () = assert!(MAX_PACKAGE_ITEM_SKUS == 10, "skuIds: maxItems");
const _: () = assert!(MAX_PACKAGE_ITEM_QUANTITY == 20, "quantity: maximum");
const _: () = assert!(SHORT_TEXT_MAX == 256, "categoryCode: maxLength");

/// A package: a named bundle of equipment assigned to people (their own or
/// their group's), with what a person with it receives.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Package)]
pub struct PackageBody<'a> {
    #[schema(value_type = uuid::Uuid)]
    id: PackageId,
    /// Unique in the organization; what CSV uploads name.
    slug: &'a str,
    name: &'a str,
    /// The contents, in order; empty: the package orders nothing.
    #[schema(max_items = 20)]
    items: Vec<PackageItemBody<'a>>,
}

/// One entry of a package's contents: `quantity` units of a category,
/// preferred SKUs first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = PackageItem)]
pub struct PackageItemBody<'a> {
    /// The category, as the organization's SKUs carry it (e.g. `LAPTOP`).
    category_code: &'a str,
    /// SKUs of that category to take first, in order of preference.
    #[schema(value_type = Vec<uuid::Uuid>, max_items = 10)]
    sku_ids: &'a [SkuId],
    #[schema(minimum = 1, maximum = 20)]
    quantity: u8,
}

impl<'a> From<&'a PackageItem> for PackageItemBody<'a> {
    fn from(i: &'a PackageItem) -> Self {
        Self {
            category_code: &i.category_code,
            sku_ids: &i.sku_ids,
            quantity: i.quantity,
        }
    }
}

impl<'a> From<&'a Package> for PackageBody<'a> {
    fn from(p: &'a Package) -> Self {
        Self {
            id: p.id,
            slug: &p.slug,
            name: &p.name,
            items: p.items.iter().map(PackageItemBody::from).collect(),
        }
    }
}

/// `{"data": [package, …]}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PackageList<'a> {
    /// The organization's packages, by name (byte order), then id.
    pub data: Vec<PackageBody<'a>>,
}

/// The body of `PUT /api/v1/packages/{id}`: the package's new contents,
/// replacing the old ones whole (`[]` empties the package).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PackageContentsPut {
    #[schema(max_items = 20)]
    items: Vec<PackageItemInput>,
}

/// One entry of the contents given: `quantity` (1 to 20) units of the
/// category `categoryCode`, some SKU of the organization has; `skuIds`
/// (optional, at most 10, distinct) are SKUs of the organization of that
/// category, to take first, in order.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schema(as = PackageItemInput)]
pub struct PackageItemInput {
    #[schema(min_length = 1, max_length = 256)]
    category_code: String,
    #[serde(default)]
    #[schema(value_type = Vec<uuid::Uuid>, max_items = 10)]
    sku_ids: Vec<String>,
    #[serde(deserialize_with = "crate::read::whole_number")]
    #[schema(value_type = i64, minimum = 1, maximum = 20)]
    quantity: i64,
}

impl From<PackageItemInput> for RawPackageItem {
    fn from(i: PackageItemInput) -> Self {
        Self {
            category_code: i.category_code,
            sku_ids: i.sku_ids,
            quantity: i.quantity,
        }
    }
}

impl PackageContentsPut {
    /// The entries as the domain checks them.
    #[must_use]
    pub fn into_raw(self) -> Vec<RawPackageItem> {
        self.items.into_iter().map(RawPackageItem::from).collect()
    }
}
