//! The catalog an organization orders from: SKUs (product variants) and
//! equipment packages (what a new joiner receives).

use std::collections::{HashMap, HashSet};

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

/// At most this many entries in a package's contents.
pub const MAX_PACKAGE_ITEMS: usize = 20;

/// At most this many preferred SKUs in one entry.
pub const MAX_PACKAGE_ITEM_SKUS: usize = 10;

/// One entry of a package's contents as a client or an import file gave it,
/// before [`parse_contents`] checked it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RawPackageItem {
    /// The category code as given.
    pub category_code: String,
    /// The preferred SKUs' ids as given (text).
    pub sku_ids: Vec<String>,
    /// The quantity as given (any whole number: the range is checked here).
    pub quantity: i64,
}

/// Checks a package's contents on their own and parses them: at most
/// [`MAX_PACKAGE_ITEMS`] entries; in each, a non-empty `categoryCode` of at
/// most [`SHORT_TEXT_MAX`] characters, at most [`MAX_PACKAGE_ITEM_SKUS`]
/// distinct SKU ids (UUIDs) and a `quantity` from 1 to
/// [`MAX_PACKAGE_ITEM_QUANTITY`]. Whether the SKUs and the category are the
/// organization's is [`check_against_catalog`]'s question.
///
/// # Errors
/// [`DomainError::Invalid`] naming the first bad field by its path,
/// `items`, `items[i].categoryCode`, `items[i].skuIds`,
/// `items[i].skuIds[j]` or `items[i].quantity`.
pub fn parse_contents(raw: &[RawPackageItem]) -> Result<Vec<PackageItem>, DomainError> {
    if raw.len() > MAX_PACKAGE_ITEMS {
        return Err(DomainError::invalid(
            "items",
            format!("a package holds at most {MAX_PACKAGE_ITEMS} entries"),
        ));
    }
    raw.iter()
        .enumerate()
        .map(|(i, entry)| parse_entry(i, entry))
        .collect()
}

fn parse_entry(i: usize, raw: &RawPackageItem) -> Result<PackageItem, DomainError> {
    let field = |name: &str| format!("items[{i}].{name}");
    let category_code = raw.category_code.trim();
    if category_code.is_empty() {
        return Err(DomainError::invalid(
            field("categoryCode"),
            "must not be empty",
        ));
    }
    check_length(&field("categoryCode"), category_code, SHORT_TEXT_MAX)?;
    if raw.sku_ids.len() > MAX_PACKAGE_ITEM_SKUS {
        return Err(DomainError::invalid(
            field("skuIds"),
            format!("at most {MAX_PACKAGE_ITEM_SKUS} preferred SKUs per entry"),
        ));
    }
    let mut sku_ids: Vec<SkuId> = Vec::with_capacity(raw.sku_ids.len());
    for (j, text) in raw.sku_ids.iter().enumerate() {
        let path = format!("items[{i}].skuIds[{j}]");
        let id: SkuId = text
            .trim()
            .parse()
            .map_err(|_| DomainError::invalid(&path, format!("'{text}' is not a UUID")))?;
        if sku_ids.contains(&id) {
            return Err(DomainError::invalid(
                path,
                format!("SKU {id} is named twice in this entry"),
            ));
        }
        sku_ids.push(id);
    }
    let quantity = u8::try_from(raw.quantity)
        .ok()
        .filter(|q| (1..=MAX_PACKAGE_ITEM_QUANTITY).contains(q))
        .ok_or_else(|| {
            DomainError::invalid(
                field("quantity"),
                format!(
                    "quantity must be 1 to {MAX_PACKAGE_ITEM_QUANTITY}, not {}",
                    raw.quantity
                ),
            )
        })?;
    Ok(PackageItem {
        category_code: category_code.to_owned(),
        sku_ids,
        quantity,
    })
}

/// What a store reads, in the transaction that writes a package's contents,
/// to check them against the organization's catalog
/// ([`check_against_catalog`]): the SKUs the contents name that are the
/// organization's, with their category, and which of the contents'
/// categories are a category of one of the organization's SKUs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CatalogFacts {
    /// The organization's SKUs among those named, by id: their category code.
    pub sku_categories: HashMap<SkuId, String>,
    /// The named category codes that some SKU of the organization has.
    pub categories: HashSet<String>,
}

/// What [`CatalogFacts`] a store must read for `items`: the SKU ids named
/// and the category codes named, each once.
#[must_use]
pub fn catalog_questions(items: &[PackageItem]) -> (Vec<SkuId>, Vec<String>) {
    let mut skus: Vec<SkuId> = items
        .iter()
        .flat_map(|e| e.sku_ids.iter().copied())
        .collect();
    skus.sort_unstable();
    skus.dedup();
    let mut categories: Vec<String> = items.iter().map(|e| e.category_code.clone()).collect();
    categories.sort_unstable();
    categories.dedup();
    (skus, categories)
}

/// Checks parsed contents against the organization's catalog: every entry's
/// category is a category of one of the organization's SKUs, and every
/// preferred SKU is an SKU of the organization of the entry's category.
/// Category codes are compared exactly (as stored on the SKUs).
///
/// # Errors
/// [`DomainError::Invalid`] naming `items[i].categoryCode` (no SKU of the
/// organization has the category) or `items[i].skuIds[j]` (not an SKU of the
/// organization, or of another category).
pub fn check_against_catalog(
    items: &[PackageItem],
    facts: &CatalogFacts,
) -> Result<(), DomainError> {
    for (i, entry) in items.iter().enumerate() {
        if !facts.categories.contains(&entry.category_code) {
            return Err(DomainError::invalid(
                format!("items[{i}].categoryCode"),
                format!(
                    "no SKU of the organization has the category '{}'",
                    entry.category_code
                ),
            ));
        }
        for (j, sku) in entry.sku_ids.iter().enumerate() {
            let field = format!("items[{i}].skuIds[{j}]");
            match facts.sku_categories.get(sku) {
                None => {
                    return Err(DomainError::invalid(
                        field,
                        format!("{sku} is not an SKU of the organization"),
                    ))
                }
                Some(category) if *category != entry.category_code => {
                    return Err(DomainError::invalid(
                        field,
                        format!(
                            "SKU {sku} is of the category '{category}', not '{}'",
                            entry.category_code
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

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

    fn raw(category: &str, skus: &[&str], quantity: i64) -> RawPackageItem {
        RawPackageItem {
            category_code: category.into(),
            sku_ids: skus.iter().map(|s| (*s).to_owned()).collect(),
            quantity,
        }
    }

    fn invalid_field(result: Result<Vec<PackageItem>, DomainError>) -> String {
        match result {
            Err(DomainError::Invalid { field, .. }) => field,
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[test]
    fn contents_parse_in_order() {
        let a = SkuId::new();
        let b = SkuId::new();
        let items = parse_contents(&[
            raw(" LAPTOP ", &[&a.to_string(), &format!(" {b} ")], 1),
            raw("PHONE", &[], 20),
        ])
        .unwrap();
        assert_eq!(
            items,
            vec![
                PackageItem {
                    category_code: "LAPTOP".into(),
                    sku_ids: vec![a, b],
                    quantity: 1,
                },
                PackageItem {
                    category_code: "PHONE".into(),
                    sku_ids: vec![],
                    quantity: 20,
                },
            ]
        );
        assert_eq!(parse_contents(&[]).unwrap(), vec![]);
    }

    #[test]
    fn contents_quantity_is_one_to_twenty() {
        for bad in [0, 21, -1, 256, i64::MAX, i64::MIN] {
            assert_eq!(
                invalid_field(parse_contents(&[
                    raw("LAPTOP", &[], 1),
                    raw("LAPTOP", &[], bad)
                ])),
                "items[1].quantity",
                "{bad}"
            );
        }
    }

    #[test]
    fn contents_limits() {
        let entries: Vec<RawPackageItem> = (0..=MAX_PACKAGE_ITEMS)
            .map(|_| raw("LAPTOP", &[], 1))
            .collect();
        assert_eq!(invalid_field(parse_contents(&entries)), "items");
        assert!(parse_contents(&entries[..MAX_PACKAGE_ITEMS]).is_ok());

        let ids: Vec<String> = (0..=MAX_PACKAGE_ITEM_SKUS)
            .map(|_| SkuId::new().to_string())
            .collect();
        let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
        assert_eq!(
            invalid_field(parse_contents(&[raw("LAPTOP", &refs, 1)])),
            "items[0].skuIds"
        );
        assert!(parse_contents(&[raw("LAPTOP", &refs[..MAX_PACKAGE_ITEM_SKUS], 1)]).is_ok());
    }

    #[test]
    fn contents_fields_named() {
        let a = SkuId::new().to_string();
        assert_eq!(
            invalid_field(parse_contents(&[raw("  ", &[], 1)])),
            "items[0].categoryCode"
        );
        assert_eq!(
            invalid_field(parse_contents(&[raw(
                &"C".repeat(SHORT_TEXT_MAX + 1),
                &[],
                1
            )])),
            "items[0].categoryCode"
        );
        assert!(parse_contents(&[raw(&"C".repeat(SHORT_TEXT_MAX), &[], 1)]).is_ok());
        assert_eq!(
            invalid_field(parse_contents(&[raw("LAPTOP", &[&a, "nope"], 1)])),
            "items[0].skuIds[1]"
        );
        assert_eq!(
            invalid_field(parse_contents(&[raw(
                "LAPTOP",
                &[&a, &a.to_uppercase()],
                1
            )])),
            "items[0].skuIds[1]"
        );
        // The same SKU in two entries is two preferences, not a duplicate.
        assert!(parse_contents(&[raw("LAPTOP", &[&a], 1), raw("LAPTOP", &[&a], 1)]).is_ok());
    }

    #[test]
    fn catalog_questions_once_each() {
        let a = SkuId::new();
        let items = vec![
            PackageItem {
                category_code: "LAPTOP".into(),
                sku_ids: vec![a],
                quantity: 1,
            },
            PackageItem {
                category_code: "LAPTOP".into(),
                sku_ids: vec![a],
                quantity: 2,
            },
        ];
        assert_eq!(catalog_questions(&items), (vec![a], vec!["LAPTOP".into()]));
    }

    #[test]
    fn contents_against_the_catalog() {
        let laptop = SkuId::new();
        let phone = SkuId::new();
        let facts = CatalogFacts {
            sku_categories: HashMap::from([
                (laptop, "LAPTOP".to_owned()),
                (phone, "PHONE".to_owned()),
            ]),
            categories: HashSet::from(["LAPTOP".to_owned(), "PHONE".to_owned()]),
        };
        let entry = |category: &str, skus: Vec<SkuId>| PackageItem {
            category_code: category.into(),
            sku_ids: skus,
            quantity: 1,
        };
        let field = |r: Result<(), DomainError>| match r {
            Err(DomainError::Invalid { field, .. }) => field,
            other => panic!("expected Invalid, got {other:?}"),
        };
        assert!(check_against_catalog(
            &[entry("LAPTOP", vec![laptop]), entry("PHONE", vec![])],
            &facts
        )
        .is_ok());
        // Unknown category (also: exact, case-sensitive codes).
        assert_eq!(
            field(check_against_catalog(
                &[entry("LAPTOP", vec![]), entry("laptop", vec![])],
                &facts
            )),
            "items[1].categoryCode"
        );
        // Unknown SKU (or another organization's: not among the facts).
        assert_eq!(
            field(check_against_catalog(
                &[entry("LAPTOP", vec![laptop, SkuId::new()])],
                &facts
            )),
            "items[0].skuIds[1]"
        );
        // An SKU of another category.
        assert_eq!(
            field(check_against_catalog(
                &[entry("LAPTOP", vec![phone])],
                &facts
            )),
            "items[0].skuIds[0]"
        );
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
