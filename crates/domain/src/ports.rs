//! Repository traits (ports). Storage adapters implement them; the web layer and
//! the use cases in [`crate::services`] use them. All are synchronous: callers on
//! an async runtime run them on a blocking pool.
//!
//! Every method that reads or writes customer data takes the caller's
//! [`OrganizationId`]; a row of another organization behaves exactly like a row
//! that does not exist.

use chrono::{DateTime, Utc};

use crate::api_key::ApiKey;
use crate::catalog::Sku;
use crate::error::StoreResult;
use crate::ids::{
    ApiKeyId, InventoryItemId, InventoryLevelId, OrganizationId, PersonId, SkuId, WarehouseId,
};
use crate::import::{ImportBatch, ImportError, ImportSummary};
use crate::inventory::InventoryItem;
use crate::inventory_level::InventoryLevel;
use crate::location::Warehouse;
use crate::organization::Organization;
use crate::person::Person;

/// Organizations.
pub trait OrganizationRepository: Send + Sync {
    /// Stores a new organization.
    ///
    /// # Errors
    /// [`crate::StoreError::Duplicate`] when the id exists; backend failures.
    fn insert_organization(&self, organization: &Organization) -> StoreResult<()>;

    /// Finds an organization.
    ///
    /// # Errors
    /// Backend failures.
    fn find_organization(&self, id: OrganizationId) -> StoreResult<Option<Organization>>;

    /// How many organizations exist (an operator's hint: none means a fresh install).
    ///
    /// # Errors
    /// Backend failures.
    fn count_organizations(&self) -> StoreResult<u64>;
}

/// API keys.
pub trait ApiKeyRepository: Send + Sync {
    /// Stores a new key record (never the key itself).
    ///
    /// # Errors
    /// [`crate::StoreError::MissingReference`] for an unknown organization;
    /// [`crate::StoreError::Duplicate`] for a prefix collision; backend failures.
    fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()>;

    /// Finds a key record by its public prefix, revoked or not.
    ///
    /// # Errors
    /// Backend failures.
    fn find_api_key_by_prefix(&self, prefix: &str) -> StoreResult<Option<ApiKey>>;

    /// Marks a key revoked at `at`. Revoking a revoked key keeps the first time.
    ///
    /// # Errors
    /// [`crate::StoreError::NotFound`] for an unknown key; backend failures.
    fn revoke_api_key(&self, id: ApiKeyId, at: DateTime<Utc>) -> StoreResult<()>;
}

/// Warehouses.
pub trait WarehouseRepository: Send + Sync {
    /// Finds a warehouse the organization owns or was granted; `None` otherwise.
    ///
    /// # Errors
    /// Backend failures.
    fn find_accessible_warehouse(
        &self,
        organization: OrganizationId,
        id: WarehouseId,
    ) -> StoreResult<Option<Warehouse>>;
}

/// SKUs and packages.
pub trait CatalogRepository: Send + Sync {
    /// Finds a SKU of the organization.
    ///
    /// # Errors
    /// Backend failures.
    fn find_sku(&self, organization: OrganizationId, id: SkuId) -> StoreResult<Option<Sku>>;
}

/// People.
pub trait PersonRepository: Send + Sync {
    /// Finds a person of the organization, whatever their status.
    ///
    /// # Errors
    /// Backend failures.
    fn find_person(
        &self,
        organization: OrganizationId,
        id: PersonId,
    ) -> StoreResult<Option<Person>>;
}

/// Inventory items.
pub trait InventoryRepository: Send + Sync {
    /// Finds an item of the organization with its tags and active return.
    ///
    /// # Errors
    /// Backend failures.
    fn find_inventory_item(
        &self,
        organization: OrganizationId,
        id: InventoryItemId,
    ) -> StoreResult<Option<InventoryItem>>;
}

/// Inventory levels.
pub trait InventoryLevelRepository: Send + Sync {
    /// Stores a new level.
    ///
    /// # Errors
    /// [`crate::StoreError::Duplicate`] when an active level exists for the same
    /// organization, SKU and warehouse (enforced by the store, also under
    /// concurrent inserts); backend failures.
    fn insert_inventory_level(&self, level: &InventoryLevel) -> StoreResult<()>;

    /// Finds a level of the organization, active or not.
    ///
    /// # Errors
    /// Backend failures.
    fn find_inventory_level(
        &self,
        organization: OrganizationId,
        id: InventoryLevelId,
    ) -> StoreResult<Option<InventoryLevel>>;

    /// Lists the organization's levels, newest first (ties by id); only active ones
    /// unless `include_inactive`.
    ///
    /// # Errors
    /// Backend failures.
    fn list_inventory_levels(
        &self,
        organization: OrganizationId,
        include_inactive: bool,
    ) -> StoreResult<Vec<InventoryLevel>>;

    /// Sets `deactivated_at` if the level is still active. Returns whether it
    /// changed the row (false: unknown, another organization's, or already
    /// deactivated — e.g. by a concurrent request).
    ///
    /// # Errors
    /// Backend failures.
    fn mark_inventory_level_deactivated(
        &self,
        organization: OrganizationId,
        id: InventoryLevelId,
        at: DateTime<Utc>,
    ) -> StoreResult<bool>;
}

/// Atomic bulk import.
pub trait ImportRepository: Send + Sync {
    /// Writes a validated batch for `organization` in one transaction, upserting by
    /// id, after checking `external` references against stored rows. Calls
    /// `progress` with the number of entries written so far.
    ///
    /// # Errors
    /// `Ok(Err(ImportError))` names the bad entry (an unresolved reference, an id
    /// of another organization, a uniqueness clash with stored rows); nothing was
    /// written. `Err` is a backend failure; nothing was written either.
    fn import_batch(
        &self,
        organization: OrganizationId,
        batch: &ImportBatch,
        external: &[crate::import::ExternalReference],
        progress: &mut dyn FnMut(usize),
    ) -> StoreResult<Result<ImportSummary, ImportError>>;
}

/// Liveness of the store.
pub trait HealthCheck: Send + Sync {
    /// Runs a trivial query.
    ///
    /// # Errors
    /// [`crate::StoreError::Unavailable`] or backend failures.
    fn ping(&self) -> StoreResult<()>;
}
