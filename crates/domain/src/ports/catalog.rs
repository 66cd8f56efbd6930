//! Port: SKUs and packages.

use crate::catalog::Sku;
use crate::error::StoreResult;
use crate::ids::{OrganizationId, SkuId};

/// SKUs and packages.
pub trait CatalogRepository: Send + Sync {
    /// Finds a SKU of the organization.
    ///
    /// # Errors
    /// Backend failures.
    fn find_sku(&self, organization: OrganizationId, id: SkuId) -> StoreResult<Option<Sku>>;
}
