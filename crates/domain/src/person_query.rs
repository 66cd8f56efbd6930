//! Queries over people: a filter tree over the person's fields, a sort order
//! and a page. Protocols translate their own query languages into it (SCIM's
//! filter grammar in `equip-scim`); storage translates it into its query
//! language (SQL in `equip-persistence`), so filtering never happens in memory
//! outside the in-memory test store.

use chrono::{DateTime, Utc};

use crate::error::DomainError;
use crate::filter::{Condition, Field, Filter, Holds, Leaf};
use crate::person::Person;

pub use crate::filter::{
    check_filter_text, fold_text, shown_time_condition, CompareOp, FieldKind, FilterValue,
    TimeCondition,
};

/// Largest page a list of people returns unless the deployment allows
/// another (`equip serve --scim-max-results`, up to [`PAGE_SIZE_LIMIT`]).
pub const MAX_PAGE_SIZE: u32 = 50;

/// The largest page a deployment may allow for lists of people and groups.
pub const PAGE_SIZE_LIMIT: u32 = 1000;

/// A field of a person that can be filtered on or sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PersonField {
    /// The id (exact).
    Id,
    /// The identity provider's id (exact).
    ExternalId,
    /// Login name (an identifier: [`FieldKind::Identifier`]).
    UserName,
    /// Given name (case-insensitive).
    GivenName,
    /// Family name (case-insensitive).
    FamilyName,
    /// Display name (case-insensitive).
    DisplayName,
    /// Whether the identity provider has the person active.
    Active,
    /// Creation time.
    Created,
    /// Last change.
    LastModified,
    /// Equipment package id (exact).
    PackageId,
    /// First working day.
    StartDate,
    /// A text of the person's profile (case-insensitive).
    Profile(ProfileText),
}

/// A filterable text of a person's [`crate::person::Profile`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProfileText {
    /// The full name as shown (`name.formatted`).
    FormattedName,
    /// Middle name.
    MiddleName,
    /// Honorific prefix.
    HonorificPrefix,
    /// Honorific suffix.
    HonorificSuffix,
    /// Nickname.
    NickName,
    /// Job title.
    Title,
    /// The organization's kind of person.
    UserType,
    /// Preferred language.
    PreferredLanguage,
    /// Locale.
    Locale,
    /// Time zone.
    Timezone,
    /// Profile page URL.
    ProfileUrl,
}

impl ProfileText {
    /// The text on `profile`.
    #[must_use]
    pub fn of(self, profile: &crate::person::Profile) -> Option<&str> {
        match self {
            Self::FormattedName => profile.formatted_name.as_deref(),
            Self::MiddleName => profile.middle_name.as_deref(),
            Self::HonorificPrefix => profile.honorific_prefix.as_deref(),
            Self::HonorificSuffix => profile.honorific_suffix.as_deref(),
            Self::NickName => profile.nick_name.as_deref(),
            Self::Title => profile.title.as_deref(),
            Self::UserType => profile.user_type.as_deref(),
            Self::PreferredLanguage => profile.preferred_language.as_deref(),
            Self::Locale => profile.locale.as_deref(),
            Self::Timezone => profile.timezone.as_deref(),
            Self::ProfileUrl => profile.profile_url.as_deref(),
        }
    }
}

/// A field of a person's email address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EmailField {
    /// The address (an identifier: [`FieldKind::Identifier`]).
    Value,
    /// `work`, `home`… (case-insensitive).
    Kind,
    /// Whether it is the primary address.
    Primary,
}

impl PersonField {
    /// How the field compares.
    #[must_use]
    pub const fn kind(self) -> FieldKind {
        match self {
            Self::Id | Self::ExternalId | Self::PackageId => FieldKind::Text { case_exact: true },
            Self::UserName => FieldKind::Identifier,
            Self::GivenName | Self::FamilyName | Self::DisplayName | Self::Profile(_) => {
                FieldKind::Text { case_exact: false }
            }
            Self::Active => FieldKind::Bool,
            Self::Created | Self::LastModified => FieldKind::Time,
            Self::StartDate => FieldKind::Date,
        }
    }
}

impl EmailField {
    /// How the field compares.
    #[must_use]
    pub const fn kind(self) -> FieldKind {
        match self {
            Self::Value => FieldKind::Identifier,
            Self::Kind => FieldKind::Text { case_exact: false },
            Self::Primary => FieldKind::Bool,
        }
    }
}

impl Field for PersonField {
    fn kind(self) -> FieldKind {
        Self::kind(self)
    }
}

impl Field for EmailField {
    fn kind(self) -> FieldKind {
        Self::kind(self)
    }
}

/// A condition on one email address of a person.
pub type EmailFilter = Filter<Condition<EmailField>>;

/// A leaf of a condition on a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PersonLeaf {
    /// A condition on a field of the person.
    Field(Condition<PersonField>),
    /// Some email address of the person satisfies the condition.
    AnyEmail(EmailFilter),
}

impl From<Condition<PersonField>> for PersonLeaf {
    fn from(c: Condition<PersonField>) -> Self {
        Self::Field(c)
    }
}

/// A condition on a person.
pub type PersonFilter = Filter<PersonLeaf>;

impl PersonFilter {
    /// Some email address of the person satisfies `e`.
    #[must_use]
    pub const fn any_email(e: EmailFilter) -> Self {
        Self::Leaf(PersonLeaf::AnyEmail(e))
    }
}

impl Leaf for PersonLeaf {
    fn validate(&self) -> Result<(), DomainError> {
        match self {
            Self::Field(c) => c.validate(),
            Self::AnyEmail(e) => e.validate(),
        }
    }
}

/// Sort direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortOrder {
    /// Smallest first (the default).
    #[default]
    Ascending,
    /// Largest first.
    Descending,
}

/// What to list: provisioned (ACTIVE) people of one organization matching
/// `filter`, ordered by `sort` (then by creation time and id, so paging is
/// stable), from the 1-based `start_index`, at most `count` of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonQuery {
    /// Condition, or all.
    pub filter: Option<PersonFilter>,
    /// Sort field; creation order when absent.
    pub sort: Option<PersonField>,
    /// Direction of `sort`.
    pub order: SortOrder,
    /// 1-based index of the first person of the page.
    pub start_index: u64,
    /// Page size, at most [`PAGE_SIZE_LIMIT`] (the protocol applies the
    /// deployment's own cap, [`MAX_PAGE_SIZE`] by default); 0 counts only.
    pub count: u32,
}

impl Default for PersonQuery {
    fn default() -> Self {
        Self {
            filter: None,
            sort: None,
            order: SortOrder::Ascending,
            start_index: 1,
            count: MAX_PAGE_SIZE,
        }
    }
}

/// One page of people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonPage {
    /// Everyone matching the filter.
    pub total: u64,
    /// The page, in order.
    pub people: Vec<Person>,
}

// ---------------------------------------------------------------------------
// In-memory evaluation (the reference semantics; the in-memory store uses it,
// the SQL translation must agree with it).
// ---------------------------------------------------------------------------

/// A field's value on a person, as a comparable value.
#[must_use]
pub fn person_value(p: &Person, field: PersonField) -> Option<FilterValue> {
    match field {
        PersonField::Id => Some(FilterValue::Text(p.id.to_string())),
        PersonField::ExternalId => p.external_id.clone().map(FilterValue::Text),
        PersonField::UserName => Some(FilterValue::Text(p.user_name.clone())),
        PersonField::GivenName => p.given_name.clone().map(FilterValue::Text),
        PersonField::FamilyName => p.family_name.clone().map(FilterValue::Text),
        PersonField::DisplayName => p.display_name.clone().map(FilterValue::Text),
        PersonField::Active => Some(FilterValue::Bool(p.active)),
        PersonField::Created => Some(FilterValue::Time(p.created_at)),
        PersonField::LastModified => Some(FilterValue::Time(p.updated_at)),
        PersonField::PackageId => p.package_id.map(|x| FilterValue::Text(x.to_string())),
        PersonField::StartDate => p.start_date.map(FilterValue::Date),
        PersonField::Profile(t) => t.of(&p.profile).map(|v| FilterValue::Text(v.to_owned())),
    }
}

fn email_value(e: &crate::person::Email, field: EmailField) -> Option<FilterValue> {
    match field {
        EmailField::Value => Some(FilterValue::Text(e.value.clone())),
        EmailField::Kind => e.kind.clone().map(FilterValue::Text),
        EmailField::Primary => Some(FilterValue::Bool(e.primary)),
    }
}

impl Holds<crate::person::Email> for Condition<EmailField> {
    fn holds(&self, email: &crate::person::Email) -> bool {
        self.holds_with(|f| email_value(email, f))
    }
}

impl Holds<Person> for PersonLeaf {
    fn holds(&self, person: &Person) -> bool {
        match self {
            Self::Field(c) => c.holds_with(|f| person_value(person, f)),
            Self::AnyEmail(e) => person.emails.iter().any(|x| e.matches(x)),
        }
    }
}

/// Orders people for `query` (sort field, then creation time and id).
pub fn sort_people(people: &mut [Person], query: &PersonQuery) {
    sort_by_field(
        people,
        query.sort.map(|f| (f.kind(), query.order)),
        |p| query.sort.and_then(|f| person_value(p, f)),
        |p| (p.created_at, p.id.to_string()),
    );
}

/// The reference order of a listing (people, groups): by the sort field's
/// value (`sort`: how it compares and the direction; texts folded as the
/// field compares, absent values last when ascending), then by creation
/// time and id, so that paging is stable.
pub(crate) fn sort_by_field<T>(
    items: &mut [T],
    sort: Option<(FieldKind, SortOrder)>,
    value: impl Fn(&T) -> Option<FilterValue>,
    created_and_id: impl Fn(&T) -> (DateTime<Utc>, String),
) {
    items.sort_by(|a, b| {
        let by_field = sort.map_or(std::cmp::Ordering::Equal, |(kind, order)| {
            let key = |x: &T| {
                value(x).map(|v| match v {
                    FilterValue::Text(s) => FilterValue::Text(fold_text(kind, &s)),
                    other => other,
                })
            };
            let o = cmp_opt(&key(a), &key(b));
            match order {
                SortOrder::Ascending => o,
                SortOrder::Descending => o.reverse(),
            }
        });
        by_field.then_with(|| created_and_id(a).cmp(&created_and_id(b)))
    });
}

/// Absent values sort last in ascending order.
fn cmp_opt(a: &Option<FilterValue>, b: &Option<FilterValue>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => match (x, y) {
            (FilterValue::Text(x), FilterValue::Text(y)) => x.cmp(y),
            (FilterValue::Bool(x), FilterValue::Bool(y)) => x.cmp(y),
            (FilterValue::Time(x), FilterValue::Time(y)) => x.cmp(y),
            (FilterValue::Date(x), FilterValue::Date(y)) => x.cmp(y),
            _ => Ordering::Equal,
        },
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::person::tests::person;

    #[test]
    fn text_comparisons_follow_case_exactness() {
        let mut p = person("Ada@Example.com");
        p.external_id = Some("ABC".into());
        let user = |op, v: &str| {
            PersonFilter::compare(PersonField::UserName, op, FilterValue::Text(v.into()))
                .matches(&p)
        };
        assert!(user(CompareOp::Eq, "ada@example.COM"));
        assert!(user(CompareOp::Sw, "ADA"));
        assert!(user(CompareOp::Ew, ".com"));
        assert!(user(CompareOp::Co, "@EXAMPLE"));
        assert!(!user(CompareOp::Ne, "ADA@example.com"));
        let ext = |v: &str| {
            PersonFilter::compare(
                PersonField::ExternalId,
                CompareOp::Eq,
                FilterValue::Text(v.into()),
            )
            .matches(&p)
        };
        assert!(ext("ABC"));
        assert!(!ext("abc"));
    }

    #[test]
    fn absent_fields_match_only_ne() {
        let p = person("a@b.example");
        let f = |op| {
            PersonFilter::compare(PersonField::DisplayName, op, FilterValue::Text("x".into()))
                .matches(&p)
        };
        assert!(!f(CompareOp::Eq));
        assert!(f(CompareOp::Ne));
        assert!(!PersonFilter::present(PersonField::DisplayName).matches(&p));
        assert!(PersonFilter::present(PersonField::UserName).matches(&p));
    }

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn times_compare_as_shown_in_milliseconds() {
        let mut p = person("a@b.example");
        p.created_at = at("2026-11-25T10:00:00.123456Z");
        let shown = at("2026-11-25T10:00:00.123Z");
        let holds =
            |op, given| PersonFilter::time_as_shown(PersonField::Created, op, given, 3).matches(&p);
        assert!(holds(CompareOp::Eq, shown));
        assert!(!holds(CompareOp::Ne, shown));
        assert!(!holds(CompareOp::Gt, shown));
        assert!(holds(CompareOp::Ge, shown));
        assert!(!holds(CompareOp::Lt, shown));
        assert!(holds(CompareOp::Le, shown));
        // The neighbouring shown times.
        let before = at("2026-11-25T10:00:00.122Z");
        let after = at("2026-11-25T10:00:00.124Z");
        assert!(!holds(CompareOp::Eq, before) && !holds(CompareOp::Eq, after));
        assert!(holds(CompareOp::Gt, before) && !holds(CompareOp::Le, before));
        assert!(holds(CompareOp::Lt, after) && !holds(CompareOp::Ge, after));
        // A given time with more digits than shown: compared with the shown time.
        let finer = at("2026-11-25T10:00:00.1234Z");
        assert!(!holds(CompareOp::Eq, finer) && holds(CompareOp::Ne, finer));
        assert!(holds(CompareOp::Lt, finer) && holds(CompareOp::Le, finer));
        assert!(!holds(CompareOp::Gt, finer) && !holds(CompareOp::Ge, finer));
        let coarser = at("2026-11-25T10:00:00.1229Z");
        assert!(holds(CompareOp::Gt, coarser) && holds(CompareOp::Ge, coarser));
        // Seconds shown: the whole second matches.
        let second = at("2026-11-25T10:00:00Z");
        let in_seconds =
            |op| PersonFilter::time_as_shown(PersonField::Created, op, second, 0).matches(&p);
        assert!(in_seconds(CompareOp::Eq) && in_seconds(CompareOp::Le));
        assert!(!in_seconds(CompareOp::Gt) && !in_seconds(CompareOp::Lt));
    }

    #[test]
    fn email_conditions_hold_on_one_address() {
        let p = person("a@b.example");
        let work = EmailFilter::compare(
            EmailField::Kind,
            CompareOp::Eq,
            FilterValue::Text("WORK".into()),
        );
        let value = EmailFilter::compare(
            EmailField::Value,
            CompareOp::Eq,
            FilterValue::Text("A@B.example".into()),
        );
        let both = PersonFilter::any_email(EmailFilter::And(Box::new(work), Box::new(value)));
        assert!(both.matches(&p));
        assert!(!PersonFilter::Not(Box::new(both)).matches(&p));
    }
}
