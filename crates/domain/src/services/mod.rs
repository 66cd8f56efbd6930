//! Use cases: rules combined with ports. Each function takes the ports it needs
//! and the caller's organization, and returns a [`crate::DomainError`] that the
//! web layer maps to a status.

pub mod admin;
pub mod auth;
pub mod catalog;
pub mod directory;
pub mod events;
pub mod groups;
pub mod import;
pub mod inventory;
pub mod inventory_levels;
pub mod orders;
pub mod packages;
pub mod people;
pub mod receipts;
pub mod reminders;
pub mod returns;
pub mod sso;
pub mod warehouses;
pub mod webhooks;
