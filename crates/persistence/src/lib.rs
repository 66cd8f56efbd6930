//! # equip-persistence
//!
//! Diesel implementations of equip's repository traits over **SQLite** (the
//! embedded default) and **PostgreSQL** (production), from one code base.
//!
//! - [`Store::connect`] opens an r2d2 pool; the URL picks the backend
//!   (`postgres://` / `postgresql://` → PostgreSQL; `sqlite://path`,
//!   `sqlite:path` or a plain path → SQLite, the file created when missing, in
//!   a directory that must exist; a mistyped scheme such as `postgres//host/db`
//!   is refused, not taken for a path). Every SQLite connection runs `PRAGMA busy_timeout = 5000;
//!   journal_mode = WAL; foreign_keys = ON; synchronous = NORMAL`.
//! - [`Store::run_migrations`] applies the embedded migrations of the backend
//!   (`migrations/sqlite` or `migrations/postgres`, kept equivalent).
//! - [`Store`] implements every trait of [`equip_domain::ports`]. Storage
//!   errors map onto [`equip_domain::StoreError`]: unique violation →
//!   `Duplicate`, foreign-key violation → `MissingReference`, no connection in
//!   time → `Unavailable`, anything else → `Backend` (text for logs only).
//! - Write transactions use `BEGIN IMMEDIATE` on SQLite, so concurrent writers
//!   queue on the busy timeout instead of failing on a lock upgrade.
//! - The bulk import ([`equip_domain::ports::ImportRepository`]) runs in one
//!   transaction with multi-row statements; see `docs/storage.md`.
//!
//! Types both backends share: UUIDs as lowercase hyphenated TEXT, times as
//! naive-UTC `Timestamp` with microsecond precision (values are truncated to
//! microseconds when written, on both backends), dates as `Date`, booleans,
//! money as `Double`.
//!
//! With the `test-support` feature, [`test_support::TestDatabase`] provides
//! throw-away databases for tests.
//!
//! ```no_run
//! use equip_persistence::{PoolOptions, Store};
//! use equip_domain::ports::HealthCheck;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let store = Store::connect("sqlite://./equip.db", PoolOptions::default())?;
//! let applied = store.run_migrations()?;
//! eprintln!("applied {} migrations", applied.len());
//! store.ping()?;
//! # Ok(())
//! # }
//! ```

mod change_feed;
mod connection;
mod database_url;
mod error;
mod events;
mod filter_sql;
mod group_filter;
mod import;
mod import_events;
mod import_facts;
mod levels;
mod listing;
mod membership;
mod models;
mod orders;
mod package_contents;
mod people_filter;
mod repositories;
mod returns;
mod schema;
mod sql_builder;
mod stock;
mod store;
#[cfg(feature = "test-support")]
pub mod test_support;

pub use connection::{Backend, SqliteMemory};
pub use database_url::redact_url;
pub use error::PersistenceError;
pub use events::events_written;
pub use listing::ListingRebuilt;
pub use models::fold_case;
pub use store::{PoolOptions, Store, EQUIP_VERSION, SQLITE_MAX_POOL_SIZE};
