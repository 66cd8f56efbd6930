//! What handlers share: the ports of the domain.

use std::sync::Arc;

use equip_domain::services::inventory::InventoryPorts;
use equip_domain::services::inventory_levels::LevelPorts;
use equip_domain::services::reminders::ReminderPorts;

use equip_domain::ports::{
    ApiKeyRepository, CatalogRepository, HealthCheck, InventoryLevelRepository,
    InventoryRepository, PersonRepository, WarehouseRepository,
};

/// Every port the web layer uses. A storage adapter implementing all of them
/// implements this automatically.
pub trait Ports:
    LevelPorts
    + InventoryPorts
    + ReminderPorts
    + ApiKeyRepository
    + WarehouseRepository
    + CatalogRepository
    + InventoryLevelRepository
    + InventoryRepository
    + PersonRepository
    + HealthCheck
{
}

impl<T> Ports for T where
    T: LevelPorts
        + InventoryPorts
        + ReminderPorts
        + ApiKeyRepository
        + WarehouseRepository
        + CatalogRepository
        + InventoryLevelRepository
        + InventoryRepository
        + PersonRepository
        + HealthCheck
{
}

/// Shared application state: cheap to clone.
#[derive(Clone)]
pub struct AppState {
    ports: Arc<dyn Ports>,
}

impl AppState {
    /// State over a store implementing every port.
    pub fn new<S: Ports + 'static>(store: Arc<S>) -> Self {
        Self { ports: store }
    }

    /// The ports, to move into a blocking closure.
    #[must_use]
    pub fn ports(&self) -> Arc<dyn Ports> {
        Arc::clone(&self.ports)
    }
}
