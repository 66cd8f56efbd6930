//! What a resource's `meta` shows and its links are made of, for users and
//! groups alike: times, versions (entity tags) and locations.

use chrono::{DateTime, SecondsFormat, Utc};
use equip_domain::ids::{GroupId, PersonId};

/// A time as SCIM shows it (`meta.created`, `meta.lastModified`): RFC 3339
/// in UTC with milliseconds.
pub(crate) fn timestamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The fractional digits of a second [`timestamp`] shows (milliseconds):
/// filters on `meta.created` and `meta.lastModified` compare stored times at
/// this precision, so the value a client was shown matches.
pub(crate) const TIMESTAMP_DIGITS: u16 = 3;

#[cfg(test)]
#[test]
fn timestamps_show_timestamp_digits() {
    let t = DateTime::parse_from_rfc3339("2026-01-02T03:04:05.678901Z")
        .map(|d| d.with_timezone(&Utc))
        .unwrap_or_default();
    let shown = timestamp(t);
    let fraction = shown.trim_end_matches('Z').rsplit('.').next().unwrap_or("");
    assert_eq!(fraction.len(), usize::from(TIMESTAMP_DIGITS), "{shown}");
}

/// The weak entity tag of a version, as `meta.version` and the `ETag`
/// header show it: `W/"<version>"`.
#[must_use]
pub fn version_tag(version: i64) -> String {
    format!("W/\"{version}\"")
}

/// The location of a user resource: `{base_url}/scim/v2/Users/{id}`.
#[must_use]
pub fn user_location(base_url: &str, id: PersonId) -> String {
    format!("{}/scim/v2/Users/{id}", base_url.trim_end_matches('/'))
}

/// The location of a group resource: `{base_url}/scim/v2/Groups/{id}`.
#[must_use]
pub fn group_location(base_url: &str, id: GroupId) -> String {
    format!("{}/scim/v2/Groups/{id}", base_url.trim_end_matches('/'))
}
