//! Rows of the catalog: SKUs and packages.

use super::*;
use crate::schema::{packages, skus};

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
