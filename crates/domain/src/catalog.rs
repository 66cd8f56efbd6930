//! The catalog an organization orders from: SKUs (product variants) and
//! equipment packages (what a new joiner receives).

use crate::error::DomainError;
use crate::ids::{OrganizationId, PackageId, SkuId};
use crate::text::{check_length, SHORT_TEXT_MAX};

/// A product variant, e.g. "MacBook Pro 14\" M3, 16 GB".
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)] // plain data: self-evident fields go undocumented (docs/architecture.md)
pub struct Sku {
    pub id: SkuId,
    pub organization_id: OrganizationId,
    pub title: String,
    /// Category code, e.g. `LAPTOP`.
    pub category_code: String,
    /// Human-readable category name.
    pub category_name: String,
    /// Vendor/brand code, e.g. `APPLE`.
    pub vendor_code: String,
    /// Vendor (manufacturer) display name.
    pub vendor_name: String,
    /// Vendor's own SKU or model identifier.
    pub vendor_sku: String,
}

impl Sku {
    /// Checks that every text field is present and at most
    /// [`SHORT_TEXT_MAX`] characters long.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the first empty or too long field.
    pub fn validate(&self) -> Result<(), DomainError> {
        for (field, value) in [
            ("title", &self.title),
            ("categoryCode", &self.category_code),
            ("categoryName", &self.category_name),
            ("vendorCode", &self.vendor_code),
            ("vendorName", &self.vendor_name),
            ("vendorSku", &self.vendor_sku),
        ] {
            if value.trim().is_empty() {
                return Err(DomainError::invalid(field, "must not be empty"));
            }
            check_length(field, value, SHORT_TEXT_MAX)?;
        }
        Ok(())
    }
}

/// An equipment package: a named bundle assigned to people.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(missing_docs)] // plain data: self-evident fields go undocumented (docs/architecture.md)
pub struct Package {
    pub id: PackageId,
    pub organization_id: OrganizationId,
    /// Short unique (per organization) name used in CSV uploads, e.g. `engineering-mac`.
    pub slug: String,
    pub name: String,
    /// What a person with the package receives (docs/orders.md); empty:
    /// the package orders nothing.
    pub items: Vec<PackageItem>,
}

/// One entry of a package's contents: `quantity` units of a category.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageItem {
    /// The category, e.g. `LAPTOP`.
    pub category_code: String,
    /// SKUs of the category to take first, in order of preference.
    pub sku_ids: Vec<SkuId>,
    /// How many units (1 to [`MAX_PACKAGE_ITEM_QUANTITY`]).
    pub quantity: u8,
}

/// At most this many units of one entry.
pub const MAX_PACKAGE_ITEM_QUANTITY: u8 = 20;

impl Package {
    /// Checks the slug (lowercase letters, digits, `-`, `_`, `.`; 1–100 characters)
    /// and the name.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the field.
    pub fn validate(&self) -> Result<(), DomainError> {
        let slug_ok = !self.slug.is_empty()
            && self.slug.len() <= 100
            && self
                .slug
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_.".contains(&b));
        if !slug_ok {
            return Err(DomainError::invalid(
                "slug",
                "must be 1-100 characters of a-z, 0-9, '-', '_' or '.'",
            ));
        }
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
    fn package_slug_rules() {
        let mut p = Package {
            id: PackageId::new(),
            organization_id: OrganizationId::new(),
            slug: "engineering-mac".into(),
            name: "Engineering (Mac)".into(),
            items: Vec::new(),
        };
        assert!(p.validate().is_ok());
        p.slug = "Engineering Mac".into();
        assert!(p.validate().is_err());
        p.slug = String::new();
        assert!(p.validate().is_err());
    }

    #[test]
    fn sku_needs_every_field() {
        let mut s = Sku {
            id: SkuId::new(),
            organization_id: OrganizationId::new(),
            title: "ThinkPad X1".into(),
            category_code: "LAPTOP".into(),
            category_name: "Laptops".into(),
            vendor_code: "LENOVO".into(),
            vendor_name: "Lenovo".into(),
            vendor_sku: "21HM".into(),
        };
        assert!(s.validate().is_ok());
        s.vendor_sku = " ".into();
        assert!(
            matches!(s.validate(), Err(DomainError::Invalid { field, .. }) if field == "vendorSku")
        );
    }
}
