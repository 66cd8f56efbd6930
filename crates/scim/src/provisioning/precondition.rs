//! Preconditions of writes (`If-Match`, a Bulk operation's `version`) and of
//! reads (`If-None-Match`), and the retry of a write that met a concurrent
//! change.

use crate::error::ScimError;

/// The precondition of a write: `If-Match` of a request, or `version` of a
/// Bulk operation; or of a read: `If-None-Match`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IfMatch {
    /// No precondition: a concurrent change is retried on the new version.
    Absent,
    /// `*`: the resource must exist.
    Any,
    /// One of these entity tags, each its opaque text without `W/` and the
    /// quotes: a version (`3`), or a user's version and membership digest
    /// (`3.1f…`, [`crate::user::user_tag`]).
    Tags(Vec<String>),
}

impl IfMatch {
    /// Parses entity tags (`W/"3"`, `"3"`, `*`, lists of them). Lenient: an
    /// unquoted tag is read as its text (identity providers send both), and
    /// a tag that is no version of ours never matches.
    #[must_use]
    pub fn parse(raw: &str) -> Self {
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

    /// The precondition stated as `raw`, if any: an `If-Match` /
    /// `If-None-Match` header's text (a header that is not text is given as
    /// `""`: it names no version and never matches), or a Bulk operation's
    /// `version`.
    #[must_use]
    pub fn stated(raw: Option<&str>) -> Self {
        raw.map_or(Self::Absent, Self::parse)
    }

    /// The versions the tags name (unparseable tags name no version and
    /// never match). A user's tag may carry a digest of its groups after a
    /// `.` ([`crate::user::user_tag`]): for a `user` the number before
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

    /// Whether `current`, the version of a `resource` (`user`, `group`),
    /// satisfies a stated precondition: `Ok(false)` when there is none,
    /// `Ok(true)` when it holds, 412 when it does not.
    ///
    /// # Errors
    /// 412 when tags are stated and none names `current`.
    pub fn check(&self, current: i64, resource: &str) -> Result<bool, ScimError> {
        match self {
            Self::Absent => Ok(false),
            Self::Any => Ok(true),
            Self::Tags(t) if Self::versions(t, resource).any(|v| v == current) => Ok(true),
            Self::Tags(_) => Err(ScimError::precondition_failed(resource)),
        }
    }

    /// Whether a `GET` with this `If-None-Match` is answered 304 for the
    /// current entity tag `current` (as shown: `W/"3"`).
    #[must_use]
    pub fn not_modified(&self, current: &str) -> bool {
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

    /// The version a write must still find, for this precondition on a
    /// `resource` whose stored version `current` reads: none without tags
    /// (`*` needs the resource to exist, which every write checks); with
    /// tags, the stored one.
    ///
    /// # Errors
    /// 412 when none of the tags names the stored version; `current`'s.
    pub fn expected_version(
        &self,
        resource: &str,
        current: impl FnOnce() -> Result<i64, ScimError>,
    ) -> Result<Option<i64>, ScimError> {
        match self {
            Self::Absent | Self::Any => Ok(None),
            Self::Tags(_) => {
                let current = current()?;
                self.check(current, resource)?;
                Ok(Some(current))
            }
        }
    }
}

/// How many times a write that met a concurrent change is tried.
pub const TRIES: usize = 5;

/// Runs `attempt` (read, change, conditional write of a `resource`) until it
/// writes: `Ok(None)` is a concurrent change, tried again on the new
/// version; after [`TRIES`], 409.
///
/// # Errors
/// `attempt`'s; 409 when every try met a concurrent change.
pub fn retry_concurrent<T>(
    resource: &str,
    mut attempt: impl FnMut() -> Result<Option<T>, ScimError>,
) -> Result<T, ScimError> {
    for _ in 0..TRIES {
        if let Some(written) = attempt()? {
            return Ok(written);
        }
    }
    Err(ScimError::new(
        409,
        resource,
        format!("the {resource} is being changed concurrently; retry"),
    ))
}

#[cfg(test)]
mod tests {
    use super::{retry_concurrent, IfMatch};

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
        assert_eq!((err, tries), (Some(409), 5));
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

    #[test]
    fn a_precondition_is_absent_only_when_nothing_is_stated() {
        assert_eq!(IfMatch::stated(None), IfMatch::Absent);
        // A header that was not text: stated, and naming no version.
        assert!(IfMatch::stated(Some("")).check(3, "user").is_err());
        assert!(matches!(
            IfMatch::stated(Some("W/\"3\"")).check(3, "user"),
            Ok(true)
        ));
    }

    #[test]
    fn a_write_expects_the_stored_version_only_when_tags_are_stated() {
        let stored = || Ok(4);
        assert_eq!(IfMatch::Absent.expected_version("user", stored), Ok(None));
        assert_eq!(IfMatch::Any.expected_version("user", stored), Ok(None));
        let tags = IfMatch::parse("W/\"4\"");
        assert_eq!(tags.expected_version("user", stored), Ok(Some(4)));
        let moved = IfMatch::parse("W/\"3\"").expected_version("user", stored);
        assert_eq!(moved.map_err(|e| e.status()), Err(412));
    }
}
