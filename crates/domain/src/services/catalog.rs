//! What the organization's ids name: its SKUs and offices, listed whole so
//! that a client can show names and offer them as choices.

use crate::catalog::Sku;
use crate::error::DomainError;
use crate::ids::OrganizationId;
use crate::location::Office;
use crate::ports::{CatalogRepository, OfficeRepository};

/// Every SKU of the organization, by category name, then title, then id.
///
/// # Errors
/// Store failures.
pub fn list_skus(
    repo: &dyn CatalogRepository,
    organization: OrganizationId,
) -> Result<Vec<Sku>, DomainError> {
    let mut skus = repo.skus(organization)?;
    skus.sort_by(|a, b| {
        (a.category_name.as_str(), a.title.as_str(), a.id).cmp(&(
            b.category_name.as_str(),
            b.title.as_str(),
            b.id,
        ))
    });
    Ok(skus)
}

/// Every office of the organization, by name, then id.
///
/// # Errors
/// Store failures.
pub fn list_offices(
    repo: &dyn OfficeRepository,
    organization: OrganizationId,
) -> Result<Vec<Office>, DomainError> {
    let mut offices = repo.offices(organization)?;
    offices.sort_by(|a, b| (a.name.as_str(), a.id).cmp(&(b.name.as_str(), b.id)));
    Ok(offices)
}

#[cfg(all(test, feature = "testing"))]
mod tests {
    use super::*;
    use crate::testing::InMemoryStore;

    #[test]
    fn another_organizations_offices_are_not_listed_and_names_come_in_order() {
        let store = InMemoryStore::default();
        let (mine, theirs) = (OrganizationId::new(), OrganizationId::new());
        for (org, name) in [(mine, "Berlin"), (theirs, "Amsterdam"), (mine, "Athens")] {
            store.state().offices.push(Office {
                id: crate::ids::OfficeId::new(),
                organization_id: org,
                name: name.into(),
            });
        }
        let names: Vec<_> = list_offices(&store, mine)
            .unwrap()
            .into_iter()
            .map(|o| o.name)
            .collect();
        assert_eq!(names, ["Athens", "Berlin"]);
    }
}
