//! Times as the API writes them: RFC 3339 in UTC with a `Z`, to the
//! millisecond (levels, reminders, webhooks, keys) or to the microsecond
//! (events, whose times order a feed). Used with `#[serde(serialize_with)]`;
//! the schema of a `DateTime<Utc>` field is a `date-time` string either way.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serializer;

/// `2026-11-27T13:22:09.123Z`.
///
/// # Errors
/// The serializer's.
pub fn millis<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&t.to_rfc3339_opts(SecondsFormat::Millis, true))
}

/// [`millis`], or `null`.
///
/// # Errors
/// The serializer's.
#[allow(clippy::ref_option)] // serde's `serialize_with` passes `&Option<T>`
pub fn millis_or_null<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => millis(t, s),
        None => s.serialize_none(),
    }
}

/// `2026-11-27T13:22:09.123456Z`.
///
/// # Errors
/// The serializer's.
pub fn micros<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&t.to_rfc3339_opts(SecondsFormat::Micros, true))
}

/// A time as items, return orders and orders show it: RFC 3339 in UTC with
/// a `Z`, with as many fractional digits as it has (none, 3, 6 or 9).
#[must_use]
pub fn auto(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}
