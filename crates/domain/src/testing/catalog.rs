//! SKUs and packages in memory.

use super::*;

impl CatalogRepository for InMemoryStore {
    fn find_sku(&self, organization: OrganizationId, id: SkuId) -> StoreResult<Option<Sku>> {
        Ok(self
            .state()
            .skus
            .iter()
            .find(|s| s.id == id && s.organization_id == organization)
            .cloned())
    }

    fn packages(&self, organization: OrganizationId) -> StoreResult<Vec<Package>> {
        let mut found: Vec<Package> = self
            .state()
            .packages
            .iter()
            .filter(|p| p.organization_id == organization)
            .cloned()
            .collect();
        found.sort_by(|a, b| a.slug.cmp(&b.slug));
        Ok(found)
    }
}
