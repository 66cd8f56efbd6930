//! The one table of the inventory listing's query parameters: for each, its
//! wire name, whether it is single or repeated (the kind of slot of
//! [`RawInventoryQuery`] it fills), the facts a schema states about its values,
//! and its description. The HTTP route reads the query string through
//! [`RawInventoryQuery::set`], the OpenAPI document lists [`PARAMS`], and the
//! fuzz target decodes through the same `set`; adding a parameter is one row
//! here plus its slot and its validation in [`super::InventoryQuery::parse`].

use thiserror::Error;

use super::{
    RawInventoryQuery, SortDirection, SortKey, DEFAULT_PAGE_SIZE, FIRST_PAGE, MAX_PAGE,
    MAX_PAGE_SIZE, MAX_SEARCH_CHARS, VOIDED,
};
use crate::inventory::DeployStatus;

/// Where a parameter's values go in [`RawInventoryQuery`]: a single value
/// (given twice is refused) or a list (repeated and/or comma-separated).
#[derive(Clone, Copy)]
pub enum Slot {
    /// One value.
    Single(fn(&mut RawInventoryQuery) -> &mut Option<String>),
    /// Any number of values.
    List(fn(&mut RawInventoryQuery) -> &mut Vec<String>),
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Single(_) => "Single",
            Self::List(_) => "List",
        })
    }
}

/// What a parameter's values (each value, for a list) look like, as a schema
/// states it.
#[derive(Debug, Clone, Copy)]
pub enum ValueSchema {
    /// A 32-bit integer within `min..=max`, `default` when absent.
    Integer {
        /// Smallest value.
        min: u32,
        /// Largest value.
        max: u32,
        /// Value when absent.
        default: u32,
    },
    /// A UUID.
    Uuid,
    /// Any string of at most `max_chars` characters (no limit when `None`).
    Text {
        /// Longest value, in characters.
        max_chars: Option<usize>,
    },
    /// A string with something other than white space (values are trimmed).
    NotBlank,
    /// A UTC date-time, `YYYY-MM-DDTHH:MM:SS[.fff]`, optionally `Z`.
    UtcTime,
    /// One of the listed names (compared case-insensitively).
    OneOf(fn() -> Vec<&'static str>),
}

/// One query parameter of the listing.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Wire name.
    pub name: &'static str,
    /// Single or repeated, and where its values go.
    pub slot: Slot,
    /// What its values look like.
    pub schema: ValueSchema,
    /// What it selects, for a reader of docs/api.md and the OpenAPI document.
    pub description: &'static str,
}

impl Param {
    /// Whether the parameter takes several values.
    #[must_use]
    pub const fn is_list(&self) -> bool {
        matches!(self.slot, Slot::List(_))
    }
}

fn deploy_filter_values() -> Vec<&'static str> {
    DeployStatus::ALL
        .iter()
        .map(|s| s.as_str())
        .chain([VOIDED])
        .collect()
}

fn sort_keys() -> Vec<&'static str> {
    SortKey::ALL.iter().map(|k| k.as_str()).collect()
}

fn sort_directions() -> Vec<&'static str> {
    SortDirection::ALL.iter().map(|d| d.as_str()).collect()
}

/// Every parameter of the listing, in the order docs/api.md lists them.
pub const PARAMS: &[Param] = &[
    Param {
        name: "page",
        slot: Slot::Single(|r| &mut r.page),
        schema: ValueSchema::Integer { min: FIRST_PAGE, max: MAX_PAGE, default: FIRST_PAGE },
        description: "1-based page number.",
    },
    Param {
        name: "size",
        slot: Slot::Single(|r| &mut r.size),
        schema: ValueSchema::Integer { min: 1, max: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
        description: "Items per page.",
    },
    Param {
        name: "personId",
        slot: Slot::Single(|r| &mut r.person_id),
        schema: ValueSchema::Uuid,
        description: "Items assigned to this person (404 when not in the organization). Not with assignedEmail.",
    },
    Param {
        name: "warehouseId",
        slot: Slot::Single(|r| &mut r.warehouse_id),
        schema: ValueSchema::Uuid,
        description: "Items assigned to this warehouse (404 when not accessible).",
    },
    Param {
        name: "officeId",
        slot: Slot::Single(|r| &mut r.office_id),
        schema: ValueSchema::Uuid,
        description: "Items assigned to this office (404 when not in the organization).",
    },
    Param {
        name: "categories",
        slot: Slot::List(|r| &mut r.categories),
        schema: ValueSchema::NotBlank,
        description: "Category codes (case-insensitive).",
    },
    Param {
        name: "deployStatuses",
        slot: Slot::List(|r| &mut r.deploy_statuses),
        schema: ValueSchema::OneOf(deploy_filter_values),
        description: "Deploy statuses (case-insensitive).",
    },
    Param {
        name: "skuIds",
        slot: Slot::List(|r| &mut r.sku_ids),
        schema: ValueSchema::Uuid,
        description: "SKU ids.",
    },
    Param {
        name: "searchString",
        slot: Slot::Single(|r| &mut r.search_string),
        schema: ValueSchema::Text { max_chars: Some(MAX_SEARCH_CHARS) },
        description: "Case-insensitive substring of description, vendor name, category code and name, SKU title and serial number.",
    },
    Param {
        name: "updatedAtFrom",
        slot: Slot::Single(|r| &mut r.updated_at_from),
        schema: ValueSchema::UtcTime,
        description: "Items updated at or after this UTC time, YYYY-MM-DDTHH:MM:SS[.fff] (a trailing Z is tolerated). Not after updatedAtTo.",
    },
    Param {
        name: "updatedAtTo",
        slot: Slot::Single(|r| &mut r.updated_at_to),
        schema: ValueSchema::UtcTime,
        description: "Items updated at or before this UTC time, same form as updatedAtFrom.",
    },
    Param {
        name: "assignedEmail",
        slot: Slot::Single(|r| &mut r.assigned_email),
        schema: ValueSchema::Text { max_chars: None },
        description: "Items assigned to the person with this email (primary or secondary, case-insensitive). Not with personId.",
    },
    Param {
        name: "serialNumber",
        slot: Slot::List(|r| &mut r.serial_numbers),
        schema: ValueSchema::NotBlank,
        description: "Serial numbers (case-insensitive).",
    },
    Param {
        name: "vendorSku",
        slot: Slot::List(|r| &mut r.vendor_skus),
        schema: ValueSchema::NotBlank,
        description: "Vendor SKUs (case-insensitive).",
    },
    Param {
        name: "sortBy",
        slot: Slot::Single(|r| &mut r.sort_by),
        schema: ValueSchema::OneOf(sort_keys),
        description: "Sort key (case-insensitive).",
    },
    Param {
        name: "sortDirection",
        slot: Slot::Single(|r| &mut r.sort_direction),
        schema: ValueSchema::OneOf(sort_directions),
        description: "ASC or DESC (case-insensitive); ASC when sortBy is given alone.",
    },
];

/// The parameter named `name` (exact, case-sensitive, as docs/api.md
/// names it).
#[must_use]
pub fn param(name: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.name == name)
}

/// A query-string pair the listing refuses before validation.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParamError {
    /// No parameter of that name.
    #[error("unknown query parameter '{0}'")]
    Unknown(String),
    /// A single-valued parameter given a second time.
    #[error("{0} may be given only once")]
    Repeated(String),
}

impl ParamError {
    /// The parameter at fault.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Self::Unknown(n) | Self::Repeated(n) => n,
        }
    }
}

impl RawInventoryQuery {
    /// Puts one `name=value` pair of the query string into its slot.
    ///
    /// # Errors
    /// [`ParamError::Unknown`] for a name not in [`PARAMS`] (a misspelt
    /// filter is refused, not ignored); [`ParamError::Repeated`] for a second
    /// value of a single-valued parameter.
    pub fn set(&mut self, name: &str, value: String) -> Result<(), ParamError> {
        let p = param(name).ok_or_else(|| ParamError::Unknown(name.to_owned()))?;
        match p.slot {
            Slot::Single(slot) => {
                let slot = slot(self);
                if slot.is_some() {
                    return Err(ParamError::Repeated(name.to_owned()));
                }
                *slot = Some(value);
            }
            Slot::List(slot) => slot(self).push(value),
        }
        Ok(())
    }

    /// Reads every pair of a decoded query string, in order.
    ///
    /// # Errors
    /// The first pair [`RawInventoryQuery::set`] refuses.
    pub fn from_pairs(
        pairs: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Self, ParamError> {
        let mut raw = Self::default();
        for (name, value) in pairs {
            raw.set(&name, value)?;
        }
        Ok(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::DomainError;
    use crate::inventory_query::InventoryQuery;

    #[test]
    fn names_are_unique() {
        for (i, p) in PARAMS.iter().enumerate() {
            assert!(
                PARAMS[..i].iter().all(|q| q.name != p.name),
                "{} twice",
                p.name
            );
        }
        assert_eq!(PARAMS.len(), 16);
    }

    #[test]
    fn every_slot_is_filled_by_exactly_one_parameter() {
        // Each parameter writes a value no other parameter writes: the table
        // reaches every field of the raw query once.
        let mut raw = RawInventoryQuery::default();
        for p in PARAMS {
            raw.set(p.name, format!("v-{}", p.name)).unwrap();
        }
        let RawInventoryQuery {
            page,
            size,
            person_id,
            warehouse_id,
            office_id,
            categories,
            deploy_statuses,
            sku_ids,
            search_string,
            updated_at_from,
            updated_at_to,
            assigned_email,
            serial_numbers,
            vendor_skus,
            sort_by,
            sort_direction,
        } = raw;
        let singles = [
            (page, "page"),
            (size, "size"),
            (person_id, "personId"),
            (warehouse_id, "warehouseId"),
            (office_id, "officeId"),
            (search_string, "searchString"),
            (updated_at_from, "updatedAtFrom"),
            (updated_at_to, "updatedAtTo"),
            (assigned_email, "assignedEmail"),
            (sort_by, "sortBy"),
            (sort_direction, "sortDirection"),
        ];
        for (value, name) in singles {
            assert_eq!(value, Some(format!("v-{name}")));
            assert!(!param(name).unwrap().is_list());
        }
        let lists = [
            (categories, "categories"),
            (deploy_statuses, "deployStatuses"),
            (sku_ids, "skuIds"),
            (serial_numbers, "serialNumber"),
            (vendor_skus, "vendorSku"),
        ];
        for (values, name) in lists {
            assert_eq!(values, vec![format!("v-{name}")]);
            assert!(param(name).unwrap().is_list());
        }
    }

    #[test]
    fn unknown_and_repeated_single_parameters_are_refused() {
        let pairs = |v: &[(&str, &str)]| {
            RawInventoryQuery::from_pairs(v.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())))
        };
        let err = pairs(&[("deployStatus", "AVAILABLE")]).unwrap_err();
        assert_eq!(err, ParamError::Unknown("deployStatus".into()));
        assert_eq!(err.to_string(), "unknown query parameter 'deployStatus'");
        // Names are case-sensitive, as docs/api.md writes them.
        assert!(pairs(&[("PAGE", "1")]).is_err());
        let err = pairs(&[("page", "1"), ("page", "2")]).unwrap_err();
        assert_eq!(err.name(), "page");
        assert_eq!(err.to_string(), "page may be given only once");
        let raw = pairs(&[("skuIds", "a"), ("skuIds", "b,c"), ("page", "2")]).unwrap();
        assert_eq!(raw.sku_ids, vec!["a", "b,c"]);
        assert_eq!(raw.page.as_deref(), Some("2"));
    }

    #[test]
    fn schema_facts_match_what_parse_accepts() {
        for p in PARAMS {
            match p.schema {
                ValueSchema::Integer { min, max, default } => {
                    let at = |v: u32| {
                        let mut raw = RawInventoryQuery::default();
                        raw.set(p.name, v.to_string())
                            .map(|()| InventoryQuery::parse(&raw))
                    };
                    assert!(matches!(at(min), Ok(Ok(_))), "{}", p.name);
                    assert!(matches!(at(max), Ok(Ok(_))), "{}", p.name);
                    assert!(matches!(at(max + 1), Ok(Err(DomainError::Invalid { .. }))));
                    assert!(matches!(at(min - 1), Ok(Err(DomainError::Invalid { .. }))));
                    let q = InventoryQuery::parse(&RawInventoryQuery::default()).unwrap();
                    let actual = if p.name == "page" {
                        q.page().get()
                    } else {
                        q.size()
                    };
                    assert_eq!(actual, default, "{}", p.name);
                }
                ValueSchema::OneOf(values) => {
                    for v in values() {
                        let mut raw = RawInventoryQuery::default();
                        raw.set(p.name, v.to_owned()).unwrap();
                        assert!(InventoryQuery::parse(&raw).is_ok(), "{}={v}", p.name);
                    }
                    let mut raw = RawInventoryQuery::default();
                    raw.set(p.name, "nope".into()).unwrap();
                    assert!(InventoryQuery::parse(&raw).is_err(), "{}", p.name);
                }
                ValueSchema::Uuid => {
                    let mut raw = RawInventoryQuery::default();
                    raw.set(p.name, "nope".into()).unwrap();
                    assert!(InventoryQuery::parse(&raw).is_err(), "{}", p.name);
                }
                ValueSchema::Text {
                    max_chars: Some(max),
                } => {
                    let mut raw = RawInventoryQuery::default();
                    raw.set(p.name, "x".repeat(max + 1)).unwrap();
                    assert!(InventoryQuery::parse(&raw).is_err(), "{}", p.name);
                }
                ValueSchema::Text { max_chars: None }
                | ValueSchema::NotBlank
                | ValueSchema::UtcTime => {}
            }
        }
    }
}
