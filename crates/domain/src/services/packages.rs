//! Packages and their contents (docs/orders.md, "Package contents"): the
//! listing, one package, and the replacement of a package's contents.

use crate::catalog::{parse_contents, Package, RawPackageItem};
use crate::error::DomainError;
use crate::ids::{OrganizationId, PackageId};
use crate::ports::CatalogRepository;

/// Every package of the organization with its contents, ordered by name,
/// then id.
///
/// # Errors
/// Store failures.
pub fn list_packages(
    repo: &dyn CatalogRepository,
    organization: OrganizationId,
) -> Result<Vec<Package>, DomainError> {
    let mut packages = repo.packages(organization)?;
    packages.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
    Ok(packages)
}

/// The organization's package `id` with its contents.
///
/// # Errors
/// [`DomainError::NotFound`] (`package`) when it is unknown or another
/// organization's.
pub fn get_package(
    repo: &dyn CatalogRepository,
    organization: OrganizationId,
    id: PackageId,
) -> Result<Package, DomainError> {
    repo.find_package(organization, id)?
        .ok_or_else(|| not_found(id))
}

/// Replaces the contents of the organization's package `id` with `items`
/// (checked on their own first, then against the organization's SKUs in the
/// store's transaction); answers the package as written. Existing orders
/// keep their lines and no order is created: orders follow provisioning
/// changes (docs/orders.md).
///
/// # Errors
/// [`DomainError::Invalid`] naming the field (`items`,
/// `items[i].categoryCode`, `items[i].skuIds[j]`, `items[i].quantity`),
/// [`DomainError::NotFound`] (`package`), store failures.
pub fn replace_contents(
    repo: &dyn CatalogRepository,
    organization: OrganizationId,
    id: PackageId,
    items: &[RawPackageItem],
) -> Result<Package, DomainError> {
    let items = parse_contents(items)?;
    repo.replace_package_contents(organization, id, &items)?
}

fn not_found(id: PackageId) -> DomainError {
    DomainError::not_found("package", format!("package {id} not found"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{PackageItem, Sku};
    use crate::ids::SkuId;
    use crate::testing::InMemoryStore;

    fn package(org: OrganizationId, slug: &str, name: &str) -> Package {
        Package {
            id: PackageId::new(),
            organization_id: org,
            slug: slug.into(),
            name: name.into(),
            items: Vec::new(),
        }
    }

    fn sku(org: OrganizationId, category: &str) -> Sku {
        Sku {
            id: SkuId::new(),
            organization_id: org,
            title: format!("a {category}"),
            category_code: category.into(),
            category_name: category.into(),
            vendor_code: "V".into(),
            vendor_name: "Vendor".into(),
            vendor_sku: "V1".into(),
        }
    }

    fn raw(category: &str, skus: &[SkuId], quantity: i64) -> RawPackageItem {
        RawPackageItem {
            category_code: category.into(),
            sku_ids: skus.iter().map(ToString::to_string).collect(),
            quantity,
        }
    }

    fn field(result: Result<Package, DomainError>) -> String {
        match result {
            Err(DomainError::Invalid { field, .. }) => field,
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[test]
    fn listed_by_name_then_id_with_contents() {
        let store = InMemoryStore::default();
        let (org, other) = (OrganizationId::new(), OrganizationId::new());
        let laptop = sku(org, "LAPTOP");
        let mut b = package(org, "a-slug", "Beta");
        let a1 = package(org, "z-slug", "Alpha");
        let a2 = package(org, "m-slug", "Alpha");
        let foreign = package(other, "x", "Aardvark");
        b.items = vec![PackageItem {
            category_code: "LAPTOP".into(),
            sku_ids: vec![laptop.id],
            quantity: 1,
        }];
        {
            let mut s = store.state();
            s.skus.push(laptop);
            s.packages
                .extend([b.clone(), a1.clone(), a2.clone(), foreign.clone()]);
        }
        let listed = list_packages(&store, org).unwrap();
        let (first, second) = if a1.id < a2.id {
            (&a1, &a2)
        } else {
            (&a2, &a1)
        };
        assert_eq!(listed, vec![first.clone(), second.clone(), b.clone()]);
        assert_eq!(get_package(&store, org, b.id).unwrap(), b);
        assert!(matches!(
            get_package(&store, org, foreign.id),
            Err(DomainError::NotFound { .. })
        ));
    }

    #[test]
    fn contents_replaced_after_both_checks() {
        let store = InMemoryStore::default();
        let (org, other) = (OrganizationId::new(), OrganizationId::new());
        let laptop = sku(org, "LAPTOP");
        let phone = sku(org, "PHONE");
        let foreign_laptop = sku(other, "LAPTOP");
        let p = package(org, "kit", "Kit");
        let foreign = package(other, "kit", "Kit");
        {
            let mut s = store.state();
            s.skus
                .extend([laptop.clone(), phone.clone(), foreign_laptop.clone()]);
            s.packages.extend([p.clone(), foreign.clone()]);
        }
        let written = replace_contents(
            &store,
            org,
            p.id,
            &[raw("LAPTOP", &[laptop.id], 1), raw("PHONE", &[], 2)],
        )
        .unwrap();
        assert_eq!(written.items.len(), 2);
        assert_eq!(get_package(&store, org, p.id).unwrap(), written);

        // Refusals leave the contents as they were.
        assert_eq!(
            field(replace_contents(
                &store,
                org,
                p.id,
                &[raw("LAPTOP", &[], 0)]
            )),
            "items[0].quantity"
        );
        assert_eq!(
            field(replace_contents(
                &store,
                org,
                p.id,
                &[raw("LAPTOP", &[], 21)]
            )),
            "items[0].quantity"
        );
        assert_eq!(
            field(replace_contents(
                &store,
                org,
                p.id,
                &[raw("LAPTOP", &[foreign_laptop.id], 1)]
            )),
            "items[0].skuIds[0]"
        );
        assert_eq!(
            field(replace_contents(
                &store,
                org,
                p.id,
                &[raw("PHONE", &[], 1), raw("PHONE", &[laptop.id], 1)]
            )),
            "items[1].skuIds[0]"
        );
        assert_eq!(
            field(replace_contents(
                &store,
                org,
                p.id,
                &[raw("TABLET", &[], 1)]
            )),
            "items[0].categoryCode"
        );
        assert_eq!(get_package(&store, org, p.id).unwrap(), written);

        assert!(matches!(
            replace_contents(&store, org, foreign.id, &[]),
            Err(DomainError::NotFound { .. })
        ));
        // Emptying is allowed.
        assert!(replace_contents(&store, org, p.id, &[])
            .unwrap()
            .items
            .is_empty());
    }
}
