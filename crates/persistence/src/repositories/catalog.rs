//! [`CatalogRepository`] for [`Store`]: SKUs, and packages with their
//! contents (`crate::package_contents`).

use diesel::prelude::*;

use equip_domain::catalog::{catalog_questions, check_against_catalog, Package, PackageItem, Sku};
use equip_domain::error::{DomainError, StoreResult};
use equip_domain::ids::{OrganizationId, PackageId, SkuId};
use equip_domain::ports::CatalogRepository;

use crate::connection::{write_transaction, DbConnection};
use crate::error::DbResult;
use crate::models::{PackageRow, SkuRow};
use crate::package_contents::{catalog_facts, lock_package, replace_contents, with_contents};
use crate::schema::{packages, skus};

use crate::store::Store;

/// The organization's package `id` with its contents.
fn package_by_id(c: &mut DbConnection, org: &str, id: &str) -> DbResult<Option<Package>> {
    let found = packages::table
        .filter(packages::id.eq(id))
        .filter(packages::organization_id.eq(org))
        .select(PackageRow::as_select())
        .first(c)
        .optional()?
        .map(PackageRow::into_domain)
        .transpose()?;
    match found {
        Some(package) => Ok(with_contents(c, org, vec![package])?.pop()),
        None => Ok(None),
    }
}

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

    fn skus(&self, organization: OrganizationId) -> StoreResult<Vec<Sku>> {
        let org = organization.to_string();
        self.read("sku", |c| {
            skus::table
                .filter(skus::organization_id.eq(&org))
                .select(SkuRow::as_select())
                .load(c)?
                .into_iter()
                .map(SkuRow::into_domain)
                .collect()
        })
    }

    fn packages(&self, organization: OrganizationId) -> StoreResult<Vec<Package>> {
        let org = organization.to_string();
        self.read("package", |c| {
            let found = packages::table
                .filter(packages::organization_id.eq(&org))
                .order(packages::slug.asc())
                .select(PackageRow::as_select())
                .load(c)?
                .into_iter()
                .map(PackageRow::into_domain)
                .collect::<DbResult<Vec<_>>>()?;
            with_contents(c, &org, found)
        })
    }

    fn find_package(
        &self,
        organization: OrganizationId,
        id: PackageId,
    ) -> StoreResult<Option<Package>> {
        let org = organization.to_string();
        self.read("package", |c| package_by_id(c, &org, &id.to_string()))
    }

    fn replace_package_contents(
        &self,
        organization: OrganizationId,
        id: PackageId,
        items: &[PackageItem],
    ) -> StoreResult<Result<Package, DomainError>> {
        let org = organization.to_string();
        let id_text = id.to_string();
        self.with("package", "", |c| {
            write_transaction(c, |c| {
                if !lock_package(c, &org, &id_text)? {
                    return Ok(Err(DomainError::not_found(
                        "package",
                        format!("package {id} not found"),
                    )));
                }
                let (skus, categories) = catalog_questions(items);
                let facts = catalog_facts(c, &org, &skus, &categories)?;
                if let Err(refused) = check_against_catalog(items, &facts) {
                    return Ok(Err(refused));
                }
                replace_contents(c, &org, &id_text, items)?;
                package_by_id(c, &org, &id_text)?
                    .map(Ok)
                    .ok_or_else(|| crate::error::DbError::corrupt("a locked package vanished"))
            })
        })
    }
}
