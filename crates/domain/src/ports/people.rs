//! Port: People.

use crate::error::StoreResult;
use crate::ids::{OrganizationId, PersonId};
use crate::person::Person;

/// People.
pub trait PersonRepository: Send + Sync {
    /// Finds a person of the organization, whatever their status.
    ///
    /// # Errors
    /// Backend failures.
    fn find_person(
        &self,
        organization: OrganizationId,
        id: PersonId,
    ) -> StoreResult<Option<Person>>;
}
