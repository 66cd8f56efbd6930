//! Rows of inventory levels (minimum and target stock of a SKU in a warehouse).

use super::*;
use crate::schema::inventory_levels;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = inventory_levels, treat_none_as_default_value = false)]
pub(crate) struct LevelRow {
    pub id: String,
    pub organization_id: String,
    pub sku_id: String,
    pub warehouse_id: String,
    pub minimum_quantity: i32,
    pub target_quantity: i32,
    pub created_at: NaiveDateTime,
    pub deactivated_at: Option<NaiveDateTime>,
}

impl From<&InventoryLevel> for LevelRow {
    fn from(l: &InventoryLevel) -> Self {
        Self {
            id: l.id.to_string(),
            organization_id: l.organization_id.to_string(),
            sku_id: l.sku_id.to_string(),
            warehouse_id: l.warehouse_id.to_string(),
            minimum_quantity: l.minimum_quantity,
            target_quantity: l.target_quantity,
            created_at: db_time(l.created_at),
            deactivated_at: l.deactivated_at.map(db_time),
        }
    }
}

impl LevelRow {
    pub(crate) fn into_domain(self) -> DbResult<InventoryLevel> {
        Ok(InventoryLevel {
            id: parse_id::<InventoryLevelId>(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            sku_id: parse_id(&self.sku_id)?,
            warehouse_id: parse_id(&self.warehouse_id)?,
            minimum_quantity: self.minimum_quantity,
            target_quantity: self.target_quantity,
            created_at: utc(self.created_at),
            deactivated_at: self.deactivated_at.map(utc),
        })
    }
}
