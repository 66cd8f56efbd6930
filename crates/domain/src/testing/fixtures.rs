//! Small data sets for tests.

use chrono::Utc;

use super::InMemoryStore;
use crate::catalog::Sku;
use crate::ids::{OrganizationId, SkuId, WarehouseId};
use crate::location::{Warehouse, WarehouseOwner};
use crate::organization::{Organization, OrganizationName};

/// An organization with one SKU and one owned warehouse.
#[derive(Debug, Clone)]
pub struct Seeded {
    /// The organization.
    pub org: Organization,
    /// Its SKU.
    pub sku: Sku,
    /// Its warehouse.
    pub warehouse: Warehouse,
}

/// Seeds a fresh organization into `store`.
///
/// # Panics
/// Never for a valid constant name.
#[must_use]
pub fn seed(store: &InMemoryStore) -> Seeded {
    let id = OrganizationId::new();
    let org = Organization {
        id,
        name: OrganizationName::parse("Test Org").unwrap_or_else(|_| unreachable!()),
        created_at: Utc::now(),
    };
    let sku = Sku {
        id: SkuId::new(),
        organization_id: id,
        title: "MacBook Air 13\"".into(),
        category_code: "LAPTOP".into(),
        category_name: "Laptops".into(),
        vendor_code: "APPLE".into(),
        vendor_name: "Apple".into(),
        vendor_sku: "MLY33".into(),
    };
    let warehouse = Warehouse {
        id: WarehouseId::new(),
        owner: WarehouseOwner::Organization(id),
        name: "Berlin".into(),
        address: None,
    };
    let mut s = store.state();
    s.organizations.push(org.clone());
    s.skus.push(sku.clone());
    s.warehouses.push(warehouse.clone());
    Seeded {
        org,
        sku,
        warehouse,
    }
}
