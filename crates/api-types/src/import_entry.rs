//! One entry of the import document, e.g. `inventory[12]`: parsing its
//! string-typed fields (ids, dates, timestamps, enums) so that an error names
//! the entry and the field.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use uuid::Uuid;

use equip_domain::error::DomainError;
use equip_domain::import::ImportError;

/// One entry of the document, e.g. `inventory[12]`, for naming errors.
#[derive(Debug, Clone)]
pub struct Entry {
    name: String,
}

impl Entry {
    /// The entry at `index` of the array `kind`.
    pub fn new(kind: &str, index: usize) -> Self {
        Self {
            name: format!("{kind}[{index}]"),
        }
    }

    /// The entry's name, e.g. `inventory[12]`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// An error about `field` of this entry (`field` may be a path such as
    /// `returnOrder.status`; empty for the entry as a whole).
    pub fn error(&self, field: &str, message: impl Into<String>) -> ImportError {
        if field.is_empty() {
            ImportError::new(self.name.clone(), message)
        } else {
            ImportError::new(format!("{}.{field}", self.name), message)
        }
    }

    /// A UUID field.
    pub fn id<T: From<Uuid>>(&self, field: &str, raw: &str) -> Result<T, ImportError> {
        Uuid::parse_str(raw.trim())
            .map(T::from)
            .map_err(|_| self.error(field, format!("'{raw}' is not a valid UUID")))
    }

    /// An optional UUID field.
    pub fn opt_id<T: From<Uuid>>(
        &self,
        field: &str,
        raw: Option<&str>,
    ) -> Result<Option<T>, ImportError> {
        non_empty(raw).map(|r| self.id(field, r)).transpose()
    }

    /// A date field, `YYYY-MM-DD`.
    pub fn date(&self, field: &str, raw: &str) -> Result<NaiveDate, ImportError> {
        NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d").map_err(|_| {
            self.error(
                field,
                format!("'{raw}' is not a date of the form YYYY-MM-DD"),
            )
        })
    }

    /// An optional date field; an empty string counts as absent.
    pub fn opt_date(
        &self,
        field: &str,
        raw: Option<&str>,
    ) -> Result<Option<NaiveDate>, ImportError> {
        non_empty(raw).map(|r| self.date(field, r)).transpose()
    }

    /// A timestamp field: RFC 3339 (any offset, converted to UTC), or
    /// `YYYY-MM-DDTHH:MM:SS[.fff]` without an offset, taken as UTC.
    pub fn timestamp(&self, field: &str, raw: &str) -> Result<DateTime<Utc>, ImportError> {
        parse_timestamp(raw).ok_or_else(|| {
            self.error(
                field,
                format!("'{raw}' is not a timestamp of the form YYYY-MM-DDTHH:MM:SS[.fff][Z]"),
            )
        })
    }

    /// An optional timestamp field; an empty string counts as absent.
    pub fn opt_timestamp(
        &self,
        field: &str,
        raw: Option<&str>,
    ) -> Result<Option<DateTime<Utc>>, ImportError> {
        non_empty(raw).map(|r| self.timestamp(field, r)).transpose()
    }

    /// An enum field parsed with the domain's `parse`; the message lists the
    /// values it accepts.
    pub fn value<T: Copy + std::fmt::Display>(
        &self,
        field: &str,
        raw: &str,
        parse: fn(&str) -> Result<T, DomainError>,
        all: &[T],
    ) -> Result<T, ImportError> {
        parse(raw).map_err(|_| {
            let expected = all.iter().map(ToString::to_string).collect::<Vec<_>>();
            self.error(
                field,
                format!(
                    "unknown value '{raw}'; expected one of {}",
                    expected.join(", ")
                ),
            )
        })
    }

    /// An optional enum field; an empty string counts as absent.
    pub fn opt_value<T: Copy + std::fmt::Display>(
        &self,
        field: &str,
        raw: Option<&str>,
        parse: fn(&str) -> Result<T, DomainError>,
        all: &[T],
    ) -> Result<Option<T>, ImportError> {
        non_empty(raw)
            .map(|r| self.value(field, r, parse, all))
            .transpose()
    }
}

/// `Some` non-blank string.
pub fn non_empty(raw: Option<&str>) -> Option<&str> {
    raw.filter(|r| !r.trim().is_empty())
}

/// Parses a timestamp as [`Entry::timestamp`] describes.
pub fn parse_timestamp(raw: &str) -> Option<DateTime<Utc>> {
    let raw = raw.trim();
    DateTime::parse_from_rfc3339(raw)
        .map(|t| t.with_timezone(&Utc))
        .ok()
        .or_else(|| {
            NaiveDateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M:%S%.f")
                .ok()
                .map(|t| t.and_utc())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_with_and_without_offset() {
        let z = parse_timestamp("2024-03-01T10:00:00Z").unwrap();
        assert_eq!(parse_timestamp("2024-03-01T10:00:00").unwrap(), z);
        assert_eq!(parse_timestamp("2024-03-01T12:00:00+02:00").unwrap(), z);
        assert!(parse_timestamp("2024-03-01T10:00:00.250").is_some());
        assert!(parse_timestamp("2024-03-01").is_none());
        assert!(parse_timestamp("yesterday").is_none());
    }

    #[test]
    fn errors_name_the_entry_and_the_field() {
        let e = Entry::new("inventory", 12);
        assert_eq!(e.name(), "inventory[12]");
        let err = e.id::<Uuid>("skuId", "nope").unwrap_err();
        assert_eq!(
            err.to_string(),
            "inventory[12].skuId: 'nope' is not a valid UUID"
        );
        assert_eq!(e.error("", "bad").to_string(), "inventory[12]: bad");
        assert_eq!(e.opt_date("renewalDate", Some(" ")).unwrap(), None);
    }
}
