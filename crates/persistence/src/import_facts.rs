//! Reads the stored facts an import batch touches
//! ([`equip_domain::import::stored::StoredFacts`]), inside the import's write
//! transaction, for the domain's rules to decide on. One query per kind and
//! chunk of keys.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use diesel::prelude::*;
use uuid::Uuid;

use equip_domain::ids::OrganizationId;
use equip_domain::import::stored::{
    StoredFacts, StoredGroup, StoredKeys, StoredLevel, StoredPackage, StoredPerson,
    StoredReturnLine, StoredWarehouse,
};
use equip_domain::import::ImportBatch;
use equip_domain::person::PersonStatus;

use crate::connection::DbConnection;
use crate::error::{DbError, DbResult};
use crate::models::{parse_id, WarehouseRow};
use crate::schema::{
    groups, inventory_items, inventory_levels, offices, packages, people, return_order_items,
    return_orders, skus, warehouse_grants, warehouses,
};

use crate::sql_builder::ID_CHUNK as CHUNK;

pub(crate) use crate::sql_builder::texts;

/// `(id, organization)` of the stored rows of `$table` among `$keys`, typed.
macro_rules! owners {
    ($c:expr, $table:ident, $keys:expr) => {{
        let mut found = HashMap::new();
        for chunk in texts($keys).chunks(CHUNK) {
            let rows: Vec<(String, String)> = $table::table
                .filter($table::id.eq_any(chunk))
                .select(($table::id, $table::organization_id))
                .load($c)?;
            for (id, organization) in rows {
                found.insert(parse_id(&id)?, parse_id::<OrganizationId>(&organization)?);
            }
        }
        found
    }};
}

fn typed<K: From<Uuid> + Eq + Hash>(id: &str) -> DbResult<K> {
    parse_id(id)
}

/// Reads what `organization`'s import of `batch` touches.
pub(crate) fn read(
    c: &mut DbConnection,
    organization: &str,
    batch: &ImportBatch,
) -> DbResult<StoredFacts> {
    let keys = StoredKeys::of(batch);
    let mut facts = StoredFacts {
        offices: owners!(c, offices, &keys.offices),
        skus: owners!(c, skus, &keys.skus),
        items: owners!(c, inventory_items, &keys.items),
        return_orders: owners!(c, return_orders, &keys.return_orders),
        ..StoredFacts::default()
    };
    read_warehouses(c, organization, &keys, &mut facts)?;
    read_packages(c, organization, &keys, &mut facts)?;
    read_people(c, organization, &keys, &mut facts)?;
    read_return_lines(c, &keys, &mut facts)?;
    read_levels(c, organization, &keys, &mut facts)?;
    read_groups(c, organization, &keys, &mut facts)?;
    let contents = crate::package_contents::catalog_facts(
        c,
        organization,
        &keys.contents_skus,
        &keys.contents_categories,
    )?;
    facts.contents_sku_categories = contents.sku_categories;
    facts.contents_categories = contents.categories;
    Ok(facts)
}

fn read_groups(
    c: &mut DbConnection,
    organization: &str,
    keys: &StoredKeys,
    facts: &mut StoredFacts,
) -> DbResult<()> {
    for chunk in texts(&keys.groups).chunks(CHUNK) {
        let rows: Vec<(String, String, String)> = groups::table
            .filter(groups::id.eq_any(chunk))
            .select((
                groups::id,
                groups::organization_id,
                groups::display_name_key,
            ))
            .load(c)?;
        for (id, o, display_name_key) in rows {
            let stored = StoredGroup {
                organization: parse_id(&o)?,
                display_name_key,
            };
            facts.groups.insert(typed(&id)?, stored);
        }
    }
    for chunk in keys.group_name_keys.chunks(CHUNK) {
        let rows: Vec<(String, String)> = groups::table
            .filter(groups::organization_id.eq(organization))
            .filter(groups::display_name_key.eq_any(chunk))
            .select((groups::id, groups::display_name_key))
            .load(c)?;
        for (id, key) in rows {
            facts.groups_with_batch_names.push((typed(&id)?, key));
        }
    }
    Ok(())
}

fn read_warehouses(
    c: &mut DbConnection,
    organization: &str,
    keys: &StoredKeys,
    facts: &mut StoredFacts,
) -> DbResult<()> {
    for chunk in texts(&keys.warehouses).chunks(CHUNK) {
        let rows: Vec<WarehouseRow> = warehouses::table
            .filter(warehouses::id.eq_any(chunk))
            .select(WarehouseRow::as_select())
            .load(c)?;
        let granted: HashSet<String> = warehouse_grants::table
            .filter(warehouse_grants::organization_id.eq(organization))
            .filter(warehouse_grants::warehouse_id.eq_any(chunk))
            .select(warehouse_grants::warehouse_id)
            .load::<String>(c)?
            .into_iter()
            .collect();
        for row in rows {
            let granted = granted.contains(&row.id);
            let warehouse = row.into_domain()?;
            facts
                .warehouses
                .insert(warehouse.id, StoredWarehouse { warehouse, granted });
        }
    }
    Ok(())
}

fn read_packages(
    c: &mut DbConnection,
    organization: &str,
    keys: &StoredKeys,
    facts: &mut StoredFacts,
) -> DbResult<()> {
    for chunk in texts(&keys.packages).chunks(CHUNK) {
        let rows: Vec<(String, String, String)> = packages::table
            .filter(packages::id.eq_any(chunk))
            .select((packages::id, packages::organization_id, packages::slug))
            .load(c)?;
        for (id, o, slug) in rows {
            let stored = StoredPackage {
                organization: parse_id(&o)?,
                slug,
            };
            facts.packages.insert(typed(&id)?, stored);
        }
    }
    for chunk in keys.package_slugs.chunks(CHUNK) {
        let rows: Vec<(String, String)> = packages::table
            .filter(packages::organization_id.eq(organization))
            .filter(packages::slug.eq_any(chunk))
            .select((packages::id, packages::slug))
            .load(c)?;
        for (id, slug) in rows {
            facts.packages_with_batch_slugs.push((typed(&id)?, slug));
        }
    }
    Ok(())
}

fn read_people(
    c: &mut DbConnection,
    organization: &str,
    keys: &StoredKeys,
    facts: &mut StoredFacts,
) -> DbResult<()> {
    for chunk in texts(&keys.people).chunks(CHUNK) {
        let rows: Vec<(String, String, String, String)> = people::table
            .filter(people::id.eq_any(chunk))
            .select((
                people::id,
                people::organization_id,
                people::user_name_lower,
                people::status,
            ))
            .load(c)?;
        for (id, o, user_name_key, status) in rows {
            let status = PersonStatus::parse(&status)
                .map_err(|_| DbError::corrupt(format!("unknown person status '{status}'")))?;
            let stored = StoredPerson {
                organization: parse_id(&o)?,
                user_name_key,
                status,
            };
            facts.people.insert(typed(&id)?, stored);
        }
    }
    let active = PersonStatus::Active.as_str();
    for chunk in keys.active_user_name_keys.chunks(CHUNK) {
        let rows: Vec<(String, String)> = people::table
            .filter(people::organization_id.eq(organization))
            .filter(people::status.eq(active))
            .filter(people::user_name_lower.eq_any(chunk))
            .select((people::id, people::user_name_lower))
            .load(c)?;
        for (id, name) in rows {
            facts
                .active_people_with_batch_names
                .push((typed(&id)?, name));
        }
    }
    Ok(())
}

fn read_return_lines(
    c: &mut DbConnection,
    keys: &StoredKeys,
    facts: &mut StoredFacts,
) -> DbResult<()> {
    for chunk in texts(&keys.return_lines).chunks(CHUNK) {
        let rows: Vec<(String, String, String)> = return_order_items::table
            .filter(return_order_items::id.eq_any(chunk))
            .select((
                return_order_items::id,
                return_order_items::organization_id,
                return_order_items::inventory_item_id,
            ))
            .load(c)?;
        for (id, o, item) in rows {
            let line = StoredReturnLine {
                organization: parse_id(&o)?,
                item: parse_id(&item)?,
            };
            facts.return_lines.insert(typed(&id)?, line);
        }
    }
    Ok(())
}

fn read_levels(
    c: &mut DbConnection,
    organization: &str,
    keys: &StoredKeys,
    facts: &mut StoredFacts,
) -> DbResult<()> {
    for chunk in texts(&keys.levels).chunks(CHUNK) {
        let rows: Vec<(
            String,
            String,
            String,
            String,
            Option<chrono::NaiveDateTime>,
        )> = inventory_levels::table
            .filter(inventory_levels::id.eq_any(chunk))
            .select((
                inventory_levels::id,
                inventory_levels::organization_id,
                inventory_levels::sku_id,
                inventory_levels::warehouse_id,
                inventory_levels::deactivated_at,
            ))
            .load(c)?;
        for (id, o, sku, warehouse, deactivated_at) in rows {
            let level = StoredLevel {
                organization: parse_id(&o)?,
                sku: parse_id(&sku)?,
                warehouse: parse_id(&warehouse)?,
                active: deactivated_at.is_none(),
            };
            facts.levels.insert(typed(&id)?, level);
        }
    }
    for chunk in texts(&keys.active_level_skus).chunks(CHUNK) {
        let rows: Vec<(String, String, String)> = inventory_levels::table
            .filter(inventory_levels::organization_id.eq(organization))
            .filter(inventory_levels::deactivated_at.is_null())
            .filter(inventory_levels::sku_id.eq_any(chunk))
            .select((
                inventory_levels::id,
                inventory_levels::sku_id,
                inventory_levels::warehouse_id,
            ))
            .load(c)?;
        for (id, sku, warehouse) in rows {
            let row = (typed(&id)?, parse_id(&sku)?, parse_id(&warehouse)?);
            facts.active_levels_of_batch_skus.push(row);
        }
    }
    Ok(())
}
