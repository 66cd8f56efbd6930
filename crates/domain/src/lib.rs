//! # equip-domain
//!
//! The heart of equip: entities, validated value types, business rules and the
//! repository traits (ports) that storage adapters implement.
//!
//! This crate knows nothing of HTTP, SQL or SCIM. Another service can embed it to
//! apply equip's rules (see `examples/apply_rules.rs`), and the [`testing`] module
//! provides in-memory implementations of every port.
//!
//! Module map:
//! - [`ids`]: typed identifiers.
//! - [`organization`], [`api_key`]: tenants and their keys and scopes.
//! - [`person`]: the people provisioned over SCIM, with their rules.
//! - [`filter`]: the one boolean filter tree (leaves per resource), its
//!   validation, in-memory evaluation and time comparisons as shown.
//! - [`person_query`]: filters, sorting and paging over people.
//! - [`group`]: groups of people, their members and the effective package;
//!   [`group_query`]: filters, sorting and paging over groups.
//! - [`catalog`]: SKUs and equipment packages.
//! - [`location`]: warehouses (owned or shared) and offices.
//! - [`inventory`]: inventory items, their enums and the deploy rules.
//! - [`inventory_level`]: per-SKU, per-warehouse stock-level settings.
//! - [`reminder`]: new-joiner reminders and the email outbox; [`email`]: what
//!   the emails say.
//! - [`import`]: the bulk import document and its validation.
//! - [`text`]: identifiers (comparison, characters), email addresses and
//!   the length limit of every text field.
//! - [`interrupt`]: whether the caller of a long read still waits for it.
//! - [`event`]: the record of every change (types, actors, changed fields);
//!   [`event_feed`]: reading it as a feed and as a subject's history.
//! - [`ports`]: repository traits; [`error`]: the errors they return.
//! - [`service_stats`]: the running service's figures its metrics report.
//! - [`services`]: use cases that combine rules and ports.

#![deny(missing_docs)]

#[macro_use]
mod macros;

pub mod api_key;
pub mod catalog;
pub mod email;
pub mod error;
pub mod event;
pub mod event_feed;
pub mod filter;
pub mod group;
pub mod group_query;
pub mod ids;
pub mod import;
pub mod interrupt;
pub mod inventory;
pub mod inventory_level;
pub mod inventory_query;
pub mod inventory_summary;
pub mod location;
pub mod orders;
pub mod organization;
pub mod person;
pub mod person_query;
pub mod ports;
pub mod reminder;
pub mod returns;
pub mod service_stats;
pub mod services;
pub mod sso;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;
pub mod waits;
pub mod webhook;
pub mod workflows;

pub use error::{DomainError, StoreError};
