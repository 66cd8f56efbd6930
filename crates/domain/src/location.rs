//! Where equipment is held: warehouses (owned by one organization, or shared:
//! run by the operator and granted to organizations) and offices.

use crate::error::DomainError;
use crate::ids::{OfficeId, OrganizationId, WarehouseId};
use crate::text::{check_length, check_optional_length, SHORT_TEXT_MAX};

/// At most this many warehouses are listed for one organization
/// (`GET /api/v1/warehouses`): the first by name, then id. Organizations have
/// a handful; the bound keeps one answer small whatever is stored.
pub const MAX_LISTED_WAREHOUSES: usize = 1_000;

/// Postal address of a warehouse.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[allow(missing_docs)] // plain data: self-evident fields go undocumented (docs/architecture.md)
pub struct WarehouseAddress {
    pub street1: Option<String>,
    pub street2: Option<String>,
    pub city: Option<String>,
    /// Province, state or region.
    pub province: Option<String>,
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2 country code.
    pub country_code: Option<String>,
    /// Phone number of the site.
    pub phone_number: Option<String>,
}

/// Who runs a warehouse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarehouseOwner {
    /// Owned by one organization, visible only to it.
    Organization(OrganizationId),
    /// Run by the operator; visible to the organizations granted access.
    Shared,
}

/// A warehouse.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)] // plain data: self-evident fields go undocumented (docs/architecture.md)
pub struct Warehouse {
    pub id: WarehouseId,
    /// Who runs it.
    pub owner: WarehouseOwner,
    pub name: String,
    /// Address; `None` while not yet configured.
    pub address: Option<WarehouseAddress>,
}

impl Warehouse {
    /// Whether `organization` may see and use the warehouse: it owns it, or it is
    /// shared and `granted` says the organization was given access.
    #[must_use]
    pub fn is_accessible_to(&self, organization: OrganizationId, granted: bool) -> bool {
        match self.owner {
            WarehouseOwner::Organization(owner) => owner == organization,
            WarehouseOwner::Shared => granted,
        }
    }

    /// Checks the name (present) and that every text is at most
    /// [`SHORT_TEXT_MAX`] characters long.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] for an empty name or a text too long.
    pub fn validate(&self) -> Result<(), DomainError> {
        if self.name.trim().is_empty() {
            return Err(DomainError::invalid("name", "must not be empty"));
        }
        check_length("name", &self.name, SHORT_TEXT_MAX)?;
        if let Some(a) = &self.address {
            for (field, value) in [
                ("address.street1", &a.street1),
                ("address.street2", &a.street2),
                ("address.city", &a.city),
                ("address.province", &a.province),
                ("address.postalCode", &a.postal_code),
                ("address.countryCode", &a.country_code),
                ("address.phoneNumber", &a.phone_number),
            ] {
                check_optional_length(field, value.as_deref(), SHORT_TEXT_MAX)?;
            }
        }
        Ok(())
    }
}

/// An office of an organization.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)] // plain data: self-evident fields go undocumented (docs/architecture.md)
pub struct Office {
    pub id: OfficeId,
    pub organization_id: OrganizationId,
    pub name: String,
}

impl Office {
    /// Checks the name: present, at most [`SHORT_TEXT_MAX`] characters.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] (`name`).
    pub fn validate(&self) -> Result<(), DomainError> {
        if self.name.trim().is_empty() {
            return Err(DomainError::invalid("name", "must not be empty"));
        }
        check_length("name", &self.name, SHORT_TEXT_MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_warehouse_is_visible_only_to_its_owner() {
        let owner = OrganizationId::new();
        let w = Warehouse {
            id: WarehouseId::new(),
            owner: WarehouseOwner::Organization(owner),
            name: "Berlin".into(),
            address: None,
        };
        assert!(w.is_accessible_to(owner, false));
        assert!(
            !w.is_accessible_to(OrganizationId::new(), true),
            "a grant does not open an owned warehouse"
        );
    }

    #[test]
    fn shared_warehouse_needs_a_grant() {
        let w = Warehouse {
            id: WarehouseId::new(),
            owner: WarehouseOwner::Shared,
            name: "Operator EU hub".into(),
            address: None,
        };
        assert!(w.is_accessible_to(OrganizationId::new(), true));
        assert!(!w.is_accessible_to(OrganizationId::new(), false));
    }
}
