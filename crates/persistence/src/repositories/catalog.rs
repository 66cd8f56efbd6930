//! [`CatalogRepository`] for [`Store`].

use diesel::prelude::*;

use equip_domain::catalog::{Package, Sku};
use equip_domain::error::StoreResult;
use equip_domain::ids::{OrganizationId, SkuId};
use equip_domain::ports::CatalogRepository;

use crate::models::{PackageRow, SkuRow};
use crate::schema::{packages, skus};

use crate::store::Store;

impl CatalogRepository for Store {
    fn find_sku(&self, organization: OrganizationId, id: SkuId) -> StoreResult<Option<Sku>> {
        self.read("sku", |c| {
            skus::table
                .filter(skus::id.eq(id.to_string()))
                .filter(skus::organization_id.eq(organization.to_string()))
                .select(SkuRow::as_select())
                .first(c)
                .optional()?
                .map(SkuRow::into_domain)
                .transpose()
        })
    }

    fn packages(&self, organization: OrganizationId) -> StoreResult<Vec<Package>> {
        self.read("package", |c| {
            packages::table
                .filter(packages::organization_id.eq(organization.to_string()))
                .order(packages::slug.asc())
                .select(PackageRow::as_select())
                .load(c)?
                .into_iter()
                .map(PackageRow::into_domain)
                .collect()
        })
    }
}
