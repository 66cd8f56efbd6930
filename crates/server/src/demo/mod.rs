//! `equip demo`'s data: a realistic organization (warehouses with real-looking
//! addresses, one of them shared, offices, a dozen SKUs, packages, people with
//! a few Brazilians and new joiners, items in every status, return orders,
//! tags, pricing, device programs, inventory levels), written through the same
//! import path as `equip import`.
//!
//! Deterministic: the same seed gives the same names, statuses and fields on
//! the same day (dates are relative to today so that new joiners stay new).
//! Ids are derived from the seed and the organization id, so demo runs into
//! one database never collide. Inventory is produced in chunks, so a million
//! items never sit in memory at once.

mod data;
mod inventory;
pub mod joiners;
pub mod leavers;
mod people;
mod prng;

use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use equip_domain::catalog::{Package, PackageItem, Sku};
use equip_domain::group::{Group, GroupFields};
use equip_domain::ids::{
    GroupId, OfficeId, OrganizationId, PackageId, PersonId, SkuId, WarehouseId,
};
use equip_domain::import::{ImportBatch, ImportSummary, ImportedGroup};
use equip_domain::inventory::{InventoryItem, Tag};
use equip_domain::inventory_level::InventoryLevel;
use equip_domain::location::{Office, Warehouse, WarehouseAddress, WarehouseOwner};
use equip_domain::person::Person;
use equip_domain::services::import::{run_import, ImportFailure, ImportPorts};

pub use prng::{IdSpace, SplitMix64};

use data::Country;

/// Kinds of ids, for [`IdSpace`].
mod kind {
    pub const WAREHOUSE: u64 = 1;
    pub const OFFICE: u64 = 2;
    pub const SKU: u64 = 3;
    pub const PACKAGE: u64 = 4;
    pub const PERSON: u64 = 5;
    pub const ITEM: u64 = 6;
    pub const LEVEL: u64 = 7;
    pub const TAG: u64 = 8;
    pub const RETURN_ORDER: u64 = 9;
    pub const RETURN_ITEM: u64 = 10;
    pub const RETRIEVAL: u64 = 11;
    pub const GROUP: u64 = 12;
    pub const RESTOCK: u64 = 13;
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct DemoConfig {
    /// The organization the data belongs to.
    pub organization: OrganizationId,
    /// Organization name (for the email domain).
    pub organization_name: String,
    /// Seed of the generator.
    pub seed: u64,
    /// Number of inventory items.
    pub items: usize,
    /// The moment the demo runs; the generated data's dates are relative to
    /// it, and none of its history (creation, update and assignment times,
    /// return orders, holds started) is later than it. Dates that are due
    /// later by nature (a hold's `unlockDate`, a renewal, a joiner's start,
    /// a device's next sync) may be.
    pub now: DateTime<Utc>,
}

impl DemoConfig {
    /// The time of a change the demo makes after its import (offboarding the
    /// leavers, moving the returns and the joiners' orders): the moment it is
    /// made, as any caller's write would be dated. Each is later than the
    /// import's events and than the change before it, and none is later than
    /// the moment the demo ran: its history reads forward and has no future.
    #[must_use]
    pub fn clock(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// Fewest people a demo has.
pub const MIN_PEOPLE: usize = 40;
/// Most people a demo has, however many items.
pub const MAX_PEOPLE: usize = 50_000;

/// A person as items need to know them.
#[derive(Debug, Clone, Copy)]
struct PersonRef {
    id: Uuid,
    country: Country,
    offboarding: bool,
}

/// A warehouse as items need to know it.
#[derive(Debug, Clone, Copy)]
struct WarehouseRef {
    id: Uuid,
    country: Country,
}

/// Produces the demo data: [`Generator::base`] once, then
/// [`Generator::next_items`] until it returns nothing.
#[derive(Debug)]
pub struct Generator {
    config: DemoConfig,
    today: NaiveDate,
    rng: SplitMix64,
    ids: IdSpace,
    warehouses: Vec<WarehouseRef>,
    offices: Vec<Uuid>,
    skus: Vec<Uuid>,
    tags: Vec<Tag>,
    people: Vec<PersonRef>,
    items_made: usize,
}

impl Generator {
    /// A generator for `config`.
    #[must_use]
    pub fn new(config: DemoConfig) -> Self {
        let org_bits = config.organization.as_uuid().as_u128();
        let ids = IdSpace::new(
            config.seed ^ prng::mix(org_bits as u64 ^ prng::mix((org_bits >> 64) as u64)),
        );
        Self {
            today: config.now.date_naive(),
            rng: SplitMix64::new(config.seed),
            ids,
            warehouses: Vec::new(),
            offices: Vec::new(),
            skus: Vec::new(),
            tags: Vec::new(),
            people: Vec::new(),
            items_made: 0,
            config,
        }
    }

    /// How many people the demo has: one per ten items, within
    /// [`MIN_PEOPLE`]..=[`MAX_PEOPLE`].
    #[must_use]
    pub fn people_count(&self) -> usize {
        (self.config.items / 10).clamp(MIN_PEOPLE, MAX_PEOPLE)
    }

    /// The id of the demo's first (owned) warehouse, for hints.
    #[must_use]
    pub fn first_warehouse_id(&self) -> WarehouseId {
        WarehouseId::from_uuid(self.ids.id(kind::WAREHOUSE, 0))
    }

    /// Number of entries the whole demo writes (for progress).
    #[must_use]
    pub fn total_entries(&self) -> usize {
        data::WAREHOUSES.len()
            + data::OFFICES.len()
            + data::SKUS.len()
            + data::PACKAGES.len()
            + self.people_count()
            + LEVELS.len()
            + GROUPS.len()
            + self.config.items
    }

    /// Everything but the inventory: warehouses, offices, SKUs, packages,
    /// people, inventory levels and groups.
    pub fn base(&mut self) -> ImportBatch {
        let org = self.config.organization;
        let warehouses = self.warehouses_batch();
        let offices = data::OFFICES
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let id = self.ids.id(kind::OFFICE, i as u64);
                self.offices.push(id);
                Office {
                    id: OfficeId::from_uuid(id),
                    organization_id: org,
                    name: (*name).to_owned(),
                }
            })
            .collect();
        let skus = data::SKUS
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let id = self.ids.id(kind::SKU, i as u64);
                self.skus.push(id);
                let (category_code, category_name) = s.kind.category();
                Sku {
                    id: SkuId::from_uuid(id),
                    organization_id: org,
                    title: s.title.to_owned(),
                    category_code: category_code.to_owned(),
                    category_name: category_name.to_owned(),
                    vendor_code: s.vendor_code.to_owned(),
                    vendor_name: s.vendor_name.to_owned(),
                    vendor_sku: s.vendor_sku.to_owned(),
                }
            })
            .collect();
        let packages: Vec<Package> = data::PACKAGES
            .iter()
            .enumerate()
            .map(|(i, (slug, name, contents))| Package {
                id: PackageId::from_uuid(self.ids.id(kind::PACKAGE, i as u64)),
                organization_id: org,
                slug: (*slug).to_owned(),
                name: (*name).to_owned(),
                items: contents
                    .iter()
                    .map(|c| PackageItem {
                        category_code: c.kind.category().0.to_owned(),
                        sku_ids: c
                            .preferred
                            .iter()
                            .map(|&k| SkuId::from_uuid(self.skus[k]))
                            .collect(),
                        quantity: c.quantity,
                    })
                    .collect(),
            })
            .collect();
        self.tags = data::TAGS
            .iter()
            .enumerate()
            .map(|(i, label)| Tag {
                id: self.ids.id(kind::TAG, i as u64).into(),
                label: (*label).to_owned(),
            })
            .collect();
        let package_ids: Vec<PackageId> = packages.iter().map(|p| p.id).collect();
        let people = people::generate(self, &package_ids);
        let inventory_levels = self.levels();
        let groups = self.groups(&people, &package_ids);
        ImportBatch {
            warehouses,
            offices,
            skus,
            packages,
            people,
            inventory: Vec::new(),
            inventory_levels,
            groups,
        }
    }

    /// The demo's groups ([`GROUPS`]): the provisioned people split between
    /// the department groups by their position, and everyone in "Everyone".
    fn groups(&mut self, people: &[Person], packages: &[PackageId]) -> Vec<ImportedGroup> {
        let provisioned: Vec<PersonId> = people
            .iter()
            .filter(|p| p.is_provisioned())
            .map(|p| p.id)
            .collect();
        let departments = GROUPS.iter().filter(|g| g.department).count().max(1);
        GROUPS
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let members = provisioned
                    .iter()
                    .enumerate()
                    .filter(|(n, _)| !g.department || n % departments == i)
                    .map(|(_, id)| *id)
                    .collect();
                let fields = GroupFields {
                    external_id: Some(format!("demo-group-{i}")),
                    display_name: g.name.to_owned(),
                    package_id: g.package.and_then(|p| packages.get(p).copied()),
                    precedence: g.precedence,
                };
                let id = GroupId::from_uuid(self.ids.id(kind::GROUP, i as u64));
                ImportedGroup {
                    group: Group::new(id, self.config.organization, fields, self.config.now),
                    members,
                }
            })
            .collect()
    }

    /// Up to `max` more inventory items; empty once all were made. Call
    /// [`Generator::base`] first.
    pub fn next_items(&mut self, max: usize) -> Vec<InventoryItem> {
        let n = max.min(self.config.items - self.items_made);
        (0..n)
            .map(|_| {
                let index = self.items_made;
                self.items_made += 1;
                inventory::item(self, index)
            })
            .collect()
    }

    fn warehouses_batch(&mut self) -> Vec<Warehouse> {
        let org = self.config.organization;
        data::WAREHOUSES
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let id = self.ids.id(kind::WAREHOUSE, i as u64);
                self.warehouses.push(WarehouseRef {
                    id,
                    country: w.country,
                });
                Warehouse {
                    id: WarehouseId::from_uuid(id),
                    owner: if w.shared {
                        WarehouseOwner::Shared
                    } else {
                        WarehouseOwner::Organization(org)
                    },
                    name: w.name.to_owned(),
                    address: Some(WarehouseAddress {
                        street1: Some(w.street1.to_owned()),
                        street2: w.street2.map(str::to_owned),
                        city: Some(w.city.to_owned()),
                        province: Some(w.province.to_owned()),
                        postal_code: Some(w.postal_code.to_owned()),
                        country_code: Some(w.country.code().to_owned()),
                        phone_number: w.phone.map(str::to_owned),
                    }),
                }
            })
            .collect()
    }

    fn levels(&mut self) -> Vec<InventoryLevel> {
        let now = self.config.now;
        LEVELS
            .iter()
            .enumerate()
            .map(
                |(i, &(sku, warehouse, minimum, target, active))| InventoryLevel {
                    id: self.ids.id(kind::LEVEL, i as u64).into(),
                    organization_id: self.config.organization,
                    sku_id: SkuId::from_uuid(self.skus[sku]),
                    warehouse_id: WarehouseId::from_uuid(self.warehouses[warehouse].id),
                    minimum_quantity: minimum,
                    target_quantity: target,
                    created_at: now - chrono::Duration::days(90 + 30 * i as i64),
                    deactivated_at: (!active).then(|| now - chrono::Duration::days(7)),
                },
            )
            .collect()
    }
}

/// Items per import transaction after the first.
pub const CHUNK: usize = 10_000;

/// Generates the demo for `config` and writes it through the import path:
/// the base data with the first `chunk` items in one atomic import, then the
/// remaining items `chunk` at a time. `progress` receives the number of entries
/// written so far.
///
/// # Errors
/// The import's failure (a bug in the generator if it is an entry error).
pub fn load(
    ports: &dyn ImportPorts,
    config: DemoConfig,
    chunk: usize,
    progress: &mut dyn FnMut(usize),
) -> Result<ImportSummary, ImportFailure> {
    let organization = config.organization;
    let mut generator = Generator::new(config);
    let mut batch = generator.base();
    batch.inventory = generator.next_items(chunk.max(1));
    let mut total = ImportSummary::default();
    let mut written = 0;
    loop {
        let summary = run_import(ports, organization, &batch, &mut |n| progress(written + n))?;
        written += batch.len();
        progress(written);
        add(&mut total, &summary);
        let items = generator.next_items(chunk.max(1));
        if items.is_empty() {
            return Ok(total);
        }
        batch = ImportBatch {
            inventory: items,
            ..ImportBatch::default()
        };
    }
}

/// Adds `more` to `total`.
pub fn add(total: &mut ImportSummary, more: &ImportSummary) {
    total.warehouses += more.warehouses;
    total.offices += more.offices;
    total.skus += more.skus;
    total.packages += more.packages;
    total.people += more.people;
    total.inventory += more.inventory;
    total.inventory_levels += more.inventory_levels;
    total.groups += more.groups;
}

/// A demo group.
struct DemoGroup {
    name: &'static str,
    /// Index into the packages.
    package: Option<usize>,
    precedence: i32,
    /// A department (people split between them) or everyone.
    department: bool,
}

/// The demo's groups: two departments with their kits, and everyone.
const GROUPS: &[DemoGroup] = &[
    DemoGroup {
        name: "Engineering",
        package: Some(0),
        precedence: 10,
        department: true,
    },
    DemoGroup {
        name: "Sales",
        package: Some(2),
        precedence: 10,
        department: true,
    },
    DemoGroup {
        name: "Everyone",
        package: None,
        precedence: 100,
        department: false,
    },
];

/// Inventory levels: (SKU index, warehouse index, minimum, target, active).
const LEVELS: &[(usize, usize, i32, i32, bool)] = &[
    (0, 0, 5, 20, true),
    (2, 1, 3, 12, true),
    (4, 2, 4, 15, true),
    (9, 3, 10, 40, true),
    (6, 0, 2, 8, false),
];

#[cfg(test)]
mod tests;
