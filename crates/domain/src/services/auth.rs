//! Authenticating a request from its `Authorization` header.

use crate::api_key::{ApiKey, AuthError, Caller, PresentedKey};
use crate::error::{DomainError, StoreError};
use crate::ids::OrganizationId;
use crate::organization::Organization;
use crate::ports::{ApiKeyRepository, OrganizationRepository};

/// Why authentication failed.
#[derive(Debug, thiserror::Error)]
pub enum AuthFailure {
    /// The caller's fault: 401.
    #[error(transparent)]
    Refused(#[from] AuthError),
    /// The store failed: 5xx.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Resolves the caller of a request from its `Authorization` header value.
///
/// # Errors
/// [`AuthFailure::Refused`] for a missing, malformed, unknown or revoked key.
pub fn authenticate(
    keys: &dyn ApiKeyRepository,
    header: Option<&str>,
) -> Result<Caller, AuthFailure> {
    let presented = PresentedKey::from_header(header.ok_or(AuthError::Missing)?)?;
    let record = keys
        .find_api_key_by_prefix(presented.prefix())?
        .ok_or(AuthError::Unknown)?;
    record.verify(&presented)?;
    Ok(Caller::with_key(
        record.organization_id,
        record.id,
        record.scopes,
    ))
}

/// The stored record of the key `caller` authenticated with (`GET
/// /api/v1/api-key`), read again through the organization's keys.
///
/// # Errors
/// [`AuthFailure::Refused`] when the key was revoked, or is no longer found,
/// since the request was authenticated; [`AuthFailure::Store`] when the store
/// fails.
pub fn caller_key<K>(keys: &K, caller: &Caller) -> Result<ApiKey, AuthFailure>
where
    K: ApiKeyRepository + ?Sized,
{
    let key_id = caller.key_id().ok_or(AuthError::NotAKey)?;
    let record = keys
        .find_api_key(caller.organization_id, key_id)?
        .ok_or(AuthError::Unknown)?;
    if record.revoked_at.is_some() {
        return Err(AuthError::Revoked.into());
    }
    Ok(record)
}

/// The caller's key, as [`caller_key`], with its organization (`GET
/// /api/v1/api-key` names it).
///
/// # Errors
/// As [`caller_key`]; [`AuthError::Unknown`] when the organization is gone.
pub fn caller_key_and_organization<P>(
    ports: &P,
    caller: &Caller,
) -> Result<(ApiKey, Organization), AuthFailure>
where
    P: ApiKeyRepository + OrganizationRepository + ?Sized,
{
    let key = caller_key(ports, caller)?;
    let organization = ports
        .find_organization(caller.organization_id)?
        .ok_or(AuthError::Unknown)?;
    Ok((key, organization))
}

/// Every key of the organization, revoked or not, oldest first (then by id):
/// what a client needs to name the actor of an event. The records hold no
/// secret (only the key's hash, which callers must not show).
///
/// # Errors
/// Store failures.
pub fn organization_keys(
    keys: &dyn ApiKeyRepository,
    organization: OrganizationId,
) -> Result<Vec<ApiKey>, DomainError> {
    let mut found = keys.list_api_keys(organization)?;
    found.sort_by_key(|k| (k.created_at, k.id));
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api_key::{ApiKey, Scopes};
    use crate::ids::OrganizationId;
    use crate::ports::ApiKeyRepository;
    use crate::testing::InMemoryStore;
    use chrono::Utc;

    #[test]
    fn valid_key_yields_its_organization_and_scopes() {
        let store = InMemoryStore::default();
        let org = OrganizationId::new();
        let k = ApiKey::generate(org, Scopes::all(), None, Utc::now()).unwrap();
        store.insert_api_key(&k.record).unwrap();
        let caller = authenticate(&store, Some(&format!("ApiKey {}", k.secret))).unwrap();
        assert_eq!(caller.organization_id, org);
        assert_eq!(caller.scopes, Scopes::all());
    }

    #[test]
    fn missing_unknown_and_revoked_keys_are_refused() {
        let store = InMemoryStore::default();
        let k = ApiKey::generate(OrganizationId::new(), Scopes::all(), None, Utc::now()).unwrap();
        let header = format!("ApiKey {}", k.secret);
        assert!(matches!(
            authenticate(&store, None),
            Err(AuthFailure::Refused(AuthError::Missing))
        ));
        assert!(matches!(
            authenticate(&store, Some(&header)),
            Err(AuthFailure::Refused(AuthError::Unknown))
        ));
        store.insert_api_key(&k.record).unwrap();
        store.revoke_api_key(k.record.id, Utc::now()).unwrap();
        assert!(matches!(
            authenticate(&store, Some(&header)),
            Err(AuthFailure::Refused(AuthError::Revoked))
        ));
    }

    #[test]
    fn the_caller_key_is_its_own_record_in_its_own_organization() {
        let store = InMemoryStore::default();
        let org = OrganizationId::new();
        let k = ApiKey::generate(org, Scopes::default(), Some("ci".into()), Utc::now()).unwrap();
        store.insert_api_key(&k.record).unwrap();
        let caller = authenticate(&store, Some(&format!("ApiKey {}", k.secret))).unwrap();
        assert_eq!(caller_key(&store, &caller).unwrap(), k.record);
        // The same key id claimed for another organization is not found.
        let elsewhere = Caller {
            organization_id: OrganizationId::new(),
            ..caller.clone()
        };
        assert!(matches!(
            caller_key(&store, &elsewhere),
            Err(AuthFailure::Refused(AuthError::Unknown))
        ));
        // Revoked after the request was authenticated.
        store.revoke_api_key(k.record.id, Utc::now()).unwrap();
        assert!(matches!(
            caller_key(&store, &caller),
            Err(AuthFailure::Refused(AuthError::Revoked))
        ));
    }
}
