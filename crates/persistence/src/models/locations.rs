//! Rows of warehouses (owned or shared), their grants, and offices.

use super::*;
use crate::schema::{offices, warehouse_grants, warehouses};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = warehouses, treat_none_as_default_value = false)]
pub(crate) struct WarehouseRow {
    pub id: String,
    pub owner_organization_id: Option<String>,
    pub name: String,
    pub address_configured: bool,
    pub street1: Option<String>,
    pub street2: Option<String>,
    pub city: Option<String>,
    pub province: Option<String>,
    pub postal_code: Option<String>,
    pub country_code: Option<String>,
    pub phone_number: Option<String>,
}

impl From<&Warehouse> for WarehouseRow {
    fn from(w: &Warehouse) -> Self {
        let a = w.address.clone().unwrap_or_default();
        Self {
            id: w.id.to_string(),
            owner_organization_id: match w.owner {
                WarehouseOwner::Organization(o) => Some(o.to_string()),
                WarehouseOwner::Shared => None,
            },
            name: w.name.clone(),
            address_configured: w.address.is_some(),
            street1: a.street1,
            street2: a.street2,
            city: a.city,
            province: a.province,
            postal_code: a.postal_code,
            country_code: a.country_code,
            phone_number: a.phone_number,
        }
    }
}

impl WarehouseRow {
    pub(crate) fn into_domain(self) -> DbResult<Warehouse> {
        Ok(Warehouse {
            id: parse_id::<WarehouseId>(&self.id)?,
            owner: match self.owner_organization_id {
                Some(o) => WarehouseOwner::Organization(parse_id(&o)?),
                None => WarehouseOwner::Shared,
            },
            name: self.name,
            address: self.address_configured.then_some(WarehouseAddress {
                street1: self.street1,
                street2: self.street2,
                city: self.city,
                province: self.province,
                postal_code: self.postal_code,
                country_code: self.country_code,
                phone_number: self.phone_number,
            }),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = warehouse_grants, treat_none_as_default_value = false)]
pub(crate) struct WarehouseGrantRow {
    pub warehouse_id: String,
    pub organization_id: String,
    pub granted_at: NaiveDateTime,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = offices, treat_none_as_default_value = false)]
pub(crate) struct OfficeRow {
    pub id: String,
    pub organization_id: String,
    pub name: String,
}

impl From<&Office> for OfficeRow {
    fn from(o: &Office) -> Self {
        Self {
            id: o.id.to_string(),
            organization_id: o.organization_id.to_string(),
            name: o.name.clone(),
        }
    }
}

impl OfficeRow {
    #[allow(dead_code)]
    pub(crate) fn into_domain(self) -> DbResult<Office> {
        Ok(Office {
            id: parse_id::<OfficeId>(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            name: self.name,
        })
    }
}
