//! Administration: creating organizations, issuing and revoking API keys,
//! granting shared warehouses.

use chrono::{DateTime, Utc};

use crate::api_key::{ApiKey, GeneratedKey, Scopes};
use crate::error::DomainError;
use crate::ids::{ApiKeyId, OrganizationId, WarehouseId};
use crate::location::{Warehouse, WarehouseOwner};
use crate::organization::{Organization, OrganizationName};
use crate::ports::{ApiKeyRepository, OrganizationRepository, WarehouseGrants};

/// Creates an organization named `name`.
///
/// # Errors
/// [`DomainError::Invalid`] for a bad name; store failures.
pub fn create_organization(
    repo: &dyn OrganizationRepository,
    name: &str,
    now: DateTime<Utc>,
) -> Result<Organization, DomainError> {
    let org = Organization {
        id: OrganizationId::new(),
        name: OrganizationName::parse(name)?,
        created_at: now,
    };
    repo.insert_organization(&org)?;
    Ok(org)
}

/// Every organization, oldest first (`equip org list`).
///
/// # Errors
/// Store failures.
pub fn list_organizations(
    repo: &dyn OrganizationRepository,
) -> Result<Vec<Organization>, DomainError> {
    Ok(repo.list_organizations()?)
}

/// The oldest organization whose name is `name` (compared as a name is
/// stored: trimmed), if any: how `equip demo` finds the demo organization it
/// made before instead of making a second one.
///
/// # Errors
/// [`DomainError::Invalid`] for a bad name; store failures.
pub fn find_organization_named(
    repo: &dyn OrganizationRepository,
    name: &str,
) -> Result<Option<Organization>, DomainError> {
    let name = OrganizationName::parse(name)?;
    Ok(repo
        .list_organizations()?
        .into_iter()
        .find(|o| o.name == name))
}

/// The ports issuing a key needs.
pub trait KeyPorts: ApiKeyRepository + OrganizationRepository {}
impl<T: ApiKeyRepository + OrganizationRepository> KeyPorts for T {}

/// Issues a key for `organization` with exactly `scopes`: an empty set gives
/// a key without scopes, which can only read itself (`GET /api/v1/api-key`).
/// (The CLI's default of every scope is `equip key create`'s.)
///
/// # Errors
/// [`DomainError::NotFound`] (`organization`) for an unknown organization.
pub fn issue_api_key(
    ports: &dyn KeyPorts,
    organization: OrganizationId,
    scopes: Scopes,
    label: Option<String>,
    now: DateTime<Utc>,
) -> Result<GeneratedKey, DomainError> {
    if ports.find_organization(organization)?.is_none() {
        return Err(DomainError::not_found(
            "organization",
            format!("organization {organization} not found"),
        ));
    }
    let key = ApiKey::generate(organization, scopes, label, now)?;
    ports.insert_api_key(&key.record)?;
    Ok(key)
}

/// Every key of an existing organization, revoked or not, oldest first
/// (`equip key list`). The records hold no secret, only the key's hash,
/// which callers must not show.
///
/// # Errors
/// [`DomainError::NotFound`] (`organization`) for an unknown organization;
/// store failures.
pub fn list_api_keys(
    ports: &dyn KeyPorts,
    organization: OrganizationId,
) -> Result<Vec<ApiKey>, DomainError> {
    if ports.find_organization(organization)?.is_none() {
        return Err(DomainError::not_found(
            "organization",
            format!("organization {organization} not found"),
        ));
    }
    crate::services::auth::organization_keys(ports, organization)
}

/// Revokes a key; it stops working at once.
///
/// # Errors
/// [`DomainError::NotFound`] (`apiKey`) for an unknown key.
pub fn revoke_api_key(
    repo: &dyn ApiKeyRepository,
    id: ApiKeyId,
    now: DateTime<Utc>,
) -> Result<(), DomainError> {
    repo.revoke_api_key(id, now).map_err(|e| match e {
        crate::StoreError::NotFound { .. } => {
            DomainError::not_found("apiKey", format!("API key {id} not found"))
        }
        other => other.into(),
    })
}

/// The ports granting a warehouse needs.
pub trait GrantPorts: WarehouseGrants + OrganizationRepository {}
impl<T: WarehouseGrants + OrganizationRepository> GrantPorts for T {}

/// The shared warehouse `warehouse`, and `organization`, both existing.
fn shared_warehouse(
    ports: &dyn GrantPorts,
    warehouse: WarehouseId,
    organization: OrganizationId,
) -> Result<Warehouse, DomainError> {
    if ports.find_organization(organization)?.is_none() {
        return Err(DomainError::not_found(
            "organization",
            format!("organization {organization} not found"),
        ));
    }
    let Some(found) = ports.find_any_warehouse(warehouse)? else {
        return Err(DomainError::not_found(
            "warehouse",
            format!("warehouse {warehouse} not found"),
        ));
    };
    if let WarehouseOwner::Organization(owner) = found.owner {
        return Err(DomainError::invalid(
            "warehouse",
            format!(
                "warehouse {warehouse} is owned by organization {owner}; only shared \
                 (operator) warehouses are granted"
            ),
        ));
    }
    Ok(found)
}

/// Grants `organization` access to the shared (operator) warehouse
/// `warehouse` (an operator action: an import cannot grant). Returns the
/// warehouse and whether the grant is new (`false`: it was granted already).
///
/// # Errors
/// [`DomainError::NotFound`] for an unknown organization or warehouse,
/// [`DomainError::Invalid`] (`warehouse`) for a warehouse an organization
/// owns; store failures.
pub fn grant_warehouse(
    ports: &dyn GrantPorts,
    warehouse: WarehouseId,
    organization: OrganizationId,
    now: DateTime<Utc>,
) -> Result<(Warehouse, bool), DomainError> {
    let found = shared_warehouse(ports, warehouse, organization)?;
    let new = ports.grant_warehouse(warehouse, organization, now)?;
    Ok((found, new))
}

/// Takes back `organization`'s access to the shared warehouse `warehouse`.
/// Refused while the organization has inventory levels at it or items
/// assigned to it (they would point at a warehouse it can no longer see).
/// Returns whether there was a grant.
///
/// # Errors
/// As [`grant_warehouse`], and [`DomainError::Conflict`] (`warehouse`) while
/// the organization uses the warehouse.
pub fn revoke_warehouse(
    ports: &dyn GrantPorts,
    warehouse: WarehouseId,
    organization: OrganizationId,
) -> Result<bool, DomainError> {
    shared_warehouse(ports, warehouse, organization)?;
    if ports.warehouse_in_use(warehouse, organization)? {
        return Err(DomainError::conflict(
            "warehouse",
            format!(
                "organization {organization} has inventory levels or items at warehouse \
                 {warehouse}; move them before revoking its access"
            ),
        ));
    }
    Ok(ports.revoke_warehouse_grant(warehouse, organization)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::InMemoryStore;

    #[test]
    fn key_for_unknown_organization_is_refused() {
        let store = InMemoryStore::default();
        let err = issue_api_key(
            &store,
            OrganizationId::new(),
            Scopes::all(),
            None,
            Utc::now(),
        )
        .unwrap_err();
        assert!(matches!(err, DomainError::NotFound { .. }));
    }

    #[test]
    fn keys_get_exactly_their_scopes_none_included() {
        let store = InMemoryStore::default();
        let org = create_organization(&store, "Acme", Utc::now()).unwrap();
        let none = issue_api_key(&store, org.id, Scopes::default(), None, Utc::now()).unwrap();
        assert!(none.record.scopes.as_slice().is_empty());
        let key = issue_api_key(&store, org.id, Scopes::all(), None, Utc::now()).unwrap();
        assert_eq!(key.record.scopes, Scopes::all());
        assert!(revoke_api_key(&store, ApiKeyId::new(), Utc::now()).is_err());
        assert!(revoke_api_key(&store, key.record.id, Utc::now()).is_ok());
    }

    #[test]
    fn organizations_and_keys_are_listed_oldest_first() {
        let store = InMemoryStore::default();
        let t0 = Utc::now();
        let b = create_organization(&store, "Beta", t0 + chrono::Duration::seconds(1)).unwrap();
        let a = create_organization(&store, "Demo Org", t0).unwrap();
        create_organization(&store, "Demo Org", t0 + chrono::Duration::seconds(2)).unwrap();
        let ids: Vec<_> = list_organizations(&store)
            .unwrap()
            .into_iter()
            .map(|o| o.id)
            .collect();
        assert_eq!(ids[..2], [a.id, b.id]);
        assert_eq!(ids.len(), 3);
        let found = find_organization_named(&store, " Demo Org ")
            .unwrap()
            .unwrap();
        assert_eq!(found.id, a.id, "the oldest of that name");
        assert!(find_organization_named(&store, "Nobody").unwrap().is_none());
        assert!(find_organization_named(&store, "  ").is_err());

        let later = issue_api_key(
            &store,
            a.id,
            Scopes::all(),
            None,
            t0 + chrono::Duration::seconds(5),
        )
        .unwrap();
        let first = issue_api_key(&store, a.id, Scopes::default(), Some("ci".into()), t0).unwrap();
        issue_api_key(&store, b.id, Scopes::all(), None, t0).unwrap();
        let keys = list_api_keys(&store, a.id).unwrap();
        assert_eq!(
            keys.iter().map(|k| k.id).collect::<Vec<_>>(),
            [first.record.id, later.record.id]
        );
        assert!(matches!(
            list_api_keys(&store, OrganizationId::new()),
            Err(DomainError::NotFound { .. })
        ));
    }
}
