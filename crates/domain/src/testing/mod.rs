//! In-memory implementations of every port, for unit tests and for services that
//! embed the domain without a database. Not tuned for size: everything lives in
//! one mutex-guarded set of vectors.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};

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
    InventoryFilter, InventoryItemView, InventoryPage, InventoryQuery, SortDirection, SortKey,
};
use crate::inventory_query::{ListedBody, ListedItem};
use crate::location::{Office, Warehouse};
use crate::organization::Organization;
use crate::person::{Person, PersonStatus};
use crate::ports::{
    ApiKeyRepository, CatalogRepository, HealthCheck, ImportRepository, InventoryLevelRepository,
    InventoryRepository, OfficeRepository, OrganizationRepository, PersonRepository,
    WarehouseRepository,
};

mod catalog;
pub mod conformance;
mod events;
pub mod fixtures;
mod groups;
mod import;
mod inventory;
mod inventory_filter;
mod levels;
mod locations;
mod orders;
mod organizations;
mod people;
mod receipts;
mod reminders;
mod returns;
mod sso;
mod unit_of_work;
mod webhooks;

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
    /// When people's offboarding started and completed (the database's
    /// table `person_offboardings`).
    pub offboarding_times:
        std::collections::HashMap<PersonId, crate::person::directory::OffboardingTimes>,
    /// Groups.
    pub groups: Vec<crate::group::Group>,
    /// Memberships: (group, person).
    pub memberships: std::collections::BTreeSet<(crate::ids::GroupId, PersonId)>,
    /// Inventory items.
    pub inventory: Vec<InventoryItem>,
    /// Joiners' orders.
    pub orders: Vec<crate::orders::order::Order>,
    /// Return orders.
    pub return_orders: Vec<crate::returns::order::ReturnOrder>,
    /// Inventory levels.
    pub inventory_levels: Vec<InventoryLevel>,
    /// The levels whose stock is below their minimum (the crossing state).
    pub levels_below: HashSet<InventoryLevelId>,
    /// New-joiner reminders.
    pub reminders: Vec<crate::reminder::Reminder>,
    /// The email outbox.
    pub outbox: Vec<crate::reminder::OutboxMessage>,
    /// Webhooks.
    pub webhooks: Vec<crate::webhook::Webhook>,
    /// The webhooks' delivery log.
    pub webhook_attempts: Vec<crate::webhook::DeliveryAttempt>,
    /// Recorded events, in sequence order per organization.
    pub events: Vec<crate::event::Event>,
    /// Per organization: the last sequence given out and how far events
    /// were pruned.
    pub event_heads: std::collections::HashMap<OrganizationId, (i64, i64)>,
    /// Per organization: the id of the last event pruned.
    pub pruned_event_ids: std::collections::HashMap<OrganizationId, crate::ids::EventId>,
    /// Hold periods set by organizations (the others have the default).
    pub hold_periods: std::collections::HashMap<OrganizationId, crate::returns::hold::HoldPeriod>,
    /// Sign-in configurations by organization.
    pub sso_configs: Vec<crate::sso::SsoConfig>,
    /// Role mappings: (organization, mapping).
    pub sso_roles: Vec<(OrganizationId, crate::sso::RoleMapping)>,
    /// Sign-ins in progress.
    pub login_attempts: Vec<crate::sso::LoginAttempt>,
    /// Console sessions.
    pub sessions: Vec<crate::sso::Session>,
}

impl State {
    /// Records `event` of `organization` by `actor` at `at` with the next
    /// sequence (the in-memory store has one writer at a time).
    pub fn record(
        &mut self,
        organization: OrganizationId,
        actor: crate::event::Actor,
        at: DateTime<Utc>,
        event: crate::event::NewEvent,
    ) {
        let head = self.event_heads.entry(organization).or_insert((0, 0));
        head.0 += 1;
        self.events.push(crate::event::Event {
            id: crate::ids::EventId::new(),
            organization_id: organization,
            sequence: head.0,
            kind: event.kind,
            occurred_at: at,
            actor,
            subject: event.subject,
            changes: crate::event::RawChanges::of(&event.changes),
        });
    }
}

/// An in-memory implementation of every repository trait.
#[derive(Debug, Default)]
pub struct InMemoryStore {
    state: Arc<Mutex<State>>,
    actor: Option<crate::event::Actor>,
}

impl InMemoryStore {
    /// Locks the state (recovering from a poisoned lock: the data is plain values).
    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Who this value's writes are attributed to (`SYSTEM` unless set).
    fn actor(&self) -> crate::event::Actor {
        self.actor.clone().unwrap_or(crate::event::Actor::System)
    }
}

impl crate::ports::Acting for InMemoryStore {
    fn acting_as(&self, actor: crate::event::Actor) -> Self {
        Self {
            state: Arc::clone(&self.state),
            actor: Some(actor),
        }
    }
}

fn upsert<T: Clone, K: PartialEq>(list: &mut Vec<T>, item: &T, key: impl Fn(&T) -> K) {
    let k = key(item);
    match list.iter_mut().find(|x| key(x) == k) {
        Some(slot) => *slot = item.clone(),
        None => list.push(item.clone()),
    }
}

/// The in-memory store under the workflow conformance scenarios.
impl conformance::Harness for InMemoryStore {
    type Store = Self;

    fn store(&self) -> &Self {
        self
    }

    fn seed(&self) -> Result<fixtures::Seeded, String> {
        Ok(fixtures::seed(self))
    }

    fn put_order(&self, order: &crate::orders::order::Order) -> Result<(), String> {
        InMemoryStore::put_order(self, order);
        Ok(())
    }
}

#[cfg(test)]
mod workflow_conformance {
    //! The conformance scenarios over the in-memory store, one test each.
    use super::conformance::{self, DynHarness};
    use super::InMemoryStore;

    fn run(name: &str) {
        let (_, scenario) = conformance::SCENARIOS
            .iter()
            .find(|(n, _)| *n == name)
            .copied()
            .unwrap_or_else(|| panic!("no scenario {name}"));
        let store = InMemoryStore::default();
        let harness: &dyn DynHarness = &store;
        if let Err(why) = scenario(harness) {
            panic!("{name}: {why}");
        }
    }

    #[test]
    fn a_created_item_fills_a_backorder() {
        run("a_created_item_fills_a_backorder");
    }

    #[test]
    fn a_hold_release_fills_a_backorder() {
        run("a_hold_release_fills_a_backorder");
    }

    #[test]
    fn the_oldest_backorder_takes_the_one_item() {
        run("the_oldest_backorder_takes_the_one_item");
    }

    #[test]
    fn an_allocation_below_a_minimum_records_one_crossing() {
        run("an_allocation_below_a_minimum_records_one_crossing");
    }

    #[test]
    fn every_scenario_has_its_test() {
        assert_eq!(conformance::SCENARIOS.len(), 4);
    }
}
