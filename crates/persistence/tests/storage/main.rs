//! The storage integration suite, one test binary: every test runs against
//! SQLite and against PostgreSQL (skipped with a note on stderr when
//! PostgreSQL cannot be reached, unless `EQUIP_REQUIRE_POSTGRES=1` or
//! `CI=true`). One module per port or concern; shared builders in
//! `support.rs`.
//!
//! Run: `cargo test -p equip-persistence --test storage`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::too_many_lines)]

/// Generates `mod sqlite` and `mod postgres` in the calling module, each with
/// one `#[test]` per function; every function takes `(&TestDatabase, &Store)`.
macro_rules! storage_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    let db = super::TestDatabase::sqlite();
                    let store = db.store();
                    assert_eq!(store.backend(), super::Backend::Sqlite);
                    super::$name(&db, &store);
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $name() {
                    let Some(db) = super::TestDatabase::postgres() else {
                        return;
                    };
                    let store = db.store();
                    assert_eq!(store.backend(), super::Backend::Postgres);
                    super::$name(&db, &store);
                }
            )*
        }
    };
}

mod support;

mod benchmarks;
mod connection;
mod events;
mod folding;
mod groups;
mod health;
mod import;
mod import_rules;
mod joiner_stock;
mod joiners;
mod keys;
mod levels;
mod listing_properties;
mod orders;
mod packages;
mod people;
mod receipts;
mod returns;
mod schema;
mod sso;
mod statistics;
mod stock_levels;
mod warehouses;
mod webhooks;
mod workflow_conformance;
