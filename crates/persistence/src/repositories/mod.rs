//! The domain's repository traits implemented for [`crate::Store`], one module per port.

mod api_keys;
mod backorders;
mod catalog;
mod events;
pub(crate) mod groups;
mod health;
mod import;
mod inventory;
mod inventory_levels;
mod offices;
mod orders;
mod organizations;
pub(crate) mod people;
mod receipts;
mod reminders;
mod returns;
mod sessions;
mod sso;
mod warehouses;
mod webhooks;
