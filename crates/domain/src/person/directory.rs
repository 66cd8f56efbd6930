//! The people directory (`GET /api/v1/people`, `GET /api/v1/people/{id}`):
//! every person of an organization whatever their status, so that a leaver
//! (OFFBOARDING, OFFBOARDED), whom SCIM no longer shows (RFC 7644 §3.6), can
//! still be named and followed. Filters `status` and `search` (a
//! case-insensitive substring of the names, the userName or an email
//! address), pages of `size` (the inventory listing's bounds), ordered by
//! family name, then given name (folded as they compare, absent ones last),
//! then id.

use std::cmp::Ordering;
use std::num::NonZeroU32;

use chrono::{DateTime, Utc};

use super::{Person, PersonStatus};
use crate::error::DomainError;
use crate::filter::{CompareOp, FieldKind, FilterValue};
use crate::ids::PackageId;
use crate::inventory_query::Paging;
use crate::person_query::{EmailField, PersonField, PersonFilter, ProfileText};
use crate::text::SHORT_TEXT_MAX;

/// The longest `search` taken, in characters (after trimming).
pub const SEARCH_MAX: usize = SHORT_TEXT_MAX;

/// The directory's parameters as the query string gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawDirectoryQuery {
    /// `page`.
    pub page: Option<String>,
    /// `size`.
    pub size: Option<String>,
    /// `status` (case-insensitive).
    pub status: Option<String>,
    /// `search`.
    pub search: Option<String>,
}

/// A validated directory query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryQuery {
    paging: Paging,
    /// People of this status.
    pub status: Option<PersonStatus>,
    /// The search, trimmed; `None` when absent or blank.
    pub search: Option<String>,
}

impl DirectoryQuery {
    /// Validates raw parameters.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the first bad parameter (`page`,
    /// `size`, `status`, `search`).
    pub fn parse(raw: &RawDirectoryQuery) -> Result<Self, DomainError> {
        let paging = Paging::parse(raw.page.as_deref(), raw.size.as_deref())?;
        let status = raw.status.as_deref().map(PersonStatus::parse).transpose()?;
        let search = match raw.search.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(s) if s.chars().count() > SEARCH_MAX => {
                return Err(DomainError::invalid(
                    "search",
                    format!("search must be at most {SEARCH_MAX} characters"),
                ))
            }
            Some(s) => Some(s.to_owned()),
        };
        Ok(Self {
            paging,
            status,
            search,
        })
    }

    /// 1-based page.
    #[must_use]
    pub fn page(&self) -> NonZeroU32 {
        self.paging.page()
    }

    /// People per page.
    #[must_use]
    pub fn size(&self) -> u32 {
        self.paging.size()
    }

    /// Rows to skip.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.paging.offset()
    }

    /// The search as a condition on a person: the text contained
    /// (case-insensitively) in the given, family, display or formatted
    /// name, the userName or an email address. Both stores apply it (the
    /// database's SQL is the SCIM filter's).
    #[must_use]
    pub fn search_filter(&self) -> Option<PersonFilter> {
        let text = self.search.as_ref()?;
        let co = |field: PersonField| {
            PersonFilter::compare(field, CompareOp::Co, FilterValue::Text(text.clone()))
        };
        let email = PersonFilter::any_email(crate::filter::Filter::compare(
            EmailField::Value,
            CompareOp::Co,
            FilterValue::Text(text.clone()),
        ));
        Some(
            [
                PersonField::GivenName,
                PersonField::FamilyName,
                PersonField::DisplayName,
                PersonField::Profile(ProfileText::FormattedName),
            ]
            .into_iter()
            .map(co)
            .fold(
                PersonFilter::or(co(PersonField::UserName), email),
                PersonFilter::or,
            ),
        )
    }

    /// Whether `person` passes the filters (the in-memory store's listing).
    #[must_use]
    pub fn matches(&self, person: &Person) -> bool {
        self.status.is_none_or(|s| person.status == s)
            && self.search_filter().is_none_or(|f| f.matches(person))
    }
}

/// The directory's order: family name, then given name (each lowercased,
/// absent ones last), then id (as text).
#[must_use]
pub fn directory_order(a: &Person, b: &Person) -> Ordering {
    let folded = |s: &Option<String>| {
        s.as_deref()
            .map(|s| crate::filter::fold_text(FieldKind::Text { case_exact: false }, s))
    };
    let absent_last = |x: Option<String>, y: Option<String>| match (x, y) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => x.as_bytes().cmp(y.as_bytes()),
    };
    absent_last(folded(&a.family_name), folded(&b.family_name))
        .then_with(|| absent_last(folded(&a.given_name), folded(&b.given_name)))
        .then_with(|| a.id.to_string().cmp(&b.id.to_string()))
}

/// One page of the directory, as the store answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryPage {
    /// The people, in [`directory_order`].
    pub people: Vec<Person>,
    /// People matching the filters, over all pages.
    pub total_records: u64,
}

/// When a person's offboarding started (the SCIM DELETE) and completed
/// (their last return closed); `None` when it has not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OffboardingTimes {
    /// Status moved from ACTIVE.
    pub started_at: Option<DateTime<Utc>>,
    /// Status became OFFBOARDED.
    pub offboarded_at: Option<DateTime<Utc>>,
}

/// A person as the directory shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryEntry {
    /// The person.
    pub person: Person,
    /// Their own package, else their groups' ([`crate::group::effective_package`]).
    pub effective_package: Option<PackageId>,
    /// Their offboarding's times.
    pub offboarding: OffboardingTimes,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::person::tests::person;

    fn raw(f: impl FnOnce(&mut RawDirectoryQuery)) -> RawDirectoryQuery {
        let mut r = RawDirectoryQuery::default();
        f(&mut r);
        r
    }

    #[test]
    fn parameters_are_validated_and_named() {
        let q = DirectoryQuery::parse(&RawDirectoryQuery::default()).unwrap();
        assert_eq!(
            (q.page().get(), q.size(), q.status, q.search),
            (1, 100, None, None)
        );
        let q = DirectoryQuery::parse(&raw(|r| {
            r.status = Some("offboarding".into());
            r.search = Some("  Ada ".into());
        }))
        .unwrap();
        assert_eq!(q.status, Some(PersonStatus::Offboarding));
        assert_eq!(q.search.as_deref(), Some("Ada"));
        let blank = DirectoryQuery::parse(&raw(|r| r.search = Some("   ".into()))).unwrap();
        assert_eq!(blank.search, None);
        for (r, field) in [
            (raw(|r| r.status = Some("LEFT".into())), "status"),
            (
                raw(|r| r.search = Some("x".repeat(SEARCH_MAX + 1))),
                "search",
            ),
            (raw(|r| r.size = Some("0".into())), "size"),
            (raw(|r| r.page = Some("x".into())), "page"),
        ] {
            let e = DirectoryQuery::parse(&r).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{field}:")), "{e}");
        }
        assert!(DirectoryQuery::parse(&raw(|r| r.search = Some("é".repeat(SEARCH_MAX)))).is_ok());
        // A tab is text like any other: the document allows any string.
        assert!(DirectoryQuery::parse(&raw(|r| r.search = Some("a\tb".into()))).is_ok());
    }

    #[test]
    fn search_looks_in_names_user_name_and_emails_whatever_the_case() {
        let mut p = person("ada@example.com");
        p.given_name = Some("Ada".into());
        p.family_name = Some("Lovelace".into());
        p.status = PersonStatus::Offboarding;
        let q = |s: &str, status: Option<&str>| {
            DirectoryQuery::parse(&raw(|r| {
                r.search = Some(s.into());
                r.status = status.map(Into::into);
            }))
            .unwrap()
        };
        for hit in ["LOVE", "ada", "example.COM", "ace"] {
            assert!(q(hit, None).matches(&p), "{hit}");
        }
        assert!(!q("babbage", None).matches(&p));
        assert!(q("ada", Some("OFFBOARDING")).matches(&p));
        assert!(!q("ada", Some("ACTIVE")).matches(&p));
    }

    #[test]
    fn order_is_family_then_given_name_absent_last_then_id() {
        let named = |given: Option<&str>, family: Option<&str>| {
            let mut p = person("x@example.com");
            p.given_name = given.map(Into::into);
            p.family_name = family.map(Into::into);
            p
        };
        let mut people = [
            named(None, None),
            named(Some("b"), Some("lovelace")),
            named(Some("A"), Some("Lovelace")),
            named(Some("z"), Some("Babbage")),
            named(None, Some("babbage")),
        ];
        people.sort_by(directory_order);
        let names: Vec<_> = people
            .iter()
            .map(|p| (p.family_name.as_deref(), p.given_name.as_deref()))
            .collect();
        assert_eq!(
            names,
            [
                (Some("Babbage"), Some("z")),
                (Some("babbage"), None),
                (Some("Lovelace"), Some("A")),
                (Some("lovelace"), Some("b")),
                (None, None),
            ]
        );
    }
}
