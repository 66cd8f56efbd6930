//! Port: API keys.

use chrono::{DateTime, Utc};

use crate::api_key::ApiKey;
use crate::error::StoreResult;
use crate::ids::{ApiKeyId, OrganizationId};

/// API keys.
pub trait ApiKeyRepository: Send + Sync {
    /// Stores a new key record (never the key itself).
    ///
    /// # Errors
    /// [`crate::StoreError::MissingReference`] for an unknown organization;
    /// [`crate::StoreError::Duplicate`] for a prefix collision; backend failures.
    fn insert_api_key(&self, key: &ApiKey) -> StoreResult<()>;

    /// Finds a key record by its public prefix, revoked or not.
    ///
    /// # Errors
    /// Backend failures.
    fn find_api_key_by_prefix(&self, prefix: &str) -> StoreResult<Option<ApiKey>>;

    /// Finds a key record of the organization by its id, revoked or not;
    /// another organization's key is `None`.
    ///
    /// # Errors
    /// Backend failures.
    fn find_api_key(
        &self,
        organization: OrganizationId,
        id: ApiKeyId,
    ) -> StoreResult<Option<ApiKey>>;

    /// Every key of the organization, revoked or not, in any order.
    ///
    /// # Errors
    /// Backend failures.
    fn list_api_keys(&self, organization: OrganizationId) -> StoreResult<Vec<ApiKey>>;

    /// Marks a key revoked at `at`. Revoking a revoked key keeps the first time.
    ///
    /// # Errors
    /// [`crate::StoreError::NotFound`] for an unknown key; backend failures.
    fn revoke_api_key(&self, id: ApiKeyId, at: DateTime<Utc>) -> StoreResult<()>;
}
