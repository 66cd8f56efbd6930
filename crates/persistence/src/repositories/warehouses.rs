//! [`WarehouseRepository`] for [`Store`].

use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::ids::{OrganizationId, WarehouseId};
use equip_domain::location::Warehouse;
use equip_domain::ports::WarehouseRepository;

use crate::models::WarehouseRow;
use crate::schema::{warehouse_grants, warehouses};

use crate::store::Store;

impl WarehouseRepository for Store {
    fn find_accessible_warehouse(
        &self,
        organization: OrganizationId,
        id: WarehouseId,
    ) -> StoreResult<Option<Warehouse>> {
        let org = organization.to_string();
        let id = id.to_string();
        self.read("warehouse", |c| {
            let granted = warehouse_grants::table
                .filter(warehouse_grants::warehouse_id.eq(&id))
                .filter(warehouse_grants::organization_id.eq(&org));
            warehouses::table
                .filter(warehouses::id.eq(&id))
                .filter(
                    warehouses::owner_organization_id.eq(&org).or(
                        warehouses::owner_organization_id
                            .is_null()
                            .and(diesel::dsl::exists(granted)),
                    ),
                )
                .select(WarehouseRow::as_select())
                .first(c)
                .optional()?
                .map(WarehouseRow::into_domain)
                .transpose()
        })
    }
}
