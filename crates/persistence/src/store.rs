//! [`Store`]: the r2d2 pool, migrations, and the repository traits.

use std::time::Duration;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::r2d2::{Pool, PooledConnection};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

use equip_domain::api_key::ApiKey;
use equip_domain::catalog::Sku;
use equip_domain::error::StoreResult;
use equip_domain::ids::{
    ApiKeyId, InventoryItemId, InventoryLevelId, OrganizationId, PersonId, SkuId, WarehouseId,
};
use equip_domain::import::{ExternalReference, ImportBatch, ImportError, ImportSummary};
use equip_domain::inventory::InventoryItem;
use equip_domain::inventory_level::InventoryLevel;
use equip_domain::location::Warehouse;
use equip_domain::organization::Organization;
use equip_domain::person::Person;
use equip_domain::ports::{
    ApiKeyRepository, CatalogRepository, HealthCheck, ImportRepository, InventoryLevelRepository,
    InventoryRepository, OrganizationRepository, PersonRepository, WarehouseRepository,
};
use equip_domain::StoreError;

use crate::connection::{
    on_inner, write_transaction, Backend, DbConnection, Manager, SqlitePragmas, Target,
};
use crate::error::{DbError, DbResult, PersistenceError};
use crate::models::{
    db_time, ApiKeyRow, ItemRow, ItemRows, LevelRow, OrganizationRow, PersonEmailRow, PersonRow,
    PersonRows, PricingRow, ReturnOrderItemRow, ReturnOrderRow, SkuRow, TagRow, WarehouseRow,
};
use crate::schema::{
    api_keys, inventory_item_pricing, inventory_item_tags, inventory_items, inventory_levels,
    organizations, people, person_emails, return_order_items, return_orders, skus,
    warehouse_grants, warehouses,
};

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// Key of the PostgreSQL advisory lock held while migrating, so that several
/// `equip` instances starting together migrate one after the other.
const MIGRATION_LOCK_KEY: i64 = 0x6571_7569_705f_6d69; // "equip_mi"

/// Most connections a SQLite pool opens: SQLite has one writer at a time, and a
/// few WAL readers are plenty.
pub const SQLITE_MAX_POOL_SIZE: u32 = 8;

/// Pool settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolOptions {
    /// Most connections the pool opens (at most [`SQLITE_MAX_POOL_SIZE`] for
    /// SQLite whatever is asked).
    pub max_size: u32,
    /// How long a caller waits for a free connection before getting
    /// [`StoreError::Unavailable`].
    pub connection_timeout: Duration,
}

impl Default for PoolOptions {
    /// 16 connections (SQLite: 8), 5 s timeout.
    fn default() -> Self {
        Self {
            max_size: 16,
            connection_timeout: Duration::from_secs(5),
        }
    }
}

/// The persistent store: a pool of connections to SQLite or PostgreSQL.
/// Cheap to clone (the pool is shared). Implements every repository trait of
/// [`equip_domain::ports`]; all methods block, so async callers run them on a
/// blocking pool.
#[derive(Clone)]
pub struct Store {
    pool: Pool<Manager>,
    backend: Backend,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.pool.state();
        f.debug_struct("Store")
            .field("backend", &self.backend)
            .field("connections", &state.connections)
            .field("idle_connections", &state.idle_connections)
            .finish()
    }
}

type Conn = PooledConnection<Manager>;

enum MigrateError {
    Diesel(diesel::result::Error),
    Migration(String),
}

impl From<diesel::result::Error> for MigrateError {
    fn from(err: diesel::result::Error) -> Self {
        Self::Diesel(err)
    }
}

fn apply_migrations<DB, C>(
    conn: &mut C,
    source: EmbeddedMigrations,
) -> Result<Vec<String>, MigrateError>
where
    DB: diesel::backend::Backend,
    C: MigrationHarness<DB>,
{
    let pending = conn
        .pending_migrations(source)
        .map_err(|e| MigrateError::Migration(e.to_string()))?;
    let mut applied = Vec::with_capacity(pending.len());
    for migration in pending {
        let name = migration.name().to_string();
        conn.run_migration(&*migration)
            .map_err(|e| MigrateError::Migration(format!("{name}: {e}")))?;
        log::info!("applied migration {name}");
        applied.push(name);
    }
    Ok(applied)
}

impl Store {
    /// Opens a pool for `database_url` (`postgres://…` / `postgresql://…`, or a
    /// SQLite `sqlite://path`, `sqlite:path` or plain path; a missing SQLite file
    /// and its directory are created). Waits for one working connection. Does
    /// not migrate: call [`Store::run_migrations`].
    ///
    /// # Errors
    /// [`PersistenceError::InvalidUrl`], [`PersistenceError::CreateDirectory`],
    /// or [`PersistenceError::Connect`] when no connection could be opened
    /// within `options.connection_timeout`.
    pub fn connect(database_url: &str, options: PoolOptions) -> Result<Store, PersistenceError> {
        let target = Target::parse(database_url)?;
        target.prepare()?;
        let backend = target.backend();
        let max_size = match backend {
            Backend::Sqlite => options.max_size.min(SQLITE_MAX_POOL_SIZE),
            Backend::Postgres => options.max_size,
        }
        .max(1);
        let pool = Pool::builder()
            .max_size(max_size)
            .min_idle(Some(1))
            .connection_timeout(options.connection_timeout)
            .connection_customizer(Box::new(SqlitePragmas))
            .build(Manager::new(target))
            .map_err(|e| PersistenceError::Connect(e.to_string()))?;
        Ok(Store { pool, backend })
    }

    /// Applies the pending migrations of the backend, all in one transaction
    /// (on PostgreSQL under an advisory lock, so concurrent starters wait for
    /// each other). Returns the names of the migrations applied now; empty when
    /// the schema was up to date.
    ///
    /// # Errors
    /// [`PersistenceError::Migration`] (nothing of this run is kept), or the
    /// pool's errors.
    pub fn run_migrations(&self) -> Result<Vec<String>, PersistenceError> {
        let mut conn = self
            .pool
            .get()
            .map_err(|e| PersistenceError::Unavailable(e.to_string()))?;
        let result = write_transaction(&mut conn, |conn| match conn {
            DbConnection::Sqlite(c) => apply_migrations(c, SQLITE_MIGRATIONS),
            DbConnection::Postgres(c) => {
                diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
                    .bind::<diesel::sql_types::BigInt, _>(MIGRATION_LOCK_KEY)
                    .execute(c)?;
                apply_migrations(c, POSTGRES_MIGRATIONS)
            }
        });
        result.map_err(|e| match e {
            MigrateError::Diesel(e) => PersistenceError::Migration(e.to_string()),
            MigrateError::Migration(m) => PersistenceError::Migration(m),
        })
    }

    /// Which database this store talks to.
    #[must_use]
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The pool (for the test helpers).
    #[cfg(feature = "test-support")]
    pub(crate) fn pool(&self) -> &Pool<Manager> {
        &self.pool
    }

    fn conn(&self) -> DbResult<Conn> {
        self.pool.get().map_err(|e| DbError::Pool(e.to_string()))
    }

    /// Runs `f` with a pooled connection, mapping errors for `entity`.
    fn with<T>(
        &self,
        entity: &'static str,
        duplicate: &str,
        f: impl FnOnce(&mut DbConnection) -> DbResult<T>,
    ) -> StoreResult<T> {
        let mut conn = self.conn().map_err(|e| e.into_store(entity, duplicate))?;
        f(&mut conn).map_err(|e| e.into_store(entity, duplicate))
    }
}

impl OrganizationRepository for Store {
    fn insert_organization(&self, organization: &Organization) -> StoreResult<()> {
        let row = OrganizationRow::from(organization);
        self.with("organization", "an organization with this id exists", |c| {
            diesel::insert_into(organizations::table)
                .values(&row)
                .execute(c)?;
            Ok(())
        })
    }

    fn find_organization(&self, id: OrganizationId) -> StoreResult<Option<Organization>> {
        self.with("organization", "", |c| {
            organizations::table
                .find(id.to_string())
                .select(OrganizationRow::as_select())
                .first(c)
                .optional()?
                .map(OrganizationRow::into_domain)
                .transpose()
        })
    }

    fn count_organizations(&self) -> StoreResult<u64> {
        self.with("organization", "", |c| {
            let n: i64 = organizations::table.count().get_result(c)?;
            Ok(u64::try_from(n).unwrap_or(0))
        })
    }
}

impl ApiKeyRepository for Store {
    fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()> {
        let row = ApiKeyRow::from(key);
        self.with("apiKey", "an API key with this prefix or id exists", |c| {
            diesel::insert_into(api_keys::table)
                .values(&row)
                .execute(c)?;
            Ok(())
        })
    }

    fn find_api_key_by_prefix(&self, prefix: &str) -> StoreResult<Option<ApiKey>> {
        self.with("apiKey", "", |c| {
            api_keys::table
                .filter(api_keys::prefix.eq(prefix))
                .select(ApiKeyRow::as_select())
                .first(c)
                .optional()?
                .map(ApiKeyRow::into_domain)
                .transpose()
        })
    }

    fn revoke_api_key(&self, id: ApiKeyId, at: DateTime<Utc>) -> StoreResult<()> {
        let id = id.to_string();
        let found = self.with("apiKey", "", |c| {
            // Only an unrevoked key changes, so the first revocation time stays.
            let changed = diesel::update(
                api_keys::table
                    .filter(api_keys::id.eq(&id))
                    .filter(api_keys::revoked_at.is_null()),
            )
            .set(api_keys::revoked_at.eq(Some(db_time(at))))
            .execute(c)?;
            if changed > 0 {
                return Ok(true);
            }
            let exists: i64 = api_keys::table
                .filter(api_keys::id.eq(&id))
                .count()
                .get_result(c)?;
            Ok(exists > 0)
        })?;
        if found {
            Ok(())
        } else {
            Err(StoreError::NotFound { entity: "apiKey" })
        }
    }
}

impl WarehouseRepository for Store {
    fn find_accessible_warehouse(
        &self,
        organization: OrganizationId,
        id: WarehouseId,
    ) -> StoreResult<Option<Warehouse>> {
        let org = organization.to_string();
        let id = id.to_string();
        self.with("warehouse", "", |c| {
            let granted = warehouse_grants::table
                .filter(warehouse_grants::warehouse_id.eq(&id))
                .filter(warehouse_grants::organization_id.eq(&org));
            warehouses::table
                .filter(warehouses::id.eq(&id))
                .filter(
                    warehouses::owner_organization_id.eq(&org).or(
                        warehouses::owner_organization_id
                            .is_null()
                            .and(diesel::dsl::exists(granted)),
                    ),
                )
                .select(WarehouseRow::as_select())
                .first(c)
                .optional()?
                .map(WarehouseRow::into_domain)
                .transpose()
        })
    }
}

impl CatalogRepository for Store {
    fn find_sku(&self, organization: OrganizationId, id: SkuId) -> StoreResult<Option<Sku>> {
        self.with("sku", "", |c| {
            skus::table
                .filter(skus::id.eq(id.to_string()))
                .filter(skus::organization_id.eq(organization.to_string()))
                .select(SkuRow::as_select())
                .first(c)
                .optional()?
                .map(SkuRow::into_domain)
                .transpose()
        })
    }
}

impl PersonRepository for Store {
    fn find_person(
        &self,
        organization: OrganizationId,
        id: PersonId,
    ) -> StoreResult<Option<Person>> {
        let org = organization.to_string();
        let id = id.to_string();
        self.with("person", "", |c| {
            c.transaction(|c| {
                let Some(person) = people::table
                    .filter(people::id.eq(&id))
                    .filter(people::organization_id.eq(&org))
                    .select(PersonRow::as_select())
                    .first(c)
                    .optional()?
                else {
                    return Ok(None);
                };
                let emails = person_emails::table
                    .filter(person_emails::person_id.eq(&id))
                    .filter(person_emails::organization_id.eq(&org))
                    .order(person_emails::position.asc())
                    .select(PersonEmailRow::as_select())
                    .load(c)?;
                PersonRows { person, emails }.into_domain().map(Some)
            })
        })
    }
}

impl InventoryRepository for Store {
    fn find_inventory_item(
        &self,
        organization: OrganizationId,
        id: InventoryItemId,
    ) -> StoreResult<Option<InventoryItem>> {
        let org = organization.to_string();
        let id = id.to_string();
        self.with("inventoryItem", "", |c| {
            c.transaction(|c| {
                let Some(item) = inventory_items::table
                    .filter(inventory_items::id.eq(&id))
                    .filter(inventory_items::organization_id.eq(&org))
                    .select(ItemRow::as_select())
                    .first(c)
                    .optional()?
                else {
                    return Ok(None);
                };
                let tags = inventory_item_tags::table
                    .filter(inventory_item_tags::item_id.eq(&id))
                    .filter(inventory_item_tags::organization_id.eq(&org))
                    .order(inventory_item_tags::position.asc())
                    .select(TagRow::as_select())
                    .load(c)?;
                let pricing = inventory_item_pricing::table
                    .filter(inventory_item_pricing::item_id.eq(&id))
                    .filter(inventory_item_pricing::organization_id.eq(&org))
                    .select(PricingRow::as_select())
                    .first(c)
                    .optional()?;
                let active_return = return_order_items::table
                    .inner_join(return_orders::table)
                    .filter(return_order_items::inventory_item_id.eq(&id))
                    .filter(return_order_items::organization_id.eq(&org))
                    .filter(return_order_items::active.eq(true))
                    .select((ReturnOrderRow::as_select(), ReturnOrderItemRow::as_select()))
                    .first(c)
                    .optional()?;
                ItemRows {
                    item,
                    pricing,
                    tags,
                    active_return,
                }
                .into_domain()
                .map(Some)
            })
        })
    }
}

impl InventoryLevelRepository for Store {
    fn insert_inventory_level(&self, level: &InventoryLevel) -> StoreResult<()> {
        let row = LevelRow::from(level);
        self.with(
            "inventoryLevel",
            "an active inventory level exists for this SKU and warehouse",
            |c| {
                diesel::insert_into(inventory_levels::table)
                    .values(&row)
                    .execute(c)?;
                Ok(())
            },
        )
    }

    fn find_inventory_level(
        &self,
        organization: OrganizationId,
        id: InventoryLevelId,
    ) -> StoreResult<Option<InventoryLevel>> {
        self.with("inventoryLevel", "", |c| {
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
    ) -> StoreResult<Vec<InventoryLevel>> {
        self.with("inventoryLevel", "", |c| {
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
            query
                .load(c)?
                .into_iter()
                .map(LevelRow::into_domain)
                .collect()
        })
    }

    fn mark_inventory_level_deactivated(
        &self,
        organization: OrganizationId,
        id: InventoryLevelId,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        self.with("inventoryLevel", "", |c| {
            let changed = diesel::update(
                inventory_levels::table
                    .filter(inventory_levels::id.eq(id.to_string()))
                    .filter(inventory_levels::organization_id.eq(organization.to_string()))
                    .filter(inventory_levels::deactivated_at.is_null()),
            )
            .set(inventory_levels::deactivated_at.eq(Some(db_time(at))))
            .execute(c)?;
            Ok(changed > 0)
        })
    }
}

impl ImportRepository for Store {
    fn import_batch(
        &self,
        organization: OrganizationId,
        batch: &ImportBatch,
        external: &[ExternalReference],
        progress: &mut dyn FnMut(usize),
    ) -> StoreResult<Result<ImportSummary, ImportError>> {
        let mut conn = self
            .conn()
            .map_err(|e| e.into_store("import", "a row of the import clashes with a stored row"))?;
        let result = write_transaction(&mut conn, |c| {
            crate::import::run(c, organization, batch, external, progress)
        });
        match result {
            Ok(summary) => {
                if batch.len() >= crate::import::ANALYZE_AFTER {
                    crate::import::refresh_statistics(&mut conn);
                }
                Ok(Ok(summary))
            }
            Err(DbError::Import(e)) => Ok(Err(e)),
            Err(other) => {
                Err(other.into_store("import", "a row of the import clashes with a stored row"))
            }
        }
    }
}

impl HealthCheck for Store {
    fn ping(&self) -> StoreResult<()> {
        self.with("database", "", |c| {
            on_inner!(c, |c| diesel::sql_query("SELECT 1").execute(c))?;
            Ok(())
        })
    }
}
