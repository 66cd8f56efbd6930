//! Rows of the catalog: SKUs and packages.

use super::*;
use crate::schema::{package_items, packages, skus};
use equip_domain::catalog::PackageItem;
use equip_domain::ids::PackageItemId;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = skus, treat_none_as_default_value = false)]
pub(crate) struct SkuRow {
    pub id: String,
    pub organization_id: String,
    pub title: String,
    pub category_code: String,
    pub category_name: String,
    pub vendor_code: String,
    pub vendor_name: String,
    pub vendor_sku: String,
}

impl From<&Sku> for SkuRow {
    fn from(s: &Sku) -> Self {
        Self {
            id: s.id.to_string(),
            organization_id: s.organization_id.to_string(),
            title: s.title.clone(),
            category_code: s.category_code.clone(),
            category_name: s.category_name.clone(),
            vendor_code: s.vendor_code.clone(),
            vendor_name: s.vendor_name.clone(),
            vendor_sku: s.vendor_sku.clone(),
        }
    }
}

impl SkuRow {
    pub(crate) fn into_domain(self) -> DbResult<Sku> {
        Ok(Sku {
            id: parse_id::<SkuId>(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            title: self.title,
            category_code: self.category_code,
            category_name: self.category_name,
            vendor_code: self.vendor_code,
            vendor_name: self.vendor_name,
            vendor_sku: self.vendor_sku,
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = packages, treat_none_as_default_value = false)]
pub(crate) struct PackageRow {
    pub id: String,
    pub organization_id: String,
    pub slug: String,
    pub name: String,
}

impl From<&Package> for PackageRow {
    fn from(p: &Package) -> Self {
        Self {
            id: p.id.to_string(),
            organization_id: p.organization_id.to_string(),
            slug: p.slug.clone(),
            name: p.name.clone(),
        }
    }
}

impl PackageRow {
    pub(crate) fn into_domain(self) -> DbResult<Package> {
        Ok(Package {
            id: parse_id::<PackageId>(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            slug: self.slug,
            name: self.name,
            items: Vec::new(),
        })
    }
}

/// One entry of a package's contents as stored: `sku_ids` is a JSON array of
/// SKU ids (text), in order of preference.
#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = package_items, treat_none_as_default_value = false)]
pub(crate) struct PackageItemRow {
    pub id: String,
    pub organization_id: String,
    pub package_id: String,
    pub position: i32,
    pub category_code: String,
    pub sku_ids: String,
    pub quantity: i32,
}

impl PackageItemRow {
    /// The row of the entry at `index` of `package`'s contents (a new row id:
    /// contents are replaced whole, never edited in place).
    pub(crate) fn new(
        organization: &str,
        package: &str,
        index: usize,
        item: &PackageItem,
    ) -> DbResult<Self> {
        let skus: Vec<String> = item.sku_ids.iter().map(ToString::to_string).collect();
        Ok(Self {
            id: PackageItemId::new().to_string(),
            organization_id: organization.to_owned(),
            package_id: package.to_owned(),
            position: position(index)?,
            category_code: item.category_code.clone(),
            sku_ids: to_json(&skus)?,
            quantity: i32::from(item.quantity),
        })
    }

    pub(crate) fn into_domain(self) -> DbResult<PackageItem> {
        let skus: Vec<String> = from_json(&self.sku_ids)?;
        let sku_ids = skus
            .iter()
            .map(|s| parse_id::<SkuId>(s))
            .collect::<DbResult<Vec<_>>>()?;
        let quantity = u8::try_from(self.quantity)
            .map_err(|_| DbError::corrupt(format!("package item quantity {}", self.quantity)))?;
        Ok(PackageItem {
            category_code: self.category_code,
            sku_ids,
            quantity,
        })
    }
}
