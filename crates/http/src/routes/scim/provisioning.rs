//! The user operations behind `/scim/v2/Users` and behind every Bulk and CSV
//! operation: one implementation of create, replace, patch and delete over the
//! ports, run synchronously inside a blocking call. The single-user handlers
//! and the Bulk runner both call these, so a rule holds the same way on every
//! path.

use actix_web::http::header::{self, HeaderMap};
use actix_web::http::StatusCode;
use chrono::Utc;
use equip_domain::ids::{OrganizationId, PersonId};
use equip_domain::person::Person;
use equip_domain::services::groups::Belonging;
use equip_domain::services::people;
use equip_scim::error::ScimType;
use equip_scim::patch::{apply_patch, PatchError, PatchOperation};
use equip_scim::user::{from_person, ScimUser};
use serde_json::Value;

use super::{bad, domain};
use crate::error::{Area, HttpError};
use crate::state::Ports;

/// The precondition of a write: `If-Match` of a request, or `version` of a
/// Bulk operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum IfMatch {
    /// No precondition: a concurrent change is retried on the new version.
    Absent,
    /// `*`: the resource must exist.
    Any,
    /// One of these entity tags, each its opaque text without `W/` and the
    /// quotes: a version (`3`), or a user's version and membership digest
    /// (`3.1f…`, [`equip_scim::user::user_tag`]).
    Tags(Vec<String>),
}

impl IfMatch {
    /// Parses entity tags (`W/"3"`, `"3"`, `*`, lists of them).
    pub(crate) fn parse(raw: &str) -> Self {
        let raw = raw.trim();
        if raw == "*" {
            return Self::Any;
        }
        Self::Tags(
            raw.split(',')
                .map(|t| {
                    let t = t.trim();
                    t.strip_prefix("W/")
                        .unwrap_or(t)
                        .trim_matches('"')
                        .to_owned()
                })
                .filter(|t| !t.is_empty())
                .collect(),
        )
    }

    /// The versions the tags name (unparseable tags name no version and
    /// never match). A user's tag may carry a digest of its groups after a
    /// `.` ([`equip_scim::user::user_tag`]): for a `user` the number before
    /// it is the version; a group's tags are plain versions.
    fn versions<'a>(tags: &'a [String], resource: &'a str) -> impl Iterator<Item = i64> + 'a {
        tags.iter().filter_map(move |t| {
            let version = match t.split_once('.') {
                Some((v, _)) if resource == "user" => v,
                Some(_) => return None,
                None => t.as_str(),
            };
            version.parse::<i64>().ok()
        })
    }

    /// The precondition in header `name` (`If-Match` / `If-None-Match`).
    pub(crate) fn from_header(headers: &HeaderMap, name: header::HeaderName) -> Self {
        match headers.get(name) {
            None => Self::Absent,
            Some(v) => Self::parse(v.to_str().unwrap_or("")),
        }
    }

    /// The precondition of a Bulk operation's `version`.
    pub(crate) fn from_version(version: Option<&str>) -> Self {
        version.map_or(Self::Absent, Self::parse)
    }

    /// Whether `current`, the version of a `resource` (`user`, `group`),
    /// satisfies a stated precondition: `Ok(false)` when there is none,
    /// `Ok(true)` when it holds, 412 when it does not.
    pub(crate) fn check(&self, current: i64, resource: &str) -> Result<bool, HttpError> {
        match self {
            Self::Absent => Ok(false),
            Self::Any => Ok(true),
            Self::Tags(t) if Self::versions(t, resource).any(|v| v == current) => Ok(true),
            Self::Tags(_) => Err(precondition_failed(resource)),
        }
    }

    /// Whether a `GET` with this `If-None-Match` is answered 304 for the
    /// current entity tag `current` (as shown: `W/"3"`).
    pub(crate) fn not_modified(&self, current: &str) -> bool {
        let opaque = current
            .strip_prefix("W/")
            .unwrap_or(current)
            .trim_matches('"');
        match self {
            Self::Any => true,
            Self::Tags(t) => t.iter().any(|x| x == opaque),
            Self::Absent => false,
        }
    }
}

/// 412: the stated version of the `resource` (`user`, `group`) is not the
/// stored one.
pub(crate) fn precondition_failed(resource: &str) -> HttpError {
    HttpError::new(
        Area::Scim,
        StatusCode::PRECONDITION_FAILED,
        "If-Match",
        format!("the {resource} was changed: its version no longer matches If-Match"),
    )
}

/// A PATCH error as a SCIM error with its `scimType`.
pub(crate) fn patch_error(e: PatchError) -> HttpError {
    let t = match e {
        PatchError::InvalidSyntax(_) => ScimType::InvalidSyntax,
        PatchError::InvalidPath(_) => ScimType::InvalidPath,
        PatchError::NoTarget(_) => ScimType::NoTarget,
        PatchError::Mutability(_) => ScimType::Mutability,
        PatchError::InvalidValue(_) => ScimType::InvalidValue,
    };
    bad(t, "Operations", e.to_string())
}

/// A user id from a path; a malformed one names no user: 404 (RFC 7644).
pub(crate) fn person_id(raw: &str) -> Result<PersonId, HttpError> {
    PersonId::parse(raw)
        .map_err(|_| HttpError::new(Area::Scim, StatusCode::NOT_FOUND, "id", "user not found"))
}

/// The person described by the User document `body`.
fn to_person(body: Value, org: OrganizationId, id: PersonId) -> Result<Person, HttpError> {
    let user = ScimUser::from_body(body).map_err(|e| {
        bad(
            ScimType::InvalidValue,
            e.attribute().unwrap_or("request"),
            format!("not a valid User: {e}"),
        )
    })?;
    user.into_person(org, id, Utc::now())
        .map_err(|e| bad(ScimType::InvalidValue, e.attribute(), e.to_string()))
}

/// Creates the user described by `body` (POST).
pub(crate) fn create_user(
    ports: &dyn Ports,
    org: OrganizationId,
    body: Value,
) -> Result<Person, HttpError> {
    let person = to_person(body, org, PersonId::new())?;
    people::create_person(ports, person, Utc::now()).map_err(domain)
}

/// [`create_user`] for several bodies, in order, one result each; the store
/// may write the people together ([`people::create_people`]).
pub(crate) fn create_users(
    ports: &dyn Ports,
    org: OrganizationId,
    bodies: Vec<Value>,
) -> Vec<Result<Person, HttpError>> {
    let converted: Vec<Result<Person, HttpError>> = bodies
        .into_iter()
        .map(|body| to_person(body, org, PersonId::new()))
        .collect();
    let valid: Vec<Person> = converted
        .iter()
        .filter_map(|p| p.as_ref().ok())
        .cloned()
        .collect();
    let mut created = people::create_people(ports, valid, &Utc::now).into_iter();
    converted
        .into_iter()
        .map(|person| {
            person?;
            match created.next() {
                Some(result) => result.map_err(domain),
                None => Err(domain(equip_domain::DomainError::Store(
                    equip_domain::StoreError::Backend("a create went unanswered".into()),
                ))),
            }
        })
        .collect()
}

/// Runs `attempt` (read, change, conditional write of a `resource`) until it
/// writes: `Ok(None)` is a concurrent change, tried again on the new
/// version; after five, 409.
pub(crate) fn retry_concurrent<T>(
    resource: &str,
    mut attempt: impl FnMut() -> Result<Option<T>, HttpError>,
) -> Result<T, HttpError> {
    for _ in 0..5 {
        if let Some(written) = attempt()? {
            return Ok(written);
        }
    }
    Err(HttpError::new(
        Area::Scim,
        StatusCode::CONFLICT,
        resource,
        format!("the {resource} is being changed concurrently; retry"),
    ))
}

/// The version a write must still find, for a precondition stated as
/// `if_match` on a `resource` whose stored version `current` reads: none
/// without tags; with tags, the stored one (412 when none of them names it).
pub(crate) fn expected_version(
    if_match: &IfMatch,
    resource: &str,
    current: impl FnOnce() -> Result<i64, HttpError>,
) -> Result<Option<i64>, HttpError> {
    match if_match {
        // `*` needs the resource to exist, which every write checks.
        IfMatch::Absent | IfMatch::Any => Ok(None),
        IfMatch::Tags(_) => {
            let current = current()?;
            if_match.check(current, resource)?;
            Ok(Some(current))
        }
    }
}

/// Reads, changes with `change`, and writes the user; without a precondition
/// a concurrent change is retried on the new version, with one the answer is
/// 412.
fn update(
    ports: &dyn Ports,
    org: OrganizationId,
    id: PersonId,
    if_match: &IfMatch,
    change: impl Fn(&Person) -> Result<Person, HttpError>,
) -> Result<Person, HttpError> {
    retry_concurrent("user", || {
        let cur = people::get_person(ports, org, id).map_err(domain)?;
        let conditional = if_match.check(cur.version, "user")?;
        let replacement = change(&cur)?;
        match people::replace_person(ports, &cur, replacement, Utc::now()).map_err(domain)? {
            Ok(p) => Ok(Some(p)),
            Err(_) if conditional => Err(precondition_failed("user")),
            Err(_) => Ok(None),
        }
    })
}

/// Replaces the user `id` with the User document `body` (PUT).
pub(crate) fn replace_user(
    ports: &dyn Ports,
    org: OrganizationId,
    id: PersonId,
    body: &Value,
    if_match: &IfMatch,
) -> Result<Person, HttpError> {
    update(ports, org, id, if_match, |_| {
        to_person(body.clone(), org, id)
    })
}

/// Applies PATCH operations to the user `id` (`base` is the `meta.location`
/// base of the document the operations apply to).
pub(crate) fn patch_user(
    ports: &dyn Ports,
    org: OrganizationId,
    id: PersonId,
    ops: &[PatchOperation],
    base: &str,
    if_match: &IfMatch,
) -> Result<Person, HttpError> {
    update(ports, org, id, if_match, |cur| {
        // The document the operations apply to; its read-only groups and
        // effective package would be ignored or refused (`mutability`), so
        // they are not read for it.
        let mut doc = from_person(cur, &Belonging::default(), base);
        apply_patch(&mut doc, ops).map_err(patch_error)?;
        to_person(doc, org, id)
    })
}

/// Starts offboarding the user `id` (DELETE). With versions stated
/// (`If-Match`), the stored one must be any of them, as for PUT and PATCH.
pub(crate) fn delete_user(
    ports: &dyn Ports,
    org: OrganizationId,
    id: PersonId,
    if_match: &IfMatch,
) -> Result<(), HttpError> {
    // Offboarded only if still at the version that matched.
    let expected = expected_version(if_match, "user", || {
        Ok(people::get_person(ports, org, id).map_err(domain)?.version)
    })?;
    match people::offboard_person(ports, org, id, expected, Utc::now()).map_err(domain)? {
        Ok(_) => Ok(()),
        Err(_) => Err(precondition_failed("user")),
    }
}

#[cfg(test)]
mod tests {
    use super::{retry_concurrent, IfMatch};
    use actix_web::http::StatusCode;

    #[test]
    fn a_concurrent_change_is_tried_again_five_times_then_409() {
        let mut tries = 0;
        let written = retry_concurrent("group", || {
            tries += 1;
            Ok((tries == 3).then_some("written"))
        });
        assert_eq!((written.ok(), tries), (Some("written"), 3));
        let mut tries = 0;
        let gave_up = retry_concurrent::<()>("group", || {
            tries += 1;
            Ok(None)
        });
        let err = gave_up.err().map(|e| e.status());
        assert_eq!((err, tries), (Some(StatusCode::CONFLICT), 5));
    }

    #[test]
    fn a_user_tag_matches_by_its_version_a_group_tag_only_as_a_plain_version() {
        let tagged = IfMatch::parse("W/\"3.00ff00ff00ff00ff\"");
        assert!(matches!(tagged.check(3, "user"), Ok(true)));
        assert!(tagged.check(4, "user").is_err());
        assert!(tagged.check(3, "group").is_err());
        let plain = IfMatch::parse("\"7\", W/\"3\"");
        assert!(matches!(plain.check(3, "group"), Ok(true)));
        assert!(matches!(plain.check(7, "user"), Ok(true)));
        assert!(matches!(IfMatch::parse("*").check(9, "group"), Ok(true)));
        assert!(IfMatch::parse("W/\"x\"").check(1, "user").is_err());
        // If-None-Match compares whole tags.
        assert!(tagged.not_modified("W/\"3.00ff00ff00ff00ff\""));
        assert!(!tagged.not_modified("W/\"3\""));
    }
}
