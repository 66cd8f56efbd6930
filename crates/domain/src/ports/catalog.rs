//! Port: SKUs and packages (a package's contents: docs/orders.md, "Package
//! contents").

use crate::catalog::{Package, PackageItem, Sku};
use crate::error::{DomainError, StoreResult};
use crate::ids::{OrganizationId, PackageId, SkuId};

/// SKUs and packages. Every package a store answers carries its contents
/// (`items`, in their order).
pub trait CatalogRepository: Send + Sync {
    /// Finds a SKU of the organization.
    ///
    /// # Errors
    /// Backend failures.
    fn find_sku(&self, organization: OrganizationId, id: SkuId) -> StoreResult<Option<Sku>>;

    /// Every SKU of the organization, in any order.
    ///
    /// # Errors
    /// Backend failures.
    fn skus(&self, organization: OrganizationId) -> StoreResult<Vec<Sku>>;

    /// Every package of the organization with its contents, by slug (read
    /// once per CSV upload to resolve `package_slug`).
    ///
    /// # Errors
    /// Backend failures.
    fn packages(&self, organization: OrganizationId) -> StoreResult<Vec<Package>>;

    /// One package of the organization with its contents.
    ///
    /// # Errors
    /// Backend failures.
    fn find_package(
        &self,
        organization: OrganizationId,
        id: PackageId,
    ) -> StoreResult<Option<Package>>;

    /// Replaces the contents of the organization's package `id` with `items`
    /// (already checked by `catalog::parse_contents`), in one transaction
    /// that locks the package, reads the [`crate::catalog::CatalogFacts`]
    /// `items` need and asks `catalog::check_against_catalog`; answers the
    /// package as written. `Ok(Err(_))`: an unknown package (`NotFound`) or
    /// the catalog's refusal (`Invalid`), nothing written. Existing orders
    /// are not changed (docs/orders.md).
    ///
    /// # Errors
    /// Backend failures.
    fn replace_package_contents(
        &self,
        organization: OrganizationId,
        id: PackageId,
        items: &[PackageItem],
    ) -> StoreResult<Result<Package, DomainError>>;
}
