//! The `equip` binary's integration tests, one binary for the crate: the
//! HTTP API through the real app over the real store (SQLite and PostgreSQL),
//! the CLI, and the spawned server (crash, shutdown, several instances). The
//! shared harness is `support`; each module is one area.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod support;

mod bulk_crash;
mod change_notifications;
mod cli;
mod concurrent_item_writes;
mod configuration;
mod console;
mod csv_crash;
mod demo_history;
mod dispatch;
mod fairness;
mod graceful_shutdown;
mod hardening_four;
mod hold_release_instances;
mod http_api_key;
mod http_console_lookups;
mod http_events;
mod http_foundation;
mod http_gate;
mod http_inventory;
mod http_inventory_items;
mod http_joiners;
mod http_limits;
mod http_orders;
mod http_packages;
mod http_people;
mod http_receipts;
mod http_reminders;
mod http_return_orders;
mod http_scim;
mod http_scim_bulk;
mod http_scim_core_attributes;
mod http_scim_csv;
mod http_scim_gallery;
mod http_scim_groups;
mod http_scim_interop;
mod http_sessions;
mod http_sso;
mod http_warehouses;
mod http_webhooks;
mod instances;
mod joiner_instances;
mod log_lines;
mod long_writes;
mod lost_connection;
mod metrics;
mod nul_text;
mod openapi;
mod overload;
mod postgres_crash;
mod rate_limits;
mod request_ids;
mod rollback;
mod scim_names_and_paths;
mod shared_warehouse;
mod tenant_isolation;
mod text_rules;
mod unwritable;
