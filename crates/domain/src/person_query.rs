//! Queries over people: a filter tree over the person's fields, a sort order
//! and a page. Protocols translate their own query languages into it (SCIM's
//! filter grammar in `equip-scim`); storage translates it into its query
//! language (SQL in `equip-persistence`), so filtering never happens in memory
//! outside the in-memory test store.

use chrono::{DateTime, NaiveDate, SubsecRound, TimeDelta, Utc};

use crate::error::DomainError;
use crate::person::Person;

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

/// How values of a field compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// An identifier (userName, an email address): compared by
    /// [`crate::text::identifier_key`] (Unicode case folding and NFC), as
    /// uniqueness and the "userName is the primary email" rule compare.
    Identifier,
    /// Text; `case_exact` false compares case-insensitively (Unicode
    /// lowercase, as the stores' `lower` does).
    Text {
        /// Whether case matters.
        case_exact: bool,
    },
    /// A boolean.
    Bool,
    /// A point in time.
    Time,
    /// A calendar date.
    Date,
}

impl PersonField {
    /// How the field compares.
    #[must_use]
    pub const fn kind(self) -> FieldKind {
        match self {
            Self::Id | Self::ExternalId | Self::PackageId => FieldKind::Text { case_exact: true },
            Self::UserName => FieldKind::Identifier,
            Self::GivenName | Self::FamilyName | Self::DisplayName => {
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

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    /// Equal.
    Eq,
    /// Not equal (also true when the field is absent).
    Ne,
    /// Contains (text only).
    Co,
    /// Starts with (text only).
    Sw,
    /// Ends with (text only).
    Ew,
    /// Greater than.
    Gt,
    /// Greater than or equal.
    Ge,
    /// Less than.
    Lt,
    /// Less than or equal.
    Le,
}

/// A value to compare a field with; its variant matches the field's [`FieldKind`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterValue {
    /// Text (already trimmed of nothing: compared as given).
    Text(String),
    /// A boolean.
    Bool(bool),
    /// A point in time.
    Time(DateTime<Utc>),
    /// A date.
    Date(NaiveDate),
}

/// A comparison of a stored time with a time given at the precision the
/// stored times are shown with (see [`shown_time_condition`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeCondition {
    /// `stored op time`.
    Compare(CompareOp, DateTime<Utc>),
    /// `from <= stored < until`; with `outside`, its negation.
    Within {
        /// Inclusive lower bound.
        from: DateTime<Utc>,
        /// Exclusive upper bound.
        until: DateTime<Utc>,
        /// Whether the condition is that the stored time is outside.
        outside: bool,
    },
}

/// The condition on stored times (kept to the microsecond) that `stored op
/// given` means when stored times are shown with `digits` fractional
/// digits of a second (SCIM shows milliseconds): the stored time is compared
/// as shown, truncated to that precision. So a client that filters with
/// `eq` on a time it was shown finds the resource, `gt` excludes it and `le`
/// includes it, although the stored time has more digits than were shown.
///
/// With `floor`, the given time truncated, `ceil` the smallest shown time
/// not before it, and `next = floor + 1 unit`: `eq` is `ceil <= stored <
/// next` (nothing when the given time has more digits than are shown, since
/// no shown time equals it), `ne` its negation, `gt` is `stored >= next`,
/// `ge` `stored >= ceil`, `lt` `stored < ceil`, `le` `stored < next`.
#[must_use]
pub fn shown_time_condition(op: CompareOp, given: DateTime<Utc>, digits: u16) -> TimeCondition {
    let digits = digits.min(9);
    let unit = TimeDelta::nanoseconds(10_i64.pow(9 - u32::from(digits)));
    let floor = given.trunc_subsecs(digits);
    // Times past chrono's range cannot be parsed from a filter; saturate.
    let next = floor
        .checked_add_signed(unit)
        .unwrap_or(DateTime::<Utc>::MAX_UTC);
    let ceil = if floor == given { floor } else { next };
    match op {
        CompareOp::Eq | CompareOp::Ne => TimeCondition::Within {
            from: ceil,
            until: next,
            outside: op == CompareOp::Ne,
        },
        CompareOp::Gt => TimeCondition::Compare(CompareOp::Ge, next),
        CompareOp::Ge => TimeCondition::Compare(CompareOp::Ge, ceil),
        CompareOp::Lt => TimeCondition::Compare(CompareOp::Lt, ceil),
        CompareOp::Le => TimeCondition::Compare(CompareOp::Lt, next),
        // Substring operators do not apply to times; left as they are.
        CompareOp::Co | CompareOp::Sw | CompareOp::Ew => TimeCondition::Compare(op, given),
    }
}

impl TimeCondition {
    /// The condition as a filter, built with `compare` (a field compared with
    /// a time), `and`, `or`.
    pub fn build<F>(
        self,
        compare: impl Fn(CompareOp, FilterValue) -> F,
        and: impl FnOnce(F, F) -> F,
        or: impl FnOnce(F, F) -> F,
    ) -> F {
        match self {
            Self::Compare(op, t) => compare(op, FilterValue::Time(t)),
            Self::Within {
                from,
                until,
                outside: false,
            } => and(
                compare(CompareOp::Ge, FilterValue::Time(from)),
                compare(CompareOp::Lt, FilterValue::Time(until)),
            ),
            Self::Within {
                from,
                until,
                outside: true,
            } => or(
                compare(CompareOp::Lt, FilterValue::Time(from)),
                compare(CompareOp::Ge, FilterValue::Time(until)),
            ),
        }
    }
}

impl PersonFilter {
    /// `field op given` on a time field whose values are shown with `digits`
    /// fractional digits ([`shown_time_condition`]).
    #[must_use]
    pub fn time_as_shown(
        field: PersonField,
        op: CompareOp,
        given: DateTime<Utc>,
        digits: u16,
    ) -> Self {
        shown_time_condition(op, given, digits).build(
            |op, v| Self::Compare(field, op, v),
            |a, b| Self::And(Box::new(a), Box::new(b)),
            |a, b| Self::Or(Box::new(a), Box::new(b)),
        )
    }
}

/// A condition on one email address of a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmailFilter {
    /// `field op value`.
    Compare(EmailField, CompareOp, FilterValue),
    /// The field has a value.
    Present(EmailField),
    /// Both hold.
    And(Box<EmailFilter>, Box<EmailFilter>),
    /// Either holds.
    Or(Box<EmailFilter>, Box<EmailFilter>),
    /// Does not hold.
    Not(Box<EmailFilter>),
}

/// A condition on a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PersonFilter {
    /// `field op value`. Absent fields never match, except with `ne`.
    Compare(PersonField, CompareOp, FilterValue),
    /// The field has a value.
    Present(PersonField),
    /// Some email address of the person satisfies the condition.
    AnyEmail(EmailFilter),
    /// Both hold.
    And(Box<PersonFilter>, Box<PersonFilter>),
    /// Either holds.
    Or(Box<PersonFilter>, Box<PersonFilter>),
    /// Does not hold.
    Not(Box<PersonFilter>),
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

/// The form a text of a field of `kind` is compared in: the identifier key
/// for identifiers, the Unicode lowercase for case-insensitive text, the text
/// itself otherwise. Stores compare the same forms (the identifier key is
/// kept in a column; `lower` is the backend's).
#[must_use]
pub fn fold_text(kind: FieldKind, s: &str) -> String {
    match kind {
        FieldKind::Identifier => crate::text::identifier_key(s),
        FieldKind::Text { case_exact: false } => s.to_lowercase(),
        _ => s.to_owned(),
    }
}

/// Checks a text a filter compares with: no NUL character (no stored text
/// holds one, and PostgreSQL cannot even compare with one).
///
/// # Errors
/// [`DomainError::Invalid`] (`filter`).
pub fn check_filter_text(value: &str) -> Result<(), DomainError> {
    if value.contains('\0') {
        return Err(DomainError::invalid(
            "filter",
            "a filter value must not contain NUL characters",
        ));
    }
    Ok(())
}

impl PersonFilter {
    /// Checks every text value of the filter ([`check_filter_text`]).
    ///
    /// # Errors
    /// [`DomainError::Invalid`] (`filter`).
    pub fn validate(&self) -> Result<(), DomainError> {
        match self {
            Self::Compare(_, _, FilterValue::Text(s)) => check_filter_text(s),
            Self::Compare(..) | Self::Present(_) => Ok(()),
            Self::AnyEmail(e) => e.validate(),
            Self::And(a, b) | Self::Or(a, b) => a.validate().and_then(|()| b.validate()),
            Self::Not(a) => a.validate(),
        }
    }
}

impl EmailFilter {
    /// Checks every text value of the filter ([`check_filter_text`]).
    ///
    /// # Errors
    /// [`DomainError::Invalid`] (`filter`).
    pub fn validate(&self) -> Result<(), DomainError> {
        match self {
            Self::Compare(_, _, FilterValue::Text(s)) => check_filter_text(s),
            Self::Compare(..) | Self::Present(_) => Ok(()),
            Self::And(a, b) | Self::Or(a, b) => a.validate().and_then(|()| b.validate()),
            Self::Not(a) => a.validate(),
        }
    }
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
    }
}

fn email_value(e: &crate::person::Email, field: EmailField) -> Option<FilterValue> {
    match field {
        EmailField::Value => Some(FilterValue::Text(e.value.clone())),
        EmailField::Kind => e.kind.clone().map(FilterValue::Text),
        EmailField::Primary => Some(FilterValue::Bool(e.primary)),
    }
}

pub(crate) fn compare(
    kind: FieldKind,
    actual: Option<FilterValue>,
    op: CompareOp,
    wanted: &FilterValue,
) -> bool {
    use std::cmp::Ordering;
    let Some(actual) = actual else {
        return op == CompareOp::Ne;
    };
    let fold = |s: &str| fold_text(kind, s);
    let ordering: Option<Ordering> = match (&actual, wanted) {
        (FilterValue::Text(a), FilterValue::Text(b)) => {
            let (a, b) = (fold(a), fold(b));
            match op {
                CompareOp::Co => return a.contains(&b),
                CompareOp::Sw => return a.starts_with(&b),
                CompareOp::Ew => return a.ends_with(&b),
                _ => Some(a.cmp(&b)),
            }
        }
        (FilterValue::Bool(a), FilterValue::Bool(b)) => Some(a.cmp(b)),
        (FilterValue::Time(a), FilterValue::Time(b)) => Some(a.cmp(b)),
        (FilterValue::Date(a), FilterValue::Date(b)) => Some(a.cmp(b)),
        _ => None,
    };
    let Some(o) = ordering else { return false };
    match op {
        CompareOp::Eq => o == Ordering::Equal,
        CompareOp::Ne => o != Ordering::Equal,
        CompareOp::Gt => o == Ordering::Greater,
        CompareOp::Ge => o != Ordering::Less,
        CompareOp::Lt => o == Ordering::Less,
        CompareOp::Le => o != Ordering::Greater,
        CompareOp::Co | CompareOp::Sw | CompareOp::Ew => false,
    }
}

impl EmailFilter {
    /// Whether `email` satisfies the condition.
    #[must_use]
    pub fn matches(&self, email: &crate::person::Email) -> bool {
        match self {
            Self::Compare(f, op, v) => compare(f.kind(), email_value(email, *f), *op, v),
            Self::Present(f) => email_value(email, *f).is_some(),
            Self::And(a, b) => a.matches(email) && b.matches(email),
            Self::Or(a, b) => a.matches(email) || b.matches(email),
            Self::Not(a) => !a.matches(email),
        }
    }
}

impl PersonFilter {
    /// Whether `person` satisfies the condition.
    #[must_use]
    pub fn matches(&self, person: &Person) -> bool {
        match self {
            Self::Compare(f, op, v) => compare(f.kind(), person_value(person, *f), *op, v),
            Self::Present(f) => person_value(person, *f).is_some(),
            Self::AnyEmail(e) => person.emails.iter().any(|x| e.matches(x)),
            Self::And(a, b) => a.matches(person) && b.matches(person),
            Self::Or(a, b) => a.matches(person) || b.matches(person),
            Self::Not(a) => !a.matches(person),
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
            PersonFilter::Compare(PersonField::UserName, op, FilterValue::Text(v.into()))
                .matches(&p)
        };
        assert!(user(CompareOp::Eq, "ada@example.COM"));
        assert!(user(CompareOp::Sw, "ADA"));
        assert!(user(CompareOp::Ew, ".com"));
        assert!(user(CompareOp::Co, "@EXAMPLE"));
        assert!(!user(CompareOp::Ne, "ADA@example.com"));
        let ext = |v: &str| {
            PersonFilter::Compare(
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
            PersonFilter::Compare(PersonField::DisplayName, op, FilterValue::Text("x".into()))
                .matches(&p)
        };
        assert!(!f(CompareOp::Eq));
        assert!(f(CompareOp::Ne));
        assert!(!PersonFilter::Present(PersonField::DisplayName).matches(&p));
        assert!(PersonFilter::Present(PersonField::UserName).matches(&p));
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
        let work = EmailFilter::Compare(
            EmailField::Kind,
            CompareOp::Eq,
            FilterValue::Text("WORK".into()),
        );
        let value = EmailFilter::Compare(
            EmailField::Value,
            CompareOp::Eq,
            FilterValue::Text("A@B.example".into()),
        );
        let both = PersonFilter::AnyEmail(EmailFilter::And(Box::new(work), Box::new(value)));
        assert!(both.matches(&p));
        assert!(!PersonFilter::Not(Box::new(both)).matches(&p));
    }
}
