//! The import's rules against what is already stored: an id of another
//! organization is refused, a shared warehouse stays shared (and an owned one
//! owned), a package slug and an active userName stay unique in the
//! organization, one level stays active per SKU and warehouse, and a return
//! line stays with its item.
//!
//! A store reads the [`StoredFacts`] an import batch touches inside the
//! import's write transaction and passes them to [`check_against_stored`],
//! which decides without I/O. Every store (the database one, the in-memory one,
//! an embedder's) therefore enforces the same rules, and they are unit-tested
//! here without a database. The store writes nothing when this refuses.
//!
//! Over 500 lines on purpose: the facts a store reads and the rules over them
//! are one contract between the domain and every store; each rule reads the
//! facts' definitions above it.

use std::collections::{HashMap, HashSet};

use crate::catalog::{check_against_catalog, CatalogFacts};
use crate::error::DomainError;
use crate::ids::{
    GroupId, InventoryItemId, InventoryLevelId, OfficeId, OrganizationId, PackageId, PersonId,
    ReturnOrderId, ReturnOrderItemId, SkuId, WarehouseId,
};
use crate::location::{Warehouse, WarehouseOwner};
use crate::person::PersonStatus;
use crate::text::identifier_key;

use super::{check_stored_shared_warehouse, ImportBatch, ImportError, StoredSharedWarehouse};

/// The message of an entry whose id is stored under another organization.
pub const FOREIGN: &str = "id belongs to another organization";

/// A stored warehouse the batch names by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredWarehouse {
    /// The warehouse as stored.
    pub warehouse: Warehouse,
    /// Whether the importing organization is granted it (shared ones only).
    pub granted: bool,
}

/// A stored package the batch names by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPackage {
    /// Its organization.
    pub organization: OrganizationId,
    /// Its slug.
    pub slug: String,
}

/// A stored person the batch names by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredPerson {
    /// Its organization.
    pub organization: OrganizationId,
    /// Its userName folded as identifiers are compared ([`identifier_key`]).
    pub user_name_key: String,
    /// Its provisioning status.
    pub status: PersonStatus,
}

/// A stored group the batch names by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredGroup {
    /// Its organization.
    pub organization: OrganizationId,
    /// Its displayName folded as identifiers are compared ([`identifier_key`]).
    pub display_name_key: String,
}

/// A stored return order line the batch names by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredReturnLine {
    /// Its organization.
    pub organization: OrganizationId,
    /// The item it returns.
    pub item: InventoryItemId,
}

/// A stored inventory level the batch names by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredLevel {
    /// Its organization.
    pub organization: OrganizationId,
    /// Its SKU.
    pub sku: SkuId,
    /// Its warehouse.
    pub warehouse: WarehouseId,
    /// Whether it is active (not deactivated).
    pub active: bool,
}

/// What the store holds that an import batch touches: the stored rows of the
/// batch's ids (of any organization), and the organization's rows that hold
/// one of the batch's unique keys. [`StoredKeys::of`] says which to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredFacts {
    /// Stored warehouses by batch id.
    pub warehouses: HashMap<WarehouseId, StoredWarehouse>,
    /// Organization of each stored office of the batch.
    pub offices: HashMap<OfficeId, OrganizationId>,
    /// Organization of each stored SKU of the batch.
    pub skus: HashMap<SkuId, OrganizationId>,
    /// Stored packages by batch id.
    pub packages: HashMap<PackageId, StoredPackage>,
    /// The organization's packages (any id) whose slug is one of the batch's.
    pub packages_with_batch_slugs: Vec<(PackageId, String)>,
    /// Stored people by batch id.
    pub people: HashMap<PersonId, StoredPerson>,
    /// The organization's active people (any id) whose folded userName is one
    /// of the batch's active people's.
    pub active_people_with_batch_names: Vec<(PersonId, String)>,
    /// Organization of each stored inventory item of the batch.
    pub items: HashMap<InventoryItemId, OrganizationId>,
    /// Organization of each stored return order the batch's items name.
    pub return_orders: HashMap<ReturnOrderId, OrganizationId>,
    /// Stored return order lines the batch's items name.
    pub return_lines: HashMap<ReturnOrderItemId, StoredReturnLine>,
    /// Stored inventory levels by batch id.
    pub levels: HashMap<InventoryLevelId, StoredLevel>,
    /// The organization's active levels (any id) for one of the SKUs of the
    /// batch's active levels.
    pub active_levels_of_batch_skus: Vec<(InventoryLevelId, SkuId, WarehouseId)>,
    /// Stored groups by batch id.
    pub groups: HashMap<GroupId, StoredGroup>,
    /// The organization's groups (any id) whose folded displayName is one of
    /// the batch's.
    pub groups_with_batch_names: Vec<(GroupId, String)>,
    /// The organization's stored SKUs among [`StoredKeys::contents_skus`]:
    /// their category code.
    pub contents_sku_categories: HashMap<SkuId, String>,
    /// Of [`StoredKeys::contents_categories`], those some stored SKU of the
    /// organization has.
    pub contents_categories: HashSet<String>,
}

/// The keys a store looks up to fill [`StoredFacts`] for a batch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredKeys {
    /// Warehouse ids of the batch.
    pub warehouses: Vec<WarehouseId>,
    /// Office ids of the batch.
    pub offices: Vec<OfficeId>,
    /// SKU ids of the batch.
    pub skus: Vec<SkuId>,
    /// Package ids of the batch.
    pub packages: Vec<PackageId>,
    /// Package slugs of the batch.
    pub package_slugs: Vec<String>,
    /// Person ids of the batch.
    pub people: Vec<PersonId>,
    /// Folded userNames of the batch's active people.
    pub active_user_name_keys: Vec<String>,
    /// Inventory item ids of the batch.
    pub items: Vec<InventoryItemId>,
    /// Return orders the batch's items name.
    pub return_orders: Vec<ReturnOrderId>,
    /// Return order lines the batch's items name.
    pub return_lines: Vec<ReturnOrderItemId>,
    /// Inventory level ids of the batch.
    pub levels: Vec<InventoryLevelId>,
    /// SKUs of the batch's active levels.
    pub active_level_skus: Vec<SkuId>,
    /// Group ids of the batch.
    pub groups: Vec<GroupId>,
    /// Folded displayNames of the batch's groups.
    pub group_name_keys: Vec<String>,
    /// SKUs the batch's package contents prefer that are not among the
    /// batch's SKUs.
    pub contents_skus: Vec<SkuId>,
    /// Categories of the batch's package contents that no SKU of the batch
    /// has.
    pub contents_categories: Vec<String>,
}

impl StoredKeys {
    /// The keys of `batch`, each list without repeats.
    #[must_use]
    pub fn of(batch: &ImportBatch) -> Self {
        fn distinct<T: Eq + std::hash::Hash + Clone>(values: impl Iterator<Item = T>) -> Vec<T> {
            let mut seen = HashSet::new();
            values.filter(|v| seen.insert(v.clone())).collect()
        }
        let returns = || {
            batch
                .inventory
                .iter()
                .filter_map(|i| i.return_order.as_ref())
        };
        let contents = || batch.packages.iter().flat_map(|p| p.items.iter());
        let batch_skus: HashSet<SkuId> = batch.skus.iter().map(|s| s.id).collect();
        let batch_categories: HashSet<&str> = batch
            .skus
            .iter()
            .map(|s| s.category_code.as_str())
            .collect();
        Self {
            warehouses: distinct(batch.warehouses.iter().map(|w| w.id)),
            offices: distinct(batch.offices.iter().map(|o| o.id)),
            skus: distinct(batch.skus.iter().map(|s| s.id)),
            packages: distinct(batch.packages.iter().map(|p| p.id)),
            package_slugs: distinct(batch.packages.iter().map(|p| p.slug.clone())),
            people: distinct(batch.people.iter().map(|p| p.id)),
            active_user_name_keys: distinct(
                batch
                    .people
                    .iter()
                    .filter(|p| p.status == PersonStatus::Active)
                    .map(|p| identifier_key(&p.user_name)),
            ),
            items: distinct(batch.inventory.iter().map(|i| i.id)),
            return_orders: distinct(returns().map(|r| r.id)),
            return_lines: distinct(returns().map(|r| r.return_order_item_id)),
            levels: distinct(batch.inventory_levels.iter().map(|l| l.id)),
            active_level_skus: distinct(
                batch
                    .inventory_levels
                    .iter()
                    .filter(|l| l.deactivated_at.is_none())
                    .map(|l| l.sku_id),
            ),
            groups: distinct(batch.groups.iter().map(|g| g.group.id)),
            group_name_keys: distinct(
                batch
                    .groups
                    .iter()
                    .map(|g| identifier_key(&g.group.display_name)),
            ),
            contents_skus: distinct(
                contents()
                    .flat_map(|e| e.sku_ids.iter().copied())
                    .filter(|id| !batch_skus.contains(id)),
            ),
            contents_categories: distinct(
                contents()
                    .map(|e| e.category_code.clone())
                    .filter(|c| !batch_categories.contains(c.as_str())),
            ),
        }
    }
}

/// What the checks learnt that the writes need: which stored rows the batch
/// updates, and which must step aside before the upsert because they hold a
/// unique key the batch moves.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredChanges {
    /// Batch people stored active under another userName: parked first.
    pub people_to_park: Vec<PersonId>,
    /// Batch people already stored (their emails are replaced).
    pub people: Vec<PersonId>,
    /// Batch packages stored with another slug: parked first.
    pub packages_to_park: Vec<PackageId>,
    /// Batch items already stored (tags, pricing and returns are replaced).
    pub items: Vec<InventoryItemId>,
    /// Batch SKUs already stored: their items' listing rows are rewritten.
    pub skus: Vec<SkuId>,
    /// Batch warehouses already stored: their items' listing rows are rewritten.
    pub warehouses: Vec<WarehouseId>,
    /// Batch offices already stored: their items' listing rows are rewritten.
    pub offices: Vec<OfficeId>,
    /// Batch levels stored active that become inactive or change key: parked first.
    pub levels_to_park: Vec<InventoryLevelId>,
    /// Batch groups already stored (their members are replaced).
    pub groups: Vec<GroupId>,
    /// Batch groups stored with another displayName: parked first.
    pub groups_to_park: Vec<GroupId>,
}

/// Checks `batch`, imported by `organization`, against what is stored.
///
/// # Errors
/// The first refused entry, in the order: warehouses, offices, SKUs,
/// packages, people, inventory (and its return orders), inventory levels,
/// groups.
pub fn check_against_stored(
    organization: OrganizationId,
    batch: &ImportBatch,
    facts: &StoredFacts,
) -> Result<StoredChanges, ImportError> {
    let mut changes = StoredChanges::default();
    check_warehouses(organization, batch, facts)?;
    changes.warehouses = stored_ids(batch.warehouses.iter().map(|w| w.id), &facts.warehouses);
    check_owner(
        "offices",
        batch.offices.iter().map(|o| o.id),
        &facts.offices,
        organization,
    )?;
    changes.offices = stored_ids(batch.offices.iter().map(|o| o.id), &facts.offices);
    check_owner(
        "skus",
        batch.skus.iter().map(|s| s.id),
        &facts.skus,
        organization,
    )?;
    changes.skus = stored_ids(batch.skus.iter().map(|s| s.id), &facts.skus);
    changes.packages_to_park = check_packages(organization, batch, facts)?;
    check_contents(batch, facts)?;
    let (people, people_to_park) = check_people(organization, batch, facts)?;
    changes.people = people;
    changes.people_to_park = people_to_park;
    let item_ids = || batch.inventory.iter().map(|i| i.id);
    check_owner("inventory", item_ids(), &facts.items, organization)?;
    changes.items = stored_ids(item_ids(), &facts.items);
    check_returns(organization, batch, facts)?;
    changes.levels_to_park = check_levels(organization, batch, facts)?;
    let (groups, groups_to_park) = check_groups(organization, batch, facts)?;
    changes.groups = groups;
    changes.groups_to_park = groups_to_park;
    Ok(changes)
}

/// The ids of `ids` that are stored, in batch order.
fn stored_ids<K: Copy + Eq + std::hash::Hash, V>(
    ids: impl Iterator<Item = K>,
    stored: &HashMap<K, V>,
) -> Vec<K> {
    ids.filter(|id| stored.contains_key(id)).collect()
}

/// Fails on the first entry whose id is stored under another organization.
fn check_owner<K: Eq + std::hash::Hash>(
    kind: &str,
    ids: impl Iterator<Item = K>,
    owners: &HashMap<K, OrganizationId>,
    organization: OrganizationId,
) -> Result<(), ImportError> {
    for (i, id) in ids.enumerate() {
        if owners.get(&id).is_some_and(|o| *o != organization) {
            return Err(ImportError::new(format!("{kind}[{i}]"), FOREIGN));
        }
    }
    Ok(())
}

/// Never another organization's warehouse; owned stays owned and shared stays
/// shared; a stored shared warehouse only as it is, already granted.
fn check_warehouses(
    organization: OrganizationId,
    batch: &ImportBatch,
    facts: &StoredFacts,
) -> Result<(), ImportError> {
    let mut shared = Vec::new();
    for (i, w) in batch.warehouses.iter().enumerate() {
        let Some(stored) = facts.warehouses.get(&w.id) else {
            continue;
        };
        match (stored.warehouse.owner, w.owner) {
            (WarehouseOwner::Organization(owner), _) if owner != organization => {
                return Err(ImportError::new(format!("warehouses[{i}]"), FOREIGN));
            }
            (WarehouseOwner::Shared, WarehouseOwner::Organization(_)) => {
                return Err(ImportError::new(
                    format!("warehouses[{i}].shared"),
                    "the stored warehouse is shared; an import cannot make it owned",
                ));
            }
            (WarehouseOwner::Organization(_), WarehouseOwner::Shared) => {
                return Err(ImportError::new(
                    format!("warehouses[{i}].shared"),
                    "the stored warehouse is owned by the organization; an import cannot make it shared",
                ));
            }
            (WarehouseOwner::Shared, WarehouseOwner::Shared) => shared.push((i, w, stored)),
            (WarehouseOwner::Organization(_), WarehouseOwner::Organization(_)) => {}
        }
    }
    for (i, w, stored) in shared {
        check_stored_shared_warehouse(
            &format!("warehouses[{i}]"),
            &w.id.to_string(),
            StoredSharedWarehouse {
                unchanged: stored.warehouse == *w,
                granted: stored.granted,
            },
        )?;
    }
    Ok(())
}

/// The first (lowest) batch index whose key a stored row outside the batch
/// holds, with that row's id.
fn first_clash<'a, Id: Copy + Eq + std::hash::Hash, Key: Eq + std::hash::Hash + 'a>(
    batch_ids: &HashSet<Id>,
    batch_keys: &HashMap<Key, usize>,
    stored: impl Iterator<Item = (Id, &'a Key)>,
) -> Option<(usize, Id)> {
    let mut clash: Option<(usize, Id)> = None;
    for (id, key) in stored {
        if batch_ids.contains(&id) {
            continue;
        }
        if let Some(&i) = batch_keys.get(key) {
            if clash.is_none_or(|(j, _)| i < j) {
                clash = Some((i, id));
            }
        }
    }
    clash
}

/// Ownership, then slugs held by stored packages outside the batch; returns
/// the batch packages that change their stored slug.
fn check_packages(
    organization: OrganizationId,
    batch: &ImportBatch,
    facts: &StoredFacts,
) -> Result<Vec<PackageId>, ImportError> {
    let owners: HashMap<PackageId, OrganizationId> = facts
        .packages
        .iter()
        .map(|(id, p)| (*id, p.organization))
        .collect();
    check_owner(
        "packages",
        batch.packages.iter().map(|p| p.id),
        &owners,
        organization,
    )?;
    let batch_ids: HashSet<PackageId> = batch.packages.iter().map(|p| p.id).collect();
    let slugs: HashMap<String, usize> = batch
        .packages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.slug.clone(), i))
        .collect();
    let stored = facts
        .packages_with_batch_slugs
        .iter()
        .map(|(id, slug)| (*id, slug));
    if let Some((i, _)) = first_clash(&batch_ids, &slugs, stored) {
        return Err(ImportError::new(
            format!("packages[{i}].slug"),
            format!(
                "slug '{}' is already used by another package of the organization",
                batch.packages[i].slug
            ),
        ));
    }
    Ok(batch
        .packages
        .iter()
        .filter(|p| facts.packages.get(&p.id).is_some_and(|s| s.slug != p.slug))
        .map(|p| p.id)
        .collect())
}

/// Each package's contents against the SKUs the organization will have:
/// the batch's (as imported) and, for those the batch does not carry, the
/// stored ones ([`crate::catalog::check_against_catalog`]).
fn check_contents(batch: &ImportBatch, facts: &StoredFacts) -> Result<(), ImportError> {
    if batch.packages.iter().all(|p| p.items.is_empty()) {
        return Ok(());
    }
    let mut catalog = CatalogFacts {
        sku_categories: facts.contents_sku_categories.clone(),
        categories: facts.contents_categories.clone(),
    };
    for sku in &batch.skus {
        catalog
            .sku_categories
            .insert(sku.id, sku.category_code.clone());
        catalog.categories.insert(sku.category_code.clone());
    }
    for (i, package) in batch.packages.iter().enumerate() {
        check_against_catalog(&package.items, &catalog).map_err(|e| match e {
            DomainError::Invalid { field, message } => {
                ImportError::new(format!("packages[{i}].{field}"), message)
            }
            other => ImportError::new(format!("packages[{i}]"), other.to_string()),
        })?;
    }
    Ok(())
}

/// Ownership, then active userNames held by stored people outside the batch;
/// returns the stored batch people, and those active under another userName.
fn check_people(
    organization: OrganizationId,
    batch: &ImportBatch,
    facts: &StoredFacts,
) -> Result<(Vec<PersonId>, Vec<PersonId>), ImportError> {
    let owners: HashMap<PersonId, OrganizationId> = facts
        .people
        .iter()
        .map(|(id, p)| (*id, p.organization))
        .collect();
    check_owner(
        "people",
        batch.people.iter().map(|p| p.id),
        &owners,
        organization,
    )?;
    let batch_ids: HashSet<PersonId> = batch.people.iter().map(|p| p.id).collect();
    let names: HashMap<String, usize> = batch
        .people
        .iter()
        .enumerate()
        .filter(|(_, p)| p.status == PersonStatus::Active)
        .map(|(i, p)| (identifier_key(&p.user_name), i))
        .collect();
    let stored = facts
        .active_people_with_batch_names
        .iter()
        .map(|(id, name)| (*id, name));
    if let Some((i, _)) = first_clash(&batch_ids, &names, stored) {
        return Err(ImportError::new(
            format!("people[{i}].userName"),
            format!(
                "userName '{}' is already used by another person of the organization",
                batch.people[i].user_name
            ),
        ));
    }
    let stored_people = stored_ids(batch.people.iter().map(|p| p.id), &facts.people);
    let to_park = batch
        .people
        .iter()
        .filter(|p| {
            facts.people.get(&p.id).is_some_and(|s| {
                s.status == PersonStatus::Active && s.user_name_key != identifier_key(&p.user_name)
            })
        })
        .map(|p| p.id)
        .collect();
    Ok((stored_people, to_park))
}

/// Return orders and their lines: never another organization's; a line stays
/// with its item; a line id appears once in the batch.
fn check_returns(
    organization: OrganizationId,
    batch: &ImportBatch,
    facts: &StoredFacts,
) -> Result<(), ImportError> {
    let returns: Vec<(usize, InventoryItemId, ReturnOrderId, ReturnOrderItemId)> = batch
        .inventory
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            item.return_order
                .as_ref()
                .map(|r| (i, item.id, r.id, r.return_order_item_id))
        })
        .collect();
    let line_entry = |i: usize| format!("inventory[{i}].returnOrder.returnOrderItemId");
    let mut first_use: HashMap<ReturnOrderItemId, usize> = HashMap::new();
    for &(i, _, _, line) in &returns {
        if let Some(j) = first_use.insert(line, i) {
            return Err(ImportError::new(
                line_entry(i),
                format!("also used by inventory[{j}]"),
            ));
        }
    }
    for &(i, _, order, _) in &returns {
        if facts
            .return_orders
            .get(&order)
            .is_some_and(|o| *o != organization)
        {
            return Err(ImportError::new(
                format!("inventory[{i}].returnOrder"),
                FOREIGN,
            ));
        }
    }
    for &(i, item, _, line) in &returns {
        match facts.return_lines.get(&line) {
            Some(l) if l.organization != organization => {
                return Err(ImportError::new(line_entry(i), FOREIGN));
            }
            Some(l) if l.item != item => {
                return Err(ImportError::new(
                    line_entry(i),
                    "id belongs to a return order line of another inventory item",
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Ownership, then an active stored level outside the batch for the SKU and
/// warehouse of an active batch level; returns the stored active batch levels
/// that become inactive or change SKU or warehouse.
fn check_levels(
    organization: OrganizationId,
    batch: &ImportBatch,
    facts: &StoredFacts,
) -> Result<Vec<InventoryLevelId>, ImportError> {
    let owners: HashMap<InventoryLevelId, OrganizationId> = facts
        .levels
        .iter()
        .map(|(id, l)| (*id, l.organization))
        .collect();
    let levels = &batch.inventory_levels;
    check_owner(
        "inventoryLevels",
        levels.iter().map(|l| l.id),
        &owners,
        organization,
    )?;
    let batch_ids: HashSet<InventoryLevelId> = levels.iter().map(|l| l.id).collect();
    let keys: HashMap<(SkuId, WarehouseId), usize> = levels
        .iter()
        .enumerate()
        .filter(|(_, l)| l.deactivated_at.is_none())
        .map(|(i, l)| ((l.sku_id, l.warehouse_id), i))
        .collect();
    let stored_keys: Vec<(InventoryLevelId, (SkuId, WarehouseId))> = facts
        .active_levels_of_batch_skus
        .iter()
        .map(|&(id, sku, warehouse)| (id, (sku, warehouse)))
        .collect();
    let stored = stored_keys.iter().map(|(id, key)| (*id, key));
    if let Some((i, id)) = first_clash(&batch_ids, &keys, stored) {
        return Err(ImportError::new(
            format!("inventoryLevels[{i}]"),
            format!("an active level for this skuId and warehouseId is already stored (id {id})"),
        ));
    }
    Ok(levels
        .iter()
        .filter(|l| {
            facts.levels.get(&l.id).is_some_and(|s| {
                s.active
                    && (l.deactivated_at.is_some()
                        || s.sku != l.sku_id
                        || s.warehouse != l.warehouse_id)
            })
        })
        .map(|l| l.id)
        .collect())
}

/// Ownership, then displayNames held by stored groups outside the batch;
/// returns the stored batch groups, and those stored under another name.
fn check_groups(
    organization: OrganizationId,
    batch: &ImportBatch,
    facts: &StoredFacts,
) -> Result<(Vec<GroupId>, Vec<GroupId>), ImportError> {
    let owners: HashMap<GroupId, OrganizationId> = facts
        .groups
        .iter()
        .map(|(id, g)| (*id, g.organization))
        .collect();
    let ids = || batch.groups.iter().map(|g| g.group.id);
    check_owner("groups", ids(), &owners, organization)?;
    let batch_ids: HashSet<GroupId> = ids().collect();
    let names: HashMap<String, usize> = batch
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| (identifier_key(&g.group.display_name), i))
        .collect();
    let stored = facts
        .groups_with_batch_names
        .iter()
        .map(|(id, name)| (*id, name));
    if let Some((i, _)) = first_clash(&batch_ids, &names, stored) {
        return Err(ImportError::new(
            format!("groups[{i}].displayName"),
            format!(
                "displayName '{}' is already used by another group of the organization",
                batch.groups[i].group.display_name
            ),
        ));
    }
    let to_park = batch
        .groups
        .iter()
        .filter(|g| {
            facts
                .groups
                .get(&g.group.id)
                .is_some_and(|s| s.display_name_key != identifier_key(&g.group.display_name))
        })
        .map(|g| g.group.id)
        .collect();
    Ok((stored_ids(ids(), &facts.groups), to_park))
}

#[cfg(test)]
#[path = "stored_tests.rs"]
mod tests;
