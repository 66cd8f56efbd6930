//! Port: SKUs and packages.

use crate::catalog::{Package, Sku};
use crate::error::StoreResult;
use crate::ids::{OrganizationId, SkuId};

/// SKUs and packages.
pub trait CatalogRepository: Send + Sync {
    /// Finds a SKU of the organization.
    ///
    /// # Errors
    /// Backend failures.
    fn find_sku(&self, organization: OrganizationId, id: SkuId) -> StoreResult<Option<Sku>>;

    /// Every package of the organization, by slug (read once per CSV upload
    /// to resolve `package_slug`).
    ///
    /// # Errors
    /// Backend failures.
    fn packages(&self, organization: OrganizationId) -> StoreResult<Vec<Package>>;
}
