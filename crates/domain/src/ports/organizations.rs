//! Port: Organizations.

use crate::error::StoreResult;
use crate::ids::OrganizationId;
use crate::organization::Organization;

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

    /// Every organization, oldest first (then by id): what `equip org list`
    /// shows an operator.
    ///
    /// # Errors
    /// Backend failures.
    fn list_organizations(&self) -> StoreResult<Vec<Organization>>;
}
