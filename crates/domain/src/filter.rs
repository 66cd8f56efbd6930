//! One boolean filter tree for every resource that can be listed with a
//! condition (people, their email addresses, groups, their members): a
//! [`Filter`] of `and` / `or` / `not` over leaves of a type per resource.
//!
//! What is written once here, for every resource:
//! - the tree and its one recursive walk, [`Filter::fold`], on which
//!   [`Filter::validate`] and the in-memory [`Filter::matches`] (the
//!   reference semantics the stores' SQL must agree with) are built;
//! - the condition on one field, [`Condition`] (`field op value`, `field
//!   present`), its check ([`Leaf::validate`]) and its evaluation
//!   ([`Condition::holds_with`]);
//! - the comparison of times as they are shown ([`shown_time_condition`],
//!   [`Filter::time_as_shown`]), the comparison operators ([`CompareOp`]) and
//!   values ([`FilterValue`]).
//!
//! A resource brings its leaves: an enum of its fields implementing
//! [`Field`], the field's value on the resource, and a leaf type (usually
//! [`Condition`] of its fields, plus a condition on a multi-valued attribute
//! as a nested [`Filter`] over that attribute's own leaves). Protocols
//! translate their query languages into the tree (`equip-scim`), storage
//! translates it into its own (`equip-persistence`, one SQL walk taking a
//! closure per leaf).

use chrono::{DateTime, NaiveDate, SubsecRound, TimeDelta, Utc};

use crate::error::DomainError;

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

impl CompareOp {
    /// Every operator, in the order above.
    pub const ALL: [Self; 9] = [
        Self::Eq,
        Self::Ne,
        Self::Co,
        Self::Sw,
        Self::Ew,
        Self::Gt,
        Self::Ge,
        Self::Lt,
        Self::Le,
    ];

    /// Whether the operator is a substring test (`co`, `sw`, `ew`).
    #[must_use]
    pub const fn is_substring(self) -> bool {
        matches!(self, Self::Co | Self::Sw | Self::Ew)
    }

    /// Whether the operator orders (`gt`, `ge`, `lt`, `le`).
    #[must_use]
    pub const fn is_ordering(self) -> bool {
        matches!(self, Self::Gt | Self::Ge | Self::Lt | Self::Le)
    }
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

impl FieldKind {
    /// Whether values of the kind are texts.
    #[must_use]
    pub const fn is_text(self) -> bool {
        matches!(self, Self::Text { .. } | Self::Identifier)
    }
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

impl FilterValue {
    /// Whether `op` compares a field of `kind` with this value: the value is
    /// of the field's type, and substring operators apply to texts only.
    /// Otherwise the comparison holds only for `ne` on an absent field
    /// ([`Condition::holds_with`]).
    #[must_use]
    pub const fn fits(&self, kind: FieldKind, op: CompareOp) -> bool {
        match (kind, self) {
            (FieldKind::Text { .. } | FieldKind::Identifier, Self::Text(_)) => true,
            (FieldKind::Time, Self::Time(_))
            | (FieldKind::Bool, Self::Bool(_))
            | (FieldKind::Date, Self::Date(_)) => !op.is_substring(),
            _ => false,
        }
    }
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

/// A boolean condition over leaves of type `L`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter<L> {
    /// A leaf: a condition of the resource.
    Leaf(L),
    /// Both hold.
    And(Box<Filter<L>>, Box<Filter<L>>),
    /// Either holds.
    Or(Box<Filter<L>>, Box<Filter<L>>),
    /// Does not hold.
    Not(Box<Filter<L>>),
}

/// A node of a [`Filter`] whose operands are already folded into `T`
/// ([`Filter::fold`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Node<T> {
    /// `a and b`.
    And(T, T),
    /// `a or b`.
    Or(T, T),
    /// `not a`.
    Not(T),
}

/// A leaf that can be checked before it is used.
pub trait Leaf {
    /// Checks the leaf's values (no NUL in a text: [`check_filter_text`]).
    ///
    /// # Errors
    /// [`DomainError::Invalid`] (`filter`).
    fn validate(&self) -> Result<(), DomainError>;
}

/// A leaf that holds or not of a subject of type `S` (the in-memory
/// reference semantics).
pub trait Holds<S: ?Sized> {
    /// Whether the condition holds of `subject`.
    fn holds(&self, subject: &S) -> bool;
}

impl<L> Filter<L> {
    /// `a and b`.
    #[must_use]
    pub fn and(a: Self, b: Self) -> Self {
        Self::And(Box::new(a), Box::new(b))
    }

    /// `a or b`.
    #[must_use]
    pub fn or(a: Self, b: Self) -> Self {
        Self::Or(Box::new(a), Box::new(b))
    }

    /// `not a`.
    #[must_use]
    pub fn negate(a: Self) -> Self {
        Self::Not(Box::new(a))
    }

    /// The leaf, when the filter is a single condition.
    #[must_use]
    pub const fn as_leaf(&self) -> Option<&L> {
        match self {
            Self::Leaf(l) => Some(l),
            _ => None,
        }
    }

    /// The one recursive walk of the tree: each leaf becomes a `T` by
    /// `leaf`, each `and` / `or` / `not` combines its operands' by `node`
    /// (left operand first).
    pub fn fold<T>(
        &self,
        leaf: &mut impl FnMut(&L) -> T,
        node: &mut impl FnMut(Node<T>) -> T,
    ) -> T {
        match self {
            Self::Leaf(l) => leaf(l),
            Self::And(a, b) => {
                let a = a.fold(leaf, node);
                let b = b.fold(leaf, node);
                node(Node::And(a, b))
            }
            Self::Or(a, b) => {
                let a = a.fold(leaf, node);
                let b = b.fold(leaf, node);
                node(Node::Or(a, b))
            }
            Self::Not(a) => {
                let a = a.fold(leaf, node);
                node(Node::Not(a))
            }
        }
    }

    /// Whether the filter holds when each leaf holds as `leaf` says.
    pub fn eval(&self, mut leaf: impl FnMut(&L) -> bool) -> bool {
        self.fold(&mut leaf, &mut |n| match n {
            Node::And(a, b) => a && b,
            Node::Or(a, b) => a || b,
            Node::Not(a) => !a,
        })
    }

    /// Checks every leaf with `check`; the first error (left to right).
    ///
    /// # Errors
    /// The first leaf's error.
    pub fn check_leaves<E>(&self, mut check: impl FnMut(&L) -> Result<(), E>) -> Result<(), E> {
        self.fold(&mut check, &mut |n| match n {
            Node::And(a, b) | Node::Or(a, b) => a.and(b),
            Node::Not(a) => a,
        })
    }

    /// Checks every leaf ([`Leaf::validate`]).
    ///
    /// # Errors
    /// [`DomainError::Invalid`] (`filter`).
    pub fn validate(&self) -> Result<(), DomainError>
    where
        L: Leaf,
    {
        self.check_leaves(Leaf::validate)
    }

    /// Whether `subject` satisfies the condition (the reference semantics:
    /// the in-memory stores use it, the SQL must agree).
    pub fn matches<S: ?Sized>(&self, subject: &S) -> bool
    where
        L: Holds<S>,
    {
        self.eval(|l| l.holds(subject))
    }

    /// `field op value`, as a leaf of this filter.
    #[must_use]
    pub fn compare<F>(field: F, op: CompareOp, value: FilterValue) -> Self
    where
        L: From<Condition<F>>,
    {
        Self::Leaf(Condition::Compare(field, op, value).into())
    }

    /// `field present`, as a leaf of this filter.
    #[must_use]
    pub fn present<F>(field: F) -> Self
    where
        L: From<Condition<F>>,
    {
        Self::Leaf(Condition::Present(field).into())
    }

    /// `field op given` on a time field whose values are shown with `digits`
    /// fractional digits of a second ([`shown_time_condition`]): one or two
    /// comparisons of the stored time.
    #[must_use]
    pub fn time_as_shown<F: Copy>(
        field: F,
        op: CompareOp,
        given: DateTime<Utc>,
        digits: u16,
    ) -> Self
    where
        L: From<Condition<F>>,
    {
        shown_time_condition(op, given, digits).build(
            |op, v| Self::compare(field, op, v),
            Self::and,
            Self::or,
        )
    }
}

/// A field of a resource that a filter can name.
pub trait Field: Copy {
    /// How the field's values compare.
    fn kind(self) -> FieldKind;
}

/// A condition on one field: the leaf every resource's filter is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition<F> {
    /// `field op value`. An absent field never matches, except with `ne`.
    Compare(F, CompareOp, FilterValue),
    /// The field has a value.
    Present(F),
}

impl<F: Copy> Condition<F> {
    /// The field the condition is on.
    #[must_use]
    pub const fn field(&self) -> F {
        match self {
            Self::Compare(f, ..) | Self::Present(f) => *f,
        }
    }
}

impl<F: Field> Condition<F> {
    /// Whether the condition holds when the field's value is what `value`
    /// gives (`None`: absent).
    pub fn holds_with(&self, value: impl FnOnce(F) -> Option<FilterValue>) -> bool {
        match self {
            Self::Compare(f, op, wanted) => compare(f.kind(), value(*f), *op, wanted),
            Self::Present(f) => value(*f).is_some(),
        }
    }
}

impl<F> Leaf for Condition<F> {
    fn validate(&self) -> Result<(), DomainError> {
        match self {
            Self::Compare(_, _, FilterValue::Text(s)) => check_filter_text(s),
            Self::Compare(..) | Self::Present(_) => Ok(()),
        }
    }
}

/// Whether a field of `kind` whose value is `actual` (`None`: absent)
/// compares by `op` with `wanted`: texts in their folded forms
/// ([`fold_text`]); a value of another type than the field's matches nothing;
/// an absent field matches only `ne`.
#[must_use]
pub fn compare(
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A resource of two fields, as a third resource type would bring.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Thing {
        Name,
        At,
    }

    impl Field for Thing {
        fn kind(self) -> FieldKind {
            match self {
                Self::Name => FieldKind::Text { case_exact: false },
                Self::At => FieldKind::Time,
            }
        }
    }

    struct Row {
        name: Option<&'static str>,
        at: DateTime<Utc>,
    }

    impl Holds<Row> for Condition<Thing> {
        fn holds(&self, row: &Row) -> bool {
            self.holds_with(|f| match f {
                Thing::Name => row.name.map(|s| FilterValue::Text(s.into())),
                Thing::At => Some(FilterValue::Time(row.at)),
            })
        }
    }

    type ThingFilter = Filter<Condition<Thing>>;

    fn name(op: CompareOp, v: &str) -> ThingFilter {
        Filter::compare(Thing::Name, op, FilterValue::Text(v.into()))
    }

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn and_or_not_combine_the_leaves() {
        let row = Row {
            name: Some("Ada"),
            at: at("2026-11-25T10:00:00Z"),
        };
        let yes = name(CompareOp::Eq, "ADA");
        let no = name(CompareOp::Sw, "b");
        assert!(yes.matches(&row) && !no.matches(&row));
        assert!(!Filter::and(yes.clone(), no.clone()).matches(&row));
        assert!(Filter::or(no.clone(), yes.clone()).matches(&row));
        assert!(Filter::negate(no.clone()).matches(&row));
        assert!(!Filter::negate(Filter::or(no, yes)).matches(&row));
    }

    #[test]
    fn an_absent_field_matches_only_ne_and_is_not_present() {
        let row = Row {
            name: None,
            at: at("2026-11-25T10:00:00Z"),
        };
        for op in CompareOp::ALL {
            assert_eq!(name(op, "x").matches(&row), op == CompareOp::Ne, "{op:?}");
        }
        assert!(!ThingFilter::present(Thing::Name).matches(&row));
        assert!(ThingFilter::present(Thing::At).matches(&row));
    }

    #[test]
    fn a_value_of_another_type_matches_nothing() {
        let row = Row {
            name: Some("Ada"),
            at: at("2026-11-25T10:00:00Z"),
        };
        for op in CompareOp::ALL {
            let f = ThingFilter::compare(Thing::Name, op, FilterValue::Bool(true));
            assert!(!f.matches(&row), "{op:?}");
            assert!(!FilterValue::Bool(true).fits(Thing::Name.kind(), op));
        }
        assert!(!FilterValue::Time(row.at).fits(FieldKind::Time, CompareOp::Co));
        assert!(FilterValue::Time(row.at).fits(FieldKind::Time, CompareOp::Le));
    }

    #[test]
    fn validate_refuses_nul_anywhere_in_the_tree() {
        let bad = name(CompareOp::Eq, "a\0b");
        let ok = name(CompareOp::Eq, "ab");
        assert!(ok.validate().is_ok());
        assert!(Filter::negate(Filter::and(ok.clone(), bad.clone()))
            .validate()
            .is_err());
        assert!(Filter::or(bad, ok).validate().is_err());
    }

    #[test]
    fn fold_visits_leaves_left_to_right() {
        let f = Filter::and(
            name(CompareOp::Eq, "a"),
            Filter::negate(Filter::or(
                name(CompareOp::Eq, "b"),
                name(CompareOp::Eq, "c"),
            )),
        );
        let printed = f.fold(
            &mut |c| match c {
                Condition::Compare(_, _, FilterValue::Text(s)) => s.clone(),
                _ => String::new(),
            },
            &mut |n| match n {
                Node::And(a, b) => format!("({a} and {b})"),
                Node::Or(a, b) => format!("({a} or {b})"),
                Node::Not(a) => format!("not {a}"),
            },
        );
        assert_eq!(printed, "(a and not (b or c))");
        assert_eq!(f.as_leaf(), None);
        assert!(name(CompareOp::Eq, "a").as_leaf().is_some());
    }

    #[test]
    fn times_compare_as_shown_on_any_resource() {
        let row = Row {
            name: None,
            at: at("2026-11-25T10:00:00.123456Z"),
        };
        let shown = at("2026-11-25T10:00:00.123Z");
        let holds = |op| ThingFilter::time_as_shown(Thing::At, op, shown, 3).matches(&row);
        assert!(holds(CompareOp::Eq) && holds(CompareOp::Ge) && holds(CompareOp::Le));
        assert!(!holds(CompareOp::Ne) && !holds(CompareOp::Gt) && !holds(CompareOp::Lt));
        // Two comparisons for eq, one for gt.
        assert!(matches!(
            ThingFilter::time_as_shown(Thing::At, CompareOp::Eq, shown, 3),
            Filter::And(..)
        ));
        assert!(matches!(
            ThingFilter::time_as_shown(Thing::At, CompareOp::Gt, shown, 3),
            Filter::Leaf(Condition::Compare(Thing::At, CompareOp::Ge, _))
        ));
    }
}
