//! [`InventoryLevelRepository`] for [`Store`].

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::event::{EventType, NewEvent};
use equip_domain::ids::{InventoryLevelId, OrganizationId};
use equip_domain::inventory_level::{InventoryLevel, StockedLevel};
use equip_domain::ports::InventoryLevelRepository;

use crate::error::DbResult;
use crate::events::recorded;
use crate::models::{db_time, LevelRow};
use crate::schema::inventory_levels;

use crate::store::Store;

impl InventoryLevelRepository for Store {
    fn insert_inventory_level(&self, level: &InventoryLevel) -> StoreResult<StockedLevel> {
        let row = LevelRow::from(level);
        self.with(
            "inventoryLevel",
            "an active inventory level exists for this SKU and warehouse",
            |c| {
                recorded(c, &self.actor, |c, events| -> DbResult<StockedLevel> {
                    diesel::insert_into(inventory_levels::table)
                        .values(&row)
                        .execute(c)?;
                    let org = &row.organization_id;
                    let event = NewEvent::created(EventType::LevelCreated, level);
                    events.push(org, level.created_at, event);
                    // Its crossing state from the stock it watches.
                    crate::levels::initialize(c, org, std::slice::from_ref(&row.id))?;
                    let pair = (row.sku_id.clone(), row.warehouse_id.clone());
                    let counts =
                        crate::levels::available_counts(c, org, std::slice::from_ref(&pair))?;
                    Ok(StockedLevel {
                        level: level.clone(),
                        available_quantity: counts.get(&pair).copied().unwrap_or_default(),
                    })
                })
            },
        )
    }

    fn find_inventory_level(
        &self,
        organization: OrganizationId,
        id: InventoryLevelId,
    ) -> StoreResult<Option<InventoryLevel>> {
        self.read("inventoryLevel", |c| {
            inventory_levels::table
                .filter(inventory_levels::id.eq(id.to_string()))
                .filter(inventory_levels::organization_id.eq(organization.to_string()))
                .select(LevelRow::as_select())
                .first(c)
                .optional()?
                .map(LevelRow::into_domain)
                .transpose()
        })
    }

    fn list_inventory_levels(
        &self,
        organization: OrganizationId,
        include_inactive: bool,
    ) -> StoreResult<Vec<StockedLevel>> {
        let org = organization.to_string();
        self.read("inventoryLevel", |c| {
            let mut query = inventory_levels::table
                .filter(inventory_levels::organization_id.eq(organization.to_string()))
                .order((
                    inventory_levels::created_at.desc(),
                    inventory_levels::id.desc(),
                ))
                .select(LevelRow::as_select())
                .into_boxed();
            if !include_inactive {
                query = query.filter(inventory_levels::deactivated_at.is_null());
            }
            let rows: Vec<LevelRow> = query.load(c)?;
            // The stock of every listed level: one grouped count (per 400
            // levels), not one per level.
            let pairs: Vec<crate::levels::Pair> = rows
                .iter()
                .map(|r| (r.sku_id.clone(), r.warehouse_id.clone()))
                .collect();
            let counts = crate::levels::available_counts(c, &org, &pairs)?;
            rows.into_iter()
                .zip(pairs)
                .map(|(row, pair)| {
                    Ok(StockedLevel {
                        level: row.into_domain()?,
                        available_quantity: counts.get(&pair).copied().unwrap_or_default(),
                    })
                })
                .collect()
        })
    }

    fn mark_inventory_level_deactivated(
        &self,
        organization: OrganizationId,
        id: InventoryLevelId,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let org = organization.to_string();
        self.with("inventoryLevel", "", |c| {
            recorded(c, &self.actor, |c, events| -> DbResult<bool> {
                let changed = diesel::update(
                    inventory_levels::table
                        .filter(inventory_levels::id.eq(id.to_string()))
                        .filter(inventory_levels::organization_id.eq(&org))
                        .filter(inventory_levels::deactivated_at.is_null()),
                )
                .set(inventory_levels::deactivated_at.eq(Some(db_time(at))))
                .execute(c)?;
                if changed > 0 {
                    events.push(&org, at, NewEvent::level_deactivated(id, at));
                }
                Ok(changed > 0)
            })
        })
    }
}
