//! Warehouses as the API shows them (docs/api.md, "Warehouses").

use equip_domain::ids::WarehouseId;
use equip_domain::location::{Warehouse, WarehouseAddress, MAX_LISTED_WAREHOUSES};
use serde::Serialize;
use utoipa::ToSchema;

/// A warehouse: `id`, `name`, `address` (or null).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Warehouse)]
pub struct WarehouseBody<'a> {
    #[schema(value_type = Uuid)]
    id: WarehouseId,
    name: &'a str,
    #[schema(required)]
    address: Option<AddressBody<'a>>,
}

/// A warehouse's address; absent parts are `null`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = WarehouseAddress)]
pub struct AddressBody<'a> {
    #[schema(required)]
    street1: Option<&'a str>,
    #[schema(required)]
    street2: Option<&'a str>,
    #[schema(required)]
    city: Option<&'a str>,
    #[schema(required)]
    province: Option<&'a str>,
    #[schema(required)]
    postal_code: Option<&'a str>,
    #[schema(required)]
    country_code: Option<&'a str>,
    #[schema(required)]
    phone_number: Option<&'a str>,
}

impl<'a> From<&'a WarehouseAddress> for AddressBody<'a> {
    fn from(a: &'a WarehouseAddress) -> Self {
        Self {
            street1: a.street1.as_deref(),
            street2: a.street2.as_deref(),
            city: a.city.as_deref(),
            province: a.province.as_deref(),
            postal_code: a.postal_code.as_deref(),
            country_code: a.country_code.as_deref(),
            phone_number: a.phone_number.as_deref(),
        }
    }
}

impl<'a> From<&'a Warehouse> for WarehouseBody<'a> {
    fn from(w: &'a Warehouse) -> Self {
        Self {
            id: w.id,
            name: &w.name,
            address: w.address.as_ref().map(AddressBody::from),
        }
    }
}

/// `{"data": [warehouse, …]}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WarehouseList<'a> {
    /// The warehouses, by name then id.
    #[schema(max_items = 1000)]
    pub data: Vec<WarehouseBody<'a>>,
}

// The schema's `maxItems` is a literal (utoipa takes no constant there).
const _: () = assert!(MAX_LISTED_WAREHOUSES == 1000, "WarehouseList's max_items");
