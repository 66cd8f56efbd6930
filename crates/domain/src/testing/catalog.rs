//! SKUs and packages in memory (a package's contents live on its entity).

use super::*;
use crate::catalog::{catalog_questions, check_against_catalog, CatalogFacts, PackageItem};
use crate::error::DomainError;
use crate::ids::PackageId;

impl CatalogRepository for InMemoryStore {
    fn find_sku(&self, organization: OrganizationId, id: SkuId) -> StoreResult<Option<Sku>> {
        Ok(self
            .state()
            .skus
            .iter()
            .find(|s| s.id == id && s.organization_id == organization)
            .cloned())
    }

    fn skus(&self, organization: OrganizationId) -> StoreResult<Vec<Sku>> {
        Ok(self
            .state()
            .skus
            .iter()
            .filter(|s| s.organization_id == organization)
            .cloned()
            .collect())
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

    fn find_package(
        &self,
        organization: OrganizationId,
        id: PackageId,
    ) -> StoreResult<Option<Package>> {
        Ok(self
            .state()
            .packages
            .iter()
            .find(|p| p.id == id && p.organization_id == organization)
            .cloned())
    }

    fn replace_package_contents(
        &self,
        organization: OrganizationId,
        id: PackageId,
        items: &[PackageItem],
    ) -> StoreResult<Result<Package, DomainError>> {
        let mut s = self.state();
        let Some(index) = s
            .packages
            .iter()
            .position(|p| p.id == id && p.organization_id == organization)
        else {
            return Ok(Err(DomainError::not_found(
                "package",
                format!("package {id} not found"),
            )));
        };
        let (skus, categories) = catalog_questions(items);
        let own = || s.skus.iter().filter(|k| k.organization_id == organization);
        let facts = CatalogFacts {
            sku_categories: own()
                .filter(|k| skus.contains(&k.id))
                .map(|k| (k.id, k.category_code.clone()))
                .collect(),
            categories: own()
                .filter(|k| categories.contains(&k.category_code))
                .map(|k| k.category_code.clone())
                .collect(),
        };
        if let Err(refused) = check_against_catalog(items, &facts) {
            return Ok(Err(refused));
        }
        s.packages[index].items = items.to_vec();
        Ok(Ok(s.packages[index].clone()))
    }
}
