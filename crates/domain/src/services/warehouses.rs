//! Reading warehouses.

use crate::error::DomainError;
use crate::ids::{OrganizationId, WarehouseId};
use crate::location::{Warehouse, MAX_LISTED_WAREHOUSES};
use crate::ports::WarehouseRepository;

/// The warehouse `id` if the organization owns it or was granted access.
///
/// # Errors
/// [`DomainError::NotFound`] (`warehouse`) when it is unknown or not accessible.
pub fn get_warehouse(
    repo: &dyn WarehouseRepository,
    organization: OrganizationId,
    id: WarehouseId,
) -> Result<Warehouse, DomainError> {
    repo.find_accessible_warehouse(organization, id)?
        .ok_or_else(|| DomainError::not_found("warehouse", format!("warehouse {id} not found")))
}

/// The warehouses the organization owns or was granted (exactly those
/// [`get_warehouse`] finds), ordered by name, then id, at most
/// [`MAX_LISTED_WAREHOUSES`].
///
/// # Errors
/// Store failures.
pub fn list_warehouses(
    repo: &dyn WarehouseRepository,
    organization: OrganizationId,
) -> Result<Vec<Warehouse>, DomainError> {
    Ok(repo.list_accessible_warehouses(organization, MAX_LISTED_WAREHOUSES)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::WarehouseId;
    use crate::location::WarehouseOwner;
    use crate::testing::InMemoryStore;

    fn warehouse(owner: WarehouseOwner, name: &str) -> Warehouse {
        Warehouse {
            id: WarehouseId::new(),
            owner,
            name: name.into(),
            address: None,
        }
    }

    #[test]
    fn the_list_is_what_each_warehouse_read_finds_in_name_order() {
        let store = InMemoryStore::default();
        let (a, b) = (OrganizationId::new(), OrganizationId::new());
        let owned = warehouse(WarehouseOwner::Organization(a), "Zürich");
        let granted = warehouse(WarehouseOwner::Shared, "Amsterdam hub");
        let foreign = warehouse(WarehouseOwner::Organization(b), "Berlin");
        let ungranted = warehouse(WarehouseOwner::Shared, "Chicago hub");
        // Two of the same name: the id decides.
        let twin = warehouse(WarehouseOwner::Organization(a), "Zürich");
        {
            let mut s = store.state();
            s.warehouses = vec![
                owned.clone(),
                granted.clone(),
                foreign.clone(),
                ungranted.clone(),
                twin.clone(),
            ];
            s.grants.insert((granted.id, a));
            s.grants.insert((ungranted.id, b));
        }
        let mut zurich = [owned, twin];
        zurich.sort_by_key(|w| w.id);
        let expected = [granted, zurich[0].clone(), zurich[1].clone()];
        let listed = list_warehouses(&store, a).unwrap();
        assert_eq!(listed, expected);
        for w in [&foreign, &ungranted] {
            assert!(get_warehouse(&store, a, w.id).is_err());
        }
        for w in &listed {
            assert_eq!(&get_warehouse(&store, a, w.id).unwrap(), w);
        }
        assert_eq!(
            store.list_accessible_warehouses(a, 2).unwrap(),
            expected[..2]
        );
    }
}
