//! [`WarehouseRepository`] for [`Store`].

use diesel::prelude::*;

use chrono::{DateTime, Utc};
use equip_domain::error::StoreResult;
use equip_domain::ids::{OrganizationId, WarehouseId};
use equip_domain::location::Warehouse;
use equip_domain::ports::{WarehouseGrants, WarehouseRepository};

use crate::connection::on_inner;
use crate::models::{db_time, WarehouseGrantRow, WarehouseRow};
use crate::schema::{inventory_items, inventory_levels, warehouse_grants, warehouses};
use crate::sql_builder::byte_order;

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

    fn list_accessible_warehouses(
        &self,
        organization: OrganizationId,
        limit: usize,
    ) -> StoreResult<Vec<Warehouse>> {
        let org = organization.to_string();
        // Byte order on both backends (`sql_builder::byte_order`), as the
        // in-memory store and Rust's `String` order.
        let collate = byte_order(self.backend());
        let order = format!("warehouses.name{collate}, warehouses.id{collate}");
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.read("warehouse", |c| {
            let granted = warehouse_grants::table
                .filter(warehouse_grants::organization_id.eq(&org))
                .select(warehouse_grants::warehouse_id);
            warehouses::table
                .filter(
                    warehouses::owner_organization_id.eq(&org).or(
                        warehouses::owner_organization_id
                            .is_null()
                            .and(warehouses::id.eq_any(granted)),
                    ),
                )
                .order(diesel::dsl::sql::<diesel::sql_types::Text>(&order))
                .limit(limit)
                .select(WarehouseRow::as_select())
                .load(c)?
                .into_iter()
                .map(WarehouseRow::into_domain)
                .collect()
        })
    }
}

impl WarehouseGrants for Store {
    fn find_any_warehouse(&self, id: WarehouseId) -> StoreResult<Option<Warehouse>> {
        let id = id.to_string();
        self.read("warehouse", |c| {
            warehouses::table
                .filter(warehouses::id.eq(&id))
                .select(WarehouseRow::as_select())
                .first(c)
                .optional()?
                .map(WarehouseRow::into_domain)
                .transpose()
        })
    }

    fn grant_warehouse(
        &self,
        id: WarehouseId,
        organization: OrganizationId,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let row = WarehouseGrantRow {
            warehouse_id: id.to_string(),
            organization_id: organization.to_string(),
            granted_at: db_time(at),
        };
        self.with("warehouse grant", "", |c| {
            let inserted = on_inner!(c, |c| diesel::insert_into(warehouse_grants::table)
                .values(&row)
                .on_conflict((
                    warehouse_grants::warehouse_id,
                    warehouse_grants::organization_id
                ))
                .do_nothing()
                .execute(c))?;
            Ok(inserted == 1)
        })
    }

    fn warehouse_in_use(&self, id: WarehouseId, organization: OrganizationId) -> StoreResult<bool> {
        let (id, org) = (id.to_string(), organization.to_string());
        self.read("warehouse", |c| {
            let levels = inventory_levels::table
                .filter(inventory_levels::organization_id.eq(&org))
                .filter(inventory_levels::warehouse_id.eq(&id));
            let items = inventory_items::table
                .filter(inventory_items::organization_id.eq(&org))
                .filter(inventory_items::assignee_id.eq(&id));
            let in_use: bool =
                diesel::select(diesel::dsl::exists(levels).or(diesel::dsl::exists(items)))
                    .get_result(c)?;
            Ok(in_use)
        })
    }

    fn revoke_warehouse_grant(
        &self,
        id: WarehouseId,
        organization: OrganizationId,
    ) -> StoreResult<bool> {
        let (id, org) = (id.to_string(), organization.to_string());
        self.with("warehouse grant", "", |c| {
            let deleted = diesel::delete(
                warehouse_grants::table
                    .filter(warehouse_grants::warehouse_id.eq(&id))
                    .filter(warehouse_grants::organization_id.eq(&org)),
            )
            .execute(c)?;
            Ok(deleted == 1)
        })
    }
}
