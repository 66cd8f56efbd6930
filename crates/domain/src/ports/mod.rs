//! Repository traits (ports). Storage adapters implement them; the web layer and
//! the use cases in [`crate::services`] use them. All are synchronous: callers on
//! an async runtime run them on a blocking pool.
//!
//! Every method that reads or writes customer data takes the caller's
//! [`crate::ids::OrganizationId`]; a row of another organization behaves exactly like a row
//! that does not exist.

mod api_keys;
mod backorders;
mod catalog;
mod events;
mod groups;
mod health;
mod import;
mod inventory;
mod inventory_levels;
mod locations;
mod orders;
mod organizations;
mod people;
mod receipts;
mod reminders;
mod returns;
mod sessions;
mod sso;
mod stats;
pub mod unit_of_work;
mod webhooks;

pub use api_keys::ApiKeyRepository;
pub use backorders::BackorderRepository;
pub use catalog::CatalogRepository;
pub use events::{Acting, EventRepository};
pub use groups::{GroupChange, GroupRepository, GroupWrite};
pub use health::HealthCheck;
pub use import::ImportRepository;
pub use inventory::{InventoryRepository, ItemWrite};
pub use inventory_levels::InventoryLevelRepository;
pub use locations::{OfficeRepository, WarehouseGrants, WarehouseRepository};
pub use orders::OrderRepository;
pub use organizations::OrganizationRepository;
pub use people::{
    insert_one_at_a_time, Offboarding, PersonRepository, PersonWrite, UNAVAILABLE_IN_A_ROW,
};
pub use receipts::{EntryOutcome, ReceiptRepository};
pub use reminders::{OutboxRepository, ReminderRepository};
pub use returns::ReturnOrderRepository;
pub use sessions::WriteSessions;
pub use sso::SsoRepository;
pub use stats::StatsSource;
pub use unit_of_work::UnitOfWork;
pub use webhooks::{WebhookQueue, WebhookRepository};
