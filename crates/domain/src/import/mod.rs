//! The bulk import document (`equip import`): every kind of entity of one
//! organization in one batch, validated here before anything is written, and
//! written by the store atomically (upsert by id).

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

use crate::catalog::{Package, Sku};
use crate::error::DomainError;
use crate::group::{Group, MAX_MEMBERS};
use crate::ids::PersonId;
use crate::inventory::{Assignee, InventoryItem};
use crate::inventory_level::InventoryLevel;
use crate::location::{Office, Warehouse, WarehouseOwner};
use crate::organization::Organization;
use crate::person::Person;

pub mod events;
pub mod stored;

/// Everything one import writes, for one organization.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportBatch {
    /// Warehouses; shared ones are granted to the organization.
    pub warehouses: Vec<Warehouse>,
    /// Offices.
    pub offices: Vec<Office>,
    /// SKUs.
    pub skus: Vec<Sku>,
    /// Packages.
    pub packages: Vec<Package>,
    /// People.
    pub people: Vec<Person>,
    /// Inventory items.
    pub inventory: Vec<InventoryItem>,
    /// Inventory levels.
    pub inventory_levels: Vec<InventoryLevel>,
    /// Groups with their members (an imported group's members replace the
    /// stored ones).
    pub groups: Vec<ImportedGroup>,
}

/// A group of an import with its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedGroup {
    /// The group (version 1 when new; a stored group's version increases).
    pub group: Group,
    /// Its members: provisioned people of the batch or of the organization.
    pub members: Vec<PersonId>,
}

/// A bad entry of an import: nothing was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{entry}: {message}")]
pub struct ImportError {
    /// The entry, e.g. `inventory[3]` (0-based index into that array).
    pub entry: String,
    /// What is wrong with it.
    pub message: String,
}

impl ImportError {
    /// An error about `entry`.
    pub fn new(entry: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            entry: entry.into(),
            message: message.into(),
        }
    }
}

/// What the store holds for a shared (operator) warehouse that an import
/// names by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredSharedWarehouse {
    /// The imported entry equals the stored warehouse (name and address).
    pub unchanged: bool,
    /// The importing organization is already granted the warehouse.
    pub granted: bool,
}

/// The rule for a stored shared warehouse named by an import (`entry`, e.g.
/// `warehouses[2]`): a shared warehouse belongs to the operator and is seen
/// by every organization granted it, so an organization's import may neither
/// change it nor grant it to itself. Naming it as it is, already granted,
/// changes nothing (re-importing the same file is allowed); anything else is
/// refused, naming the warehouse. Granting is an operator action (`equip
/// warehouse grant`).
///
/// # Errors
/// [`ImportError`] on `entry` naming the warehouse `id`.
pub fn check_stored_shared_warehouse(
    entry: &str,
    id: &str,
    stored: StoredSharedWarehouse,
) -> Result<(), ImportError> {
    match stored {
        StoredSharedWarehouse {
            unchanged: true,
            granted: true,
        } => Ok(()),
        StoredSharedWarehouse { granted: false, .. } => Err(ImportError::new(
            entry,
            format!(
                "warehouse {id} is a shared operator warehouse not granted to this \
                 organization; an import cannot grant it (an operator runs \
                 `equip warehouse grant --warehouse {id} --org …`)"
            ),
        )),
        StoredSharedWarehouse {
            unchanged: false, ..
        } => Err(ImportError::new(
            entry,
            format!(
                "warehouse {id} is a shared operator warehouse; an import cannot change \
                 it (its name and address are the operator's)"
            ),
        )),
    }
}

/// Kind of entity a reference points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReferenceKind {
    /// A SKU of the organization.
    Sku,
    /// A package of the organization.
    Package,
    /// A person of the organization.
    Person,
    /// A provisioned (ACTIVE) person of the organization: a group member.
    Member,
    /// An office of the organization.
    Office,
    /// A warehouse accessible to the organization.
    Warehouse,
}

impl ReferenceKind {
    /// Lowercase name for messages.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Sku => "sku",
            Self::Package => "package",
            Self::Person => "person",
            Self::Member => "provisioned user",
            Self::Office => "office",
            Self::Warehouse => "warehouse",
        }
    }
}

/// A reference from an entry to an entity that is not in the batch, and so must
/// already be stored in the organization. The store checks these inside the
/// import's transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalReference {
    /// The referring entry, e.g. `inventory[3].assignedTo`.
    pub entry: String,
    /// What it points to.
    pub kind: ReferenceKind,
    /// The id it points to.
    pub id: Uuid,
}

/// Counts of what an import wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportSummary {
    /// Warehouses written.
    pub warehouses: usize,
    /// Offices written.
    pub offices: usize,
    /// SKUs written.
    pub skus: usize,
    /// Packages written.
    pub packages: usize,
    /// People written.
    pub people: usize,
    /// Inventory items written.
    pub inventory: usize,
    /// Inventory levels written.
    pub inventory_levels: usize,
    /// Groups written.
    pub groups: usize,
}

impl ImportSummary {
    /// What writing all of `batch` writes.
    #[must_use]
    pub fn of(batch: &ImportBatch) -> Self {
        Self {
            warehouses: batch.warehouses.len(),
            offices: batch.offices.len(),
            skus: batch.skus.len(),
            packages: batch.packages.len(),
            people: batch.people.len(),
            inventory: batch.inventory.len(),
            inventory_levels: batch.inventory_levels.len(),
            groups: batch.groups.len(),
        }
    }
}

fn check_unique<K: Eq + std::hash::Hash>(
    kind: &str,
    keys: impl Iterator<Item = (K, String)>,
    what: &str,
) -> Result<(), ImportError> {
    let mut seen: HashMap<K, usize> = HashMap::new();
    for (i, (key, shown)) in keys.enumerate() {
        if let Some(first) = seen.insert(key, i) {
            return Err(ImportError::new(
                format!("{kind}[{i}]"),
                format!("duplicate {what} {shown} (also at {kind}[{first}])"),
            ));
        }
    }
    Ok(())
}

fn rule(entry: String, err: DomainError) -> ImportError {
    match err {
        DomainError::Invalid { field, message }
        | DomainError::NotFound {
            entity: field,
            message,
        }
        | DomainError::Conflict {
            entity: field,
            message,
        }
        | DomainError::Gone { field, message } => {
            ImportError::new(format!("{entry}.{field}"), message)
        }
        DomainError::Store(e) => ImportError::new(entry, e.to_string()),
    }
}

impl ImportBatch {
    /// Number of entries in the batch (for progress reporting).
    #[must_use]
    pub fn len(&self) -> usize {
        self.warehouses.len()
            + self.offices.len()
            + self.skus.len()
            + self.packages.len()
            + self.people.len()
            + self.inventory.len()
            + self.inventory_levels.len()
            + self.groups.len()
    }

    /// Whether the batch is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checks every entry against the domain rules and the batch against itself
    /// (unique ids, unique package slugs and userNames, everything belongs to
    /// `organization`), and resolves references within the batch.
    ///
    /// # Errors
    /// The first bad entry, named by its array and index.
    ///
    /// Returns the references the store must still resolve.
    pub fn validate(
        &self,
        organization: &Organization,
    ) -> Result<Vec<ExternalReference>, ImportError> {
        let org = organization.id;
        check_unique(
            "warehouses",
            self.warehouses.iter().map(|w| (w.id, w.id.to_string())),
            "id",
        )?;
        check_unique(
            "offices",
            self.offices.iter().map(|o| (o.id, o.id.to_string())),
            "id",
        )?;
        check_unique(
            "skus",
            self.skus.iter().map(|s| (s.id, s.id.to_string())),
            "id",
        )?;
        check_unique(
            "packages",
            self.packages.iter().map(|p| (p.id, p.id.to_string())),
            "id",
        )?;
        check_unique(
            "packages",
            self.packages
                .iter()
                .map(|p| (p.slug.clone(), format!("'{}'", p.slug))),
            "slug",
        )?;
        check_unique(
            "people",
            self.people.iter().map(|p| (p.id, p.id.to_string())),
            "id",
        )?;
        check_unique(
            "people",
            self.people.iter().map(|p| {
                (
                    crate::text::identifier_key(&p.user_name),
                    format!("'{}'", p.user_name),
                )
            }),
            "userName",
        )?;
        check_unique(
            "inventory",
            self.inventory.iter().map(|i| (i.id, i.id.to_string())),
            "id",
        )?;
        check_unique(
            "inventoryLevels",
            self.inventory_levels
                .iter()
                .map(|l| (l.id, l.id.to_string())),
            "id",
        )?;
        check_unique(
            "groups",
            self.groups
                .iter()
                .map(|g| (g.group.id, g.group.id.to_string())),
            "id",
        )?;
        check_unique(
            "groups",
            self.groups.iter().map(|g| {
                (
                    crate::text::identifier_key(&g.group.display_name),
                    format!("'{}'", g.group.display_name),
                )
            }),
            "displayName",
        )?;

        let foreign = |entry: String| ImportError::new(entry, "belongs to another organization");
        for (i, w) in self.warehouses.iter().enumerate() {
            w.validate()
                .map_err(|e| rule(format!("warehouses[{i}]"), e))?;
            if let WarehouseOwner::Organization(owner) = w.owner {
                if owner != org {
                    return Err(foreign(format!("warehouses[{i}]")));
                }
            }
        }
        for (i, o) in self.offices.iter().enumerate() {
            if o.organization_id != org {
                return Err(foreign(format!("offices[{i}]")));
            }
            o.validate().map_err(|e| rule(format!("offices[{i}]"), e))?;
        }
        for (i, s) in self.skus.iter().enumerate() {
            if s.organization_id != org {
                return Err(foreign(format!("skus[{i}]")));
            }
            s.validate().map_err(|e| rule(format!("skus[{i}]"), e))?;
        }
        for (i, p) in self.packages.iter().enumerate() {
            if p.organization_id != org {
                return Err(foreign(format!("packages[{i}]")));
            }
            p.validate()
                .map_err(|e| rule(format!("packages[{i}]"), e))?;
        }

        let ids = |it: &mut dyn Iterator<Item = Uuid>| it.collect::<HashSet<Uuid>>();
        let skus = ids(&mut self.skus.iter().map(|s| *s.id.as_uuid()));
        let packages = ids(&mut self.packages.iter().map(|p| *p.id.as_uuid()));
        let people = ids(&mut self.people.iter().map(|p| *p.id.as_uuid()));
        let provisioned = ids(&mut self
            .people
            .iter()
            .filter(|p| p.is_provisioned())
            .map(|p| *p.id.as_uuid()));
        let offices = ids(&mut self.offices.iter().map(|o| *o.id.as_uuid()));
        let warehouses = ids(&mut self.warehouses.iter().map(|w| *w.id.as_uuid()));
        let mut external = Vec::new();
        let mut resolve = |entry: String, kind: ReferenceKind, id: Uuid| {
            let known = match kind {
                ReferenceKind::Sku => &skus,
                ReferenceKind::Package => &packages,
                ReferenceKind::Person => &people,
                ReferenceKind::Member => &provisioned,
                ReferenceKind::Office => &offices,
                ReferenceKind::Warehouse => &warehouses,
            };
            if !known.contains(&id) {
                external.push(ExternalReference { entry, kind, id });
            }
        };

        for (i, p) in self.people.iter().enumerate() {
            if p.organization_id != org {
                return Err(foreign(format!("people[{i}]")));
            }
            p.validate().map_err(|e| rule(format!("people[{i}]"), e))?;
            if let Some(pkg) = p.package_id {
                resolve(
                    format!("people[{i}].packageId"),
                    ReferenceKind::Package,
                    *pkg.as_uuid(),
                );
            }
        }
        for (i, item) in self.inventory.iter().enumerate() {
            if item.organization_id != org {
                return Err(foreign(format!("inventory[{i}]")));
            }
            item.validate()
                .map_err(|e| rule(format!("inventory[{i}]"), e))?;
            resolve(
                format!("inventory[{i}].skuId"),
                ReferenceKind::Sku,
                *item.sku_id.as_uuid(),
            );
            if let Some(a) = item.assignment {
                let kind = match a.assignee {
                    Assignee::Person(_) => ReferenceKind::Person,
                    Assignee::Office(_) => ReferenceKind::Office,
                    Assignee::Warehouse(_) => ReferenceKind::Warehouse,
                };
                resolve(format!("inventory[{i}].assignedTo"), kind, a.assignee.id());
            }
        }
        for (i, l) in self.inventory_levels.iter().enumerate() {
            if l.organization_id != org {
                return Err(foreign(format!("inventoryLevels[{i}]")));
            }
            l.validate()
                .map_err(|e| rule(format!("inventoryLevels[{i}]"), e))?;
            resolve(
                format!("inventoryLevels[{i}].skuId"),
                ReferenceKind::Sku,
                *l.sku_id.as_uuid(),
            );
            resolve(
                format!("inventoryLevels[{i}].warehouseId"),
                ReferenceKind::Warehouse,
                *l.warehouse_id.as_uuid(),
            );
        }
        for (i, g) in self.groups.iter().enumerate() {
            self.check_group(i, g, org, &people, &provisioned)?;
            if let Some(pkg) = g.group.package_id {
                resolve(
                    format!("groups[{i}].packageId"),
                    ReferenceKind::Package,
                    *pkg.as_uuid(),
                );
            }
            for (j, m) in g.members.iter().enumerate() {
                resolve(
                    format!("groups[{i}].members[{j}]"),
                    ReferenceKind::Member,
                    *m.as_uuid(),
                );
            }
        }
        let mut active: HashMap<(Uuid, Uuid), usize> = HashMap::new();
        for (i, l) in self
            .inventory_levels
            .iter()
            .enumerate()
            .filter(|(_, l)| l.is_active())
        {
            if let Some(first) = active.insert((*l.sku_id.as_uuid(), *l.warehouse_id.as_uuid()), i)
            {
                return Err(ImportError::new(
                    format!("inventoryLevels[{i}]"),
                    format!("a second active level for the same skuId and warehouseId (also at inventoryLevels[{first}])"),
                ));
            }
        }
        Ok(external)
    }
}

impl ImportBatch {
    /// One group entry's own rules: the organization, the group's fields,
    /// members without repeats and within the limit, and no member who is in
    /// the batch but not provisioned.
    fn check_group(
        &self,
        i: usize,
        g: &ImportedGroup,
        org: crate::ids::OrganizationId,
        people: &HashSet<Uuid>,
        provisioned: &HashSet<Uuid>,
    ) -> Result<(), ImportError> {
        if g.group.organization_id != org {
            return Err(ImportError::new(
                format!("groups[{i}]"),
                "belongs to another organization",
            ));
        }
        g.group
            .fields()
            .validate()
            .map_err(|e| rule(format!("groups[{i}]"), e))?;
        if g.members.len() as u64 > MAX_MEMBERS {
            return Err(ImportError::new(
                format!("groups[{i}].members"),
                format!("a group holds at most {MAX_MEMBERS} members"),
            ));
        }
        let mut seen = HashSet::new();
        for (j, m) in g.members.iter().enumerate() {
            if !seen.insert(*m) {
                return Err(ImportError::new(
                    format!("groups[{i}].members[{j}]"),
                    format!("duplicate member {m}"),
                ));
            }
            let id = m.as_uuid();
            if people.contains(id) && !provisioned.contains(id) {
                return Err(ImportError::new(
                    format!("groups[{i}].members[{j}]"),
                    format!("person {m} is not provisioned (ACTIVE); only provisioned users can be members"),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod shared_warehouse_tests {
    use super::{check_stored_shared_warehouse, StoredSharedWarehouse};

    #[test]
    fn an_import_may_only_restate_a_granted_shared_warehouse() {
        let check = |unchanged, granted| {
            check_stored_shared_warehouse(
                "warehouses[1]",
                "w-1",
                StoredSharedWarehouse { unchanged, granted },
            )
        };
        assert_eq!(check(true, true), Ok(()));
        for (unchanged, granted) in [(true, false), (false, true), (false, false)] {
            let err = check(unchanged, granted).err();
            let err = err
                .as_ref()
                .map(|e| (e.entry.as_str(), e.message.contains("w-1")));
            assert_eq!(err, Some(("warehouses[1]", true)), "{unchanged} {granted}");
        }
        let not_granted = check(true, false).err().map(|e| e.message);
        assert!(not_granted.is_some_and(|m| m.contains("cannot grant")));
        let changed = check(false, true).err().map(|e| e.message);
        assert!(changed.is_some_and(|m| m.contains("cannot change")));
    }
}
