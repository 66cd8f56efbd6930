//! In-memory implementations of every port, for unit tests and for services that
//! embed the domain without a database. Not tuned for size: everything lives in
//! one mutex-guarded set of vectors.

use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard};

use chrono::{DateTime, Utc};

use crate::api_key::ApiKey;
use crate::catalog::{Package, Sku};
use crate::error::{StoreError, StoreResult};
use crate::ids::{
    ApiKeyId, InventoryItemId, InventoryLevelId, OfficeId, OrganizationId, PersonId, SkuId,
    WarehouseId,
};
use crate::import::stored::{
    check_against_stored, StoredFacts, StoredKeys, StoredLevel, StoredPackage, StoredPerson,
    StoredReturnLine, StoredWarehouse,
};
use crate::import::{ExternalReference, ImportBatch, ImportError, ImportSummary, ReferenceKind};
use crate::inventory::{Assignee, InventoryItem};
use crate::inventory_level::InventoryLevel;
use crate::inventory_query::{
    AssigneeFilter, InventoryFilter, InventoryItemView, InventoryPage, InventoryQuery,
    SortDirection, SortKey,
};
use crate::location::{Office, Warehouse};
use crate::organization::Organization;
use crate::person::{Person, PersonStatus};
use crate::ports::{
    ApiKeyRepository, CatalogRepository, HealthCheck, ImportRepository, InventoryLevelRepository,
    InventoryRepository, OfficeRepository, OrganizationRepository, PersonRepository,
    WarehouseRepository,
};
use crate::wire::item::ListedItem;

/// Everything the in-memory store holds.
#[derive(Debug, Default, Clone)]
pub struct State {
    /// Organizations.
    pub organizations: Vec<Organization>,
    /// API key records.
    pub api_keys: Vec<ApiKey>,
    /// Warehouses.
    pub warehouses: Vec<Warehouse>,
    /// (warehouse, organization) access grants for shared warehouses.
    pub grants: HashSet<(WarehouseId, OrganizationId)>,
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
    /// New-joiner reminders.
    pub reminders: Vec<crate::reminder::Reminder>,
    /// The email outbox.
    pub outbox: Vec<crate::reminder::OutboxMessage>,
}

/// An in-memory implementation of every repository trait.
#[derive(Debug, Default)]
pub struct InMemoryStore {
    state: Mutex<State>,
}

impl InMemoryStore {
    /// Locks the state (recovering from a poisoned lock: the data is plain values).
    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn upsert<T: Clone, K: PartialEq>(list: &mut Vec<T>, item: &T, key: impl Fn(&T) -> K) {
    let k = key(item);
    match list.iter_mut().find(|x| key(x) == k) {
        Some(slot) => *slot = item.clone(),
        None => list.push(item.clone()),
    }
}

impl OrganizationRepository for InMemoryStore {
    fn insert_organization(&self, organization: &Organization) -> StoreResult<()> {
        let mut s = self.state();
        if s.organizations.iter().any(|o| o.id == organization.id) {
            return Err(StoreError::Duplicate {
                entity: "organization",
                detail: organization.id.to_string(),
            });
        }
        s.organizations.push(organization.clone());
        Ok(())
    }

    fn find_organization(&self, id: OrganizationId) -> StoreResult<Option<Organization>> {
        Ok(self
            .state()
            .organizations
            .iter()
            .find(|o| o.id == id)
            .cloned())
    }

    fn count_organizations(&self) -> StoreResult<u64> {
        Ok(self.state().organizations.len() as u64)
    }
}

impl ApiKeyRepository for InMemoryStore {
    fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()> {
        let mut s = self.state();
        if s.api_keys
            .iter()
            .any(|k| k.prefix == key.prefix || k.id == key.id)
        {
            return Err(StoreError::Duplicate {
                entity: "apiKey",
                detail: "prefix".into(),
            });
        }
        s.api_keys.push(key.clone());
        Ok(())
    }

    fn find_api_key_by_prefix(&self, prefix: &str) -> StoreResult<Option<ApiKey>> {
        Ok(self
            .state()
            .api_keys
            .iter()
            .find(|k| k.prefix == prefix)
            .cloned())
    }

    fn revoke_api_key(&self, id: ApiKeyId, at: DateTime<Utc>) -> StoreResult<()> {
        let mut s = self.state();
        let key = s
            .api_keys
            .iter_mut()
            .find(|k| k.id == id)
            .ok_or(StoreError::NotFound { entity: "apiKey" })?;
        key.revoked_at.get_or_insert(at);
        Ok(())
    }
}

impl WarehouseRepository for InMemoryStore {
    fn find_accessible_warehouse(
        &self,
        organization: OrganizationId,
        id: WarehouseId,
    ) -> StoreResult<Option<Warehouse>> {
        let s = self.state();
        Ok(s.warehouses
            .iter()
            .find(|w| {
                w.id == id
                    && w.is_accessible_to(organization, s.grants.contains(&(id, organization)))
            })
            .cloned())
    }
}

impl crate::ports::WarehouseGrants for InMemoryStore {
    fn find_any_warehouse(&self, id: WarehouseId) -> StoreResult<Option<Warehouse>> {
        Ok(self.state().warehouses.iter().find(|w| w.id == id).cloned())
    }

    fn grant_warehouse(
        &self,
        id: WarehouseId,
        organization: OrganizationId,
        _at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        Ok(self.state().grants.insert((id, organization)))
    }

    fn warehouse_in_use(&self, id: WarehouseId, organization: OrganizationId) -> StoreResult<bool> {
        let s = self.state();
        Ok(s.inventory_levels
            .iter()
            .any(|l| l.organization_id == organization && l.warehouse_id == id)
            || s.inventory.iter().any(|i| {
                i.organization_id == organization
                    && i.assignment
                        .is_some_and(|a| a.assignee == Assignee::Warehouse(id))
            }))
    }

    fn revoke_warehouse_grant(
        &self,
        id: WarehouseId,
        organization: OrganizationId,
    ) -> StoreResult<bool> {
        Ok(self.state().grants.remove(&(id, organization)))
    }
}

impl OfficeRepository for InMemoryStore {
    fn find_office(
        &self,
        organization: OrganizationId,
        id: OfficeId,
    ) -> StoreResult<Option<Office>> {
        Ok(self
            .state()
            .offices
            .iter()
            .find(|o| o.id == id && o.organization_id == organization)
            .cloned())
    }
}

impl CatalogRepository for InMemoryStore {
    fn find_sku(&self, organization: OrganizationId, id: SkuId) -> StoreResult<Option<Sku>> {
        Ok(self
            .state()
            .skus
            .iter()
            .find(|s| s.id == id && s.organization_id == organization)
            .cloned())
    }

    fn packages(&self, organization: OrganizationId) -> StoreResult<Vec<Package>> {
        let mut found: Vec<Package> = self
            .state()
            .packages
            .iter()
            .filter(|p| p.organization_id == organization)
            .cloned()
            .collect();
        found.sort_by(|a, b| a.slug.cmp(&b.slug));
        Ok(found)
    }
}

impl PersonRepository for InMemoryStore {
    fn find_person(
        &self,
        organization: OrganizationId,
        id: PersonId,
    ) -> StoreResult<Option<Person>> {
        Ok(self
            .state()
            .people
            .iter()
            .find(|p| p.id == id && p.organization_id == organization)
            .cloned())
    }

    fn list_people(
        &self,
        organization: OrganizationId,
        query: &crate::person_query::PersonQuery,
    ) -> StoreResult<crate::person_query::PersonPage> {
        let mut people: Vec<Person> = self
            .state()
            .people
            .iter()
            .filter(|p| p.organization_id == organization && p.is_provisioned())
            .filter(|p| query.filter.as_ref().is_none_or(|f| f.matches(p)))
            .cloned()
            .collect();
        crate::person_query::sort_people(&mut people, query);
        let total = people.len() as u64;
        let skip = usize::try_from(query.start_index.saturating_sub(1)).unwrap_or(usize::MAX);
        let people = people
            .into_iter()
            .skip(skip)
            .take(query.count as usize)
            .collect();
        Ok(crate::person_query::PersonPage { total, people })
    }

    fn insert_person(&self, person: &Person) -> StoreResult<()> {
        let mut s = self.state();
        check_package(&s, person)?;
        if person_name_taken(&s, person) {
            return Err(StoreError::Duplicate {
                entity: "person",
                detail: "userName".into(),
            });
        }
        s.people.push(person.clone());
        Ok(())
    }

    fn update_person(
        &self,
        person: &Person,
        expected_version: i64,
    ) -> StoreResult<crate::ports::PersonWrite> {
        use crate::ports::PersonWrite;
        let mut s = self.state();
        check_package(&s, person)?;
        let taken = person_name_taken(&s, person);
        let Some(slot) = s.people.iter_mut().find(|p| {
            p.id == person.id && p.organization_id == person.organization_id && p.is_provisioned()
        }) else {
            return Ok(PersonWrite::Missing);
        };
        if slot.version != expected_version {
            return Ok(PersonWrite::Stale {
                current: slot.version,
            });
        }
        if taken {
            return Err(StoreError::Duplicate {
                entity: "person",
                detail: "userName".into(),
            });
        }
        *slot = person.clone();
        Ok(PersonWrite::Done)
    }

    fn offboard_person(
        &self,
        organization: OrganizationId,
        id: PersonId,
        expected_version: Option<i64>,
        at: DateTime<Utc>,
    ) -> StoreResult<crate::ports::Offboarding> {
        use crate::inventory::{DeployStatus, ReturnInfo, ReturnStatus};
        use crate::ports::Offboarding;
        let mut s = self.state();
        let Some(p) = s
            .people
            .iter_mut()
            .find(|p| p.id == id && p.organization_id == organization && p.is_provisioned())
        else {
            return Ok(Offboarding::Missing);
        };
        if expected_version.is_some_and(|v| v != p.version) {
            return Ok(Offboarding::Stale { current: p.version });
        }
        p.status = crate::person::PersonStatus::Offboarding;
        p.version += 1;
        p.updated_at = at;
        let order = crate::ids::ReturnOrderId::new();
        let mut returns = 0;
        for item in s.inventory.iter_mut().filter(|i| {
            i.organization_id == organization
                && i.deploy_status == DeployStatus::Deployed
                && i.return_order.is_none()
                && i.assignment
                    .is_some_and(|a| a.assignee == Assignee::Person(id))
        }) {
            item.return_order = Some(ReturnInfo {
                id: order,
                status: ReturnStatus::Pending,
                created_at: at,
                return_order_item_id: crate::ids::ReturnOrderItemId::new(),
                return_order_item_status: ReturnStatus::Pending,
                retrieval: None,
            });
            returns += 1;
        }
        Ok(Offboarding::Started { returns })
    }
}

/// The foreign key of a person's package, as the database enforces it.
fn check_package(s: &State, person: &Person) -> StoreResult<()> {
    match person.package_id {
        Some(id)
            if !s
                .packages
                .iter()
                .any(|p| p.id == id && p.organization_id == person.organization_id) =>
        {
            Err(StoreError::MissingReference {
                entity: "person",
                detail: "packageId".into(),
            })
        }
        _ => Ok(()),
    }
}

/// Whether another provisioned person of the organization has `person`'s
/// userName (case-insensitively).
fn person_name_taken(s: &State, person: &Person) -> bool {
    person.is_provisioned()
        && s.people.iter().any(|p| {
            p.id != person.id
                && p.organization_id == person.organization_id
                && p.is_provisioned()
                && crate::text::same_identifier(&p.user_name, &person.user_name)
        })
}

impl InventoryRepository for InMemoryStore {
    fn insert_inventory_item(&self, item: &InventoryItem) -> StoreResult<()> {
        let mut s = self.state();
        if s.inventory.iter().any(|i| i.id == item.id) {
            return Err(StoreError::Duplicate {
                entity: "inventoryItem",
                detail: item.id.to_string(),
            });
        }
        s.inventory.push(item.clone());
        Ok(())
    }

    fn update_inventory_item(
        &self,
        item: &InventoryItem,
        expected_updated_at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let mut s = self.state();
        match s.inventory.iter_mut().find(|i| {
            i.id == item.id
                && i.organization_id == item.organization_id
                && i.updated_at == expected_updated_at
        }) {
            Some(slot) => {
                *slot = item.clone();
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn list_inventory(
        &self,
        organization: OrganizationId,
        query: &InventoryQuery,
    ) -> StoreResult<InventoryPage> {
        let s = self.state();
        let mut views: Vec<InventoryItemView> = s
            .inventory
            .iter()
            .filter(|i| i.organization_id == organization)
            .filter_map(|i| listed(&s, i))
            .filter(|v| matches_filter(&s, v, query.filter()))
            .collect();
        views.sort_by(|a, b| {
            let order = sort_key(a, query.sort())
                .cmp(&sort_key(b, query.sort()))
                .then_with(|| a.item.id.to_string().cmp(&b.item.id.to_string()));
            match query.direction() {
                SortDirection::Asc => order,
                SortDirection::Desc => order.reverse(),
            }
        });
        let total_records = views.len() as u64;
        let items = views
            .iter()
            .skip(usize::try_from(query.offset()).unwrap_or(usize::MAX))
            .take(query.size() as usize)
            .map(ListedItem::render)
            .collect::<Result<_, _>>()
            .map_err(|e| StoreError::Backend(e.to_string()))?;
        Ok(InventoryPage {
            items,
            total_records,
        })
    }

    fn find_inventory_views(
        &self,
        organization: OrganizationId,
        ids: &[InventoryItemId],
    ) -> StoreResult<Vec<InventoryItemView>> {
        let s = self.state();
        Ok(ids
            .iter()
            .filter_map(|id| {
                s.inventory
                    .iter()
                    .find(|i| i.id == *id && i.organization_id == organization)
            })
            .filter_map(|i| listed(&s, i))
            .collect())
    }

    fn find_inventory_item(
        &self,
        organization: OrganizationId,
        id: InventoryItemId,
    ) -> StoreResult<Option<InventoryItem>> {
        Ok(self
            .state()
            .inventory
            .iter()
            .find(|i| i.id == id && i.organization_id == organization)
            .cloned())
    }
}

impl InventoryLevelRepository for InMemoryStore {
    fn insert_inventory_level(&self, level: &InventoryLevel) -> StoreResult<()> {
        let mut s = self.state();
        let clash = s.inventory_levels.iter().any(|l| {
            l.is_active()
                && level.is_active()
                && l.organization_id == level.organization_id
                && l.sku_id == level.sku_id
                && l.warehouse_id == level.warehouse_id
        });
        if clash {
            return Err(StoreError::Duplicate {
                entity: "inventoryLevel",
                detail: "active level exists".into(),
            });
        }
        s.inventory_levels.push(level.clone());
        Ok(())
    }

    fn find_inventory_level(
        &self,
        organization: OrganizationId,
        id: InventoryLevelId,
    ) -> StoreResult<Option<InventoryLevel>> {
        Ok(self
            .state()
            .inventory_levels
            .iter()
            .find(|l| l.id == id && l.organization_id == organization)
            .cloned())
    }

    fn list_inventory_levels(
        &self,
        organization: OrganizationId,
        include_inactive: bool,
    ) -> StoreResult<Vec<InventoryLevel>> {
        let mut v: Vec<InventoryLevel> = self
            .state()
            .inventory_levels
            .iter()
            .filter(|l| l.organization_id == organization && (include_inactive || l.is_active()))
            .cloned()
            .collect();
        v.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(b.id.cmp(&a.id)));
        Ok(v)
    }

    fn mark_inventory_level_deactivated(
        &self,
        organization: OrganizationId,
        id: InventoryLevelId,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let mut s = self.state();
        match s
            .inventory_levels
            .iter_mut()
            .find(|l| l.id == id && l.organization_id == organization && l.is_active())
        {
            Some(l) => {
                l.deactivated_at = Some(at);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

impl ImportRepository for InMemoryStore {
    fn import_batch(
        &self,
        organization: OrganizationId,
        batch: &ImportBatch,
        external: &[ExternalReference],
        progress: &mut dyn FnMut(usize),
    ) -> StoreResult<Result<ImportSummary, ImportError>> {
        let mut s = self.state();
        for r in external {
            let id = r.id;
            let found = match r.kind {
                ReferenceKind::Sku => s
                    .skus
                    .iter()
                    .any(|x| *x.id.as_uuid() == id && x.organization_id == organization),
                ReferenceKind::Package => s
                    .packages
                    .iter()
                    .any(|x| *x.id.as_uuid() == id && x.organization_id == organization),
                ReferenceKind::Person => s
                    .people
                    .iter()
                    .any(|x| *x.id.as_uuid() == id && x.organization_id == organization),
                ReferenceKind::Office => s
                    .offices
                    .iter()
                    .any(|x| *x.id.as_uuid() == id && x.organization_id == organization),
                ReferenceKind::Warehouse => s.warehouses.iter().any(|w| {
                    *w.id.as_uuid() == id
                        && w.is_accessible_to(
                            organization,
                            s.grants.contains(&(w.id, organization)),
                        )
                }),
            };
            if !found {
                return Ok(Err(ImportError::new(
                    r.entry.clone(),
                    format!("{} {id} not found", r.kind.as_str()),
                )));
            }
        }
        let facts = stored_facts(&s, organization, batch);
        if let Err(e) = check_against_stored(organization, batch, &facts) {
            return Ok(Err(e));
        }
        let mut done = 0;
        for w in &batch.warehouses {
            upsert(&mut s.warehouses, w, |x| x.id);
            if w.owner == crate::location::WarehouseOwner::Shared {
                s.grants.insert((w.id, organization));
            }
        }
        done += batch.warehouses.len();
        for o in &batch.offices {
            upsert(&mut s.offices, o, |x| x.id);
        }
        for x in &batch.skus {
            upsert(&mut s.skus, x, |x| x.id);
        }
        for x in &batch.packages {
            upsert(&mut s.packages, x, |x| x.id);
        }
        for x in &batch.people {
            upsert(&mut s.people, x, |x| x.id);
        }
        for x in &batch.inventory {
            upsert(&mut s.inventory, x, |x| x.id);
        }
        for x in &batch.inventory_levels {
            upsert(&mut s.inventory_levels, x, |x| x.id);
        }
        done += batch.len() - batch.warehouses.len();
        progress(done);
        Ok(Ok(ImportSummary {
            warehouses: batch.warehouses.len(),
            offices: batch.offices.len(),
            skus: batch.skus.len(),
            packages: batch.packages.len(),
            people: batch.people.len(),
            inventory: batch.inventory.len(),
            inventory_levels: batch.inventory_levels.len(),
        }))
    }
}

/// What the store holds that `organization`'s import of `batch` touches.
fn stored_facts(s: &State, organization: OrganizationId, batch: &ImportBatch) -> StoredFacts {
    let keys = StoredKeys::of(batch);
    let mut facts = StoredFacts::default();
    for w in s
        .warehouses
        .iter()
        .filter(|w| keys.warehouses.contains(&w.id))
    {
        let granted = s.grants.contains(&(w.id, organization));
        let stored = StoredWarehouse {
            warehouse: w.clone(),
            granted,
        };
        facts.warehouses.insert(w.id, stored);
    }
    for o in s.offices.iter().filter(|o| keys.offices.contains(&o.id)) {
        facts.offices.insert(o.id, o.organization_id);
    }
    for k in s.skus.iter().filter(|k| keys.skus.contains(&k.id)) {
        facts.skus.insert(k.id, k.organization_id);
    }
    for p in &s.packages {
        if keys.packages.contains(&p.id) {
            let stored = StoredPackage {
                organization: p.organization_id,
                slug: p.slug.clone(),
            };
            facts.packages.insert(p.id, stored);
        }
        if p.organization_id == organization && keys.package_slugs.contains(&p.slug) {
            facts.packages_with_batch_slugs.push((p.id, p.slug.clone()));
        }
    }
    for p in &s.people {
        let key = crate::text::identifier_key(&p.user_name);
        let active = p.status == PersonStatus::Active;
        if p.organization_id == organization && active && keys.active_user_name_keys.contains(&key)
        {
            facts
                .active_people_with_batch_names
                .push((p.id, key.clone()));
        }
        if keys.people.contains(&p.id) {
            let stored = StoredPerson {
                organization: p.organization_id,
                user_name_key: key,
                status: p.status,
            };
            facts.people.insert(p.id, stored);
        }
    }
    for i in &s.inventory {
        if keys.items.contains(&i.id) {
            facts.items.insert(i.id, i.organization_id);
        }
        if let Some(r) = &i.return_order {
            facts.return_orders.insert(r.id, i.organization_id);
            let line = StoredReturnLine {
                organization: i.organization_id,
                item: i.id,
            };
            facts.return_lines.insert(r.return_order_item_id, line);
        }
    }
    for l in &s.inventory_levels {
        let active = l.deactivated_at.is_none();
        if keys.levels.contains(&l.id) {
            let stored = StoredLevel {
                organization: l.organization_id,
                sku: l.sku_id,
                warehouse: l.warehouse_id,
                active,
            };
            facts.levels.insert(l.id, stored);
        }
        if l.organization_id == organization && active && keys.active_level_skus.contains(&l.sku_id)
        {
            facts
                .active_levels_of_batch_skus
                .push((l.id, l.sku_id, l.warehouse_id));
        }
    }
    facts
}

fn listed(s: &State, item: &InventoryItem) -> Option<InventoryItemView> {
    let sku = s.skus.iter().find(|k| k.id == item.sku_id)?.clone();
    let assignee_label = item.assignment.and_then(|a| match a.assignee {
        Assignee::Person(id) => s
            .people
            .iter()
            .find(|p| p.id == id)
            .map(|p| p.user_name.clone()),
        Assignee::Warehouse(id) => s
            .warehouses
            .iter()
            .find(|w| w.id == id)
            .map(|w| w.name.clone()),
        Assignee::Office(id) => s
            .offices
            .iter()
            .find(|o| o.id == id)
            .map(|o| o.name.clone()),
    });
    Some(InventoryItemView {
        item: item.clone(),
        sku,
        assignee_label,
    })
}

fn assigned_to(v: &InventoryItemView, assignee: Assignee) -> bool {
    v.item.assignment.is_some_and(|a| a.assignee == assignee)
}

fn matches_filter(s: &State, v: &InventoryItemView, f: &InventoryFilter) -> bool {
    let i = &v.item;
    let lower = |o: &Option<String>| o.as_deref().unwrap_or("").to_lowercase();
    let person_ok = match &f.person {
        None => true,
        Some(AssigneeFilter::Person(id)) => assigned_to(v, Assignee::Person(*id)),
        Some(AssigneeFilter::Email(email)) => s.people.iter().any(|p| {
            p.emails
                .iter()
                .any(|e| crate::text::identifier_key(&e.value) == *email)
                && assigned_to(v, Assignee::Person(p.id))
        }),
    };
    let search_text = [
        lower(&i.description),
        v.sku.vendor_name.to_lowercase(),
        v.sku.category_code.to_lowercase(),
        v.sku.category_name.to_lowercase(),
        v.sku.title.to_lowercase(),
        lower(&i.serial_number),
    ]
    .join("\n");
    person_ok
        && f.warehouse_id
            .is_none_or(|w| assigned_to(v, Assignee::Warehouse(w)))
        && f.office_id
            .is_none_or(|o| assigned_to(v, Assignee::Office(o)))
        && (f.categories.is_empty() || f.categories.contains(&v.sku.category_code.to_lowercase()))
        && (f.deploy_statuses.is_empty() || f.deploy_statuses.contains(&i.deploy_status))
        && !f.matches_nothing
        && (f.sku_ids.is_empty() || f.sku_ids.contains(&i.sku_id))
        && f.search
            .as_ref()
            .is_none_or(|q| search_text.contains(q.as_str()))
        && f.updated_from.is_none_or(|t| i.updated_at.naive_utc() >= t)
        && f.updated_to.is_none_or(|t| i.updated_at.naive_utc() <= t)
        && (f.serial_numbers.is_empty() || f.serial_numbers.contains(&lower(&i.serial_number)))
        && (f.vendor_skus.is_empty() || f.vendor_skus.contains(&v.sku.vendor_sku.to_lowercase()))
}

fn sort_key(v: &InventoryItemView, key: SortKey) -> String {
    let i = &v.item;
    let date = |d: Option<chrono::NaiveDate>| d.map(|d| d.to_string()).unwrap_or_default();
    let time = |t: DateTime<Utc>| t.format("%Y-%m-%dT%H:%M:%S%.6f").to_string();
    match key {
        SortKey::Product => v.sku.title.to_lowercase(),
        SortKey::SkuId => i.sku_id.to_string(),
        SortKey::CreatedAt => time(i.created_at),
        SortKey::UpdatedAt => time(i.updated_at),
        SortKey::SerialNumber => i.serial_number.as_deref().unwrap_or("").to_lowercase(),
        SortKey::DeployStatus => i.deploy_status.as_str().to_owned(),
        SortKey::DeployReason => i.deploy_reason.map(|r| r.as_str()).unwrap_or("").to_owned(),
        SortKey::Assignee => v.assignee_label.as_deref().unwrap_or("").to_lowercase(),
        SortKey::Condition => format!("{:02}", i.condition.rank()),
        SortKey::RenewalDate => date(i.renewal_date),
        SortKey::Category => format!(
            "{}\u{0}{}",
            v.sku.category_code.to_lowercase(),
            v.sku.title.to_lowercase()
        ),
        SortKey::SuppliedBy => i.supplied_by.as_str().to_owned(),
    }
}

impl HealthCheck for InMemoryStore {
    fn ping(&self) -> StoreResult<()> {
        Ok(())
    }

    fn check_writable(&self) -> StoreResult<()> {
        Ok(())
    }
}

/// Nothing to wait for: memory is as durable as it gets.
impl crate::ports::Durability for InMemoryStore {}

impl crate::ports::ReminderRepository for InMemoryStore {
    fn find_reminder_package(
        &self,
        organization: OrganizationId,
        id: crate::ids::PackageId,
    ) -> StoreResult<Option<Package>> {
        Ok(self
            .state()
            .packages
            .iter()
            .find(|p| p.id == id && p.organization_id == organization)
            .cloned())
    }

    fn insert_reminder(
        &self,
        reminder: &crate::reminder::Reminder,
        message: &crate::reminder::OutboxMessage,
    ) -> StoreResult<()> {
        let mut s = self.state();
        let org = reminder.organization_id;
        let known = |id: PersonId| {
            s.people
                .iter()
                .any(|p| p.id == id && p.organization_id == org)
        };
        if !known(reminder.person_id) || !reminder.sender_person_id.is_none_or(known) {
            return Err(StoreError::MissingReference {
                entity: "reminder",
                detail: "person not in the organization".into(),
            });
        }
        s.reminders.push(reminder.clone());
        s.outbox.push(message.clone());
        Ok(())
    }

    fn list_reminders(
        &self,
        organization: OrganizationId,
        person: PersonId,
    ) -> StoreResult<Vec<crate::reminder::ReminderDelivery>> {
        let s = self.state();
        let mut v: Vec<crate::reminder::ReminderDelivery> = s
            .reminders
            .iter()
            .filter(|r| r.organization_id == organization && r.person_id == person)
            .filter_map(|r| {
                s.outbox.iter().find(|m| m.reminder_id == r.id).map(|m| {
                    crate::reminder::ReminderDelivery {
                        reminder: crate::reminder::Reminder {
                            status: m.status,
                            ..r.clone()
                        },
                        attempts: m.attempts,
                        next_attempt_at: m.next_attempt_at,
                        last_error: m.last_error.clone(),
                        sent_at: m.sent_at,
                    }
                })
            })
            .collect();
        v.sort_by(|a, b| {
            b.reminder
                .created_at
                .cmp(&a.reminder.created_at)
                .then(b.reminder.id.cmp(&a.reminder.id))
        });
        Ok(v)
    }
}

impl crate::ports::OutboxRepository for InMemoryStore {
    fn claim_outbox_messages(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<Vec<crate::reminder::OutboxMessage>> {
        let mut s = self.state();
        let mut claimed = Vec::new();
        for m in s.outbox.iter_mut().filter(|m| {
            m.status == crate::reminder::DeliveryStatus::Pending
                && m.next_attempt_at <= now
                && m.claimed_until.is_none_or(|t| t < now)
        }) {
            if claimed.len() >= limit {
                break;
            }
            m.claimed_until = Some(lease_until);
            m.attempts += 1;
            claimed.push(m.clone());
        }
        Ok(claimed)
    }

    fn mark_outbox_sent(
        &self,
        id: crate::ids::OutboxMessageId,
        lease: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let mut s = self.state();
        let Some(m) = s.outbox.iter_mut().find(|m| {
            m.id == id
                && m.claimed_until == Some(lease)
                && m.status == crate::reminder::DeliveryStatus::Pending
        }) else {
            return Ok(false);
        };
        m.status = crate::reminder::DeliveryStatus::Sent;
        m.sent_at = Some(at);
        m.claimed_until = None;
        let reminder = m.reminder_id;
        for r in s.reminders.iter_mut().filter(|r| r.id == reminder) {
            r.status = crate::reminder::DeliveryStatus::Sent;
        }
        Ok(true)
    }

    fn mark_outbox_failed(
        &self,
        id: crate::ids::OutboxMessageId,
        lease: DateTime<Utc>,
        outcome: crate::reminder::AfterFailure,
        error: &str,
    ) -> StoreResult<bool> {
        let mut s = self.state();
        let Some(m) = s.outbox.iter_mut().find(|m| {
            m.id == id
                && m.claimed_until == Some(lease)
                && m.status == crate::reminder::DeliveryStatus::Pending
        }) else {
            return Ok(false);
        };
        m.claimed_until = None;
        m.last_error = Some(error.to_owned());
        let status = match outcome {
            crate::reminder::AfterFailure::RetryAt(at) => {
                m.next_attempt_at = at;
                crate::reminder::DeliveryStatus::Pending
            }
            crate::reminder::AfterFailure::Dead => crate::reminder::DeliveryStatus::Dead,
        };
        m.status = status;
        let reminder = m.reminder_id;
        for r in s.reminders.iter_mut().filter(|r| r.id == reminder) {
            r.status = status;
        }
        Ok(true)
    }

    fn outbox_stats(&self) -> StoreResult<crate::reminder::OutboxStats> {
        let s = self.state();
        let pending = s
            .outbox
            .iter()
            .filter(|m| m.status == crate::reminder::DeliveryStatus::Pending);
        Ok(crate::reminder::OutboxStats {
            pending: pending.clone().count() as u64,
            dead: s
                .outbox
                .iter()
                .filter(|m| m.status == crate::reminder::DeliveryStatus::Dead)
                .count() as u64,
            oldest_pending_created_at: pending.map(|m| m.created_at).min(),
        })
    }
}

/// Small data sets for tests.
pub mod fixtures {
    use chrono::Utc;

    use super::InMemoryStore;
    use crate::catalog::Sku;
    use crate::ids::{OrganizationId, SkuId, WarehouseId};
    use crate::location::{Warehouse, WarehouseOwner};
    use crate::organization::{Organization, OrganizationName};

    /// An organization with one SKU and one owned warehouse.
    #[derive(Debug, Clone)]
    pub struct Seeded {
        /// The organization.
        pub org: Organization,
        /// Its SKU.
        pub sku: Sku,
        /// Its warehouse.
        pub warehouse: Warehouse,
    }

    /// Seeds a fresh organization into `store`.
    ///
    /// # Panics
    /// Never for a valid constant name.
    #[must_use]
    pub fn seed(store: &InMemoryStore) -> Seeded {
        let id = OrganizationId::new();
        let org = Organization {
            id,
            name: OrganizationName::parse("Test Org").unwrap_or_else(|_| unreachable!()),
            created_at: Utc::now(),
        };
        let sku = Sku {
            id: SkuId::new(),
            organization_id: id,
            title: "MacBook Air 13\"".into(),
            category_code: "LAPTOP".into(),
            category_name: "Laptops".into(),
            vendor_code: "APPLE".into(),
            vendor_name: "Apple".into(),
            vendor_sku: "MLY33".into(),
        };
        let warehouse = Warehouse {
            id: WarehouseId::new(),
            owner: WarehouseOwner::Organization(id),
            name: "Berlin".into(),
            address: None,
        };
        let mut s = store.state();
        s.organizations.push(org.clone());
        s.skus.push(sku.clone());
        s.warehouses.push(warehouse.clone());
        Seeded {
            org,
            sku,
            warehouse,
        }
    }
}
