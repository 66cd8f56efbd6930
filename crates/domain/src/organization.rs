//! Organizations: the tenants. Every customer row carries its organization id.

use chrono::{DateTime, Utc};

use crate::error::DomainError;
use crate::ids::OrganizationId;

/// A tenant of equip.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)] // plain data: self-evident fields go undocumented (docs/architecture.md)
pub struct Organization {
    pub id: OrganizationId,
    pub name: OrganizationName,
    pub created_at: DateTime<Utc>,
}

/// A validated organization name: trimmed, 1 to 200 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrganizationName(String);

impl OrganizationName {
    /// Longest name accepted, in characters.
    pub const MAX_CHARS: usize = 200;

    /// Validates a name.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] for an empty or over-long name.
    pub fn parse(raw: &str) -> Result<Self, DomainError> {
        let name = raw.trim();
        if name.is_empty() {
            return Err(DomainError::invalid("name", "must not be empty"));
        }
        if name.chars().count() > Self::MAX_CHARS {
            return Err(DomainError::invalid(
                "name",
                format!("must be at most {} characters", Self::MAX_CHARS),
            ));
        }
        Ok(Self(name.to_owned()))
    }

    /// The name.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(OrganizationName::parse("  Acme ").unwrap().as_str(), "Acme");
        assert!(OrganizationName::parse("   ").is_err());
        assert!(OrganizationName::parse(&"x".repeat(201)).is_err());
        assert!(OrganizationName::parse(&"x".repeat(200)).is_ok());
    }
}
