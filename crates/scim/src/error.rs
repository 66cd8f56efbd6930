//! SCIM errors (RFC 7644 §3.12): the `scimType` values, the error body, and
//! [`ScimError`], what every operation of [`crate::provisioning`] fails with.

use std::fmt;

use equip_domain::{DomainError, StoreError};
use serde::Serialize;

use crate::schemas;

/// `scimType` values of RFC 7644 §3.12, Table 9.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScimType {
    /// The filter syntax was invalid or the attribute is not supported.
    InvalidFilter,
    /// Too many results.
    TooMany,
    /// A uniqueness constraint was violated.
    Uniqueness,
    /// An immutable or read-only attribute was modified.
    Mutability,
    /// The request body structure was invalid.
    InvalidSyntax,
    /// The path attribute was invalid or malformed.
    InvalidPath,
    /// The path did not yield an attribute that could be operated on.
    NoTarget,
    /// A required value was missing or a value was not compatible.
    InvalidValue,
    /// The SCIM protocol version is not supported.
    InvalidVers,
    /// The request cannot be completed for a sensitive attribute.
    Sensitive,
}

impl ScimType {
    /// The wire value.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InvalidFilter => "invalidFilter",
            Self::TooMany => "tooMany",
            Self::Uniqueness => "uniqueness",
            Self::Mutability => "mutability",
            Self::InvalidSyntax => "invalidSyntax",
            Self::InvalidPath => "invalidPath",
            Self::NoTarget => "noTarget",
            Self::InvalidValue => "invalidValue",
            Self::InvalidVers => "invalidVers",
            Self::Sensitive => "sensitive",
        }
    }
}

/// A SCIM error body: `schemas`, `status` (a string), optional `scimType`, `detail`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScimErrorBody {
    /// Always the Error message URN.
    pub schemas: [&'static str; 1],
    /// The HTTP status code as a string.
    pub status: String,
    /// Error type, where RFC 7644 defines one.
    #[serde(rename = "scimType", skip_serializing_if = "Option::is_none")]
    pub scim_type: Option<&'static str>,
    /// Human-readable description.
    pub detail: String,
}

impl ScimErrorBody {
    /// A body for `status` with an optional `scim_type`.
    pub fn new(status: u16, scim_type: Option<ScimType>, detail: impl Into<String>) -> Self {
        Self {
            schemas: [schemas::ERROR],
            status: status.to_string(),
            scim_type: scim_type.map(ScimType::as_str),
            detail: detail.into(),
        }
    }
}

/// A SCIM operation refused or failed: the status to answer, its `scimType`
/// where RFC 7644 defines one, what it is about (`source`: the attribute,
/// parameter or header, also shown by the API's error body) and the text for
/// the caller. A server-side failure carries a fixed text; its cause was
/// logged when the error was made ([`ScimError::from`] a [`DomainError`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScimError {
    status: u16,
    scim_type: Option<ScimType>,
    about: String,
    detail: String,
}

/// 499, "client closed request": what the request log shows when the caller
/// left before the work was done (nobody receives the answer).
pub const CLIENT_CLOSED_REQUEST: u16 = 499;

impl ScimError {
    /// `status` about `about` (an attribute, parameter or header).
    pub fn new(status: u16, about: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            status,
            scim_type: None,
            about: about.into(),
            detail: detail.into(),
        }
    }

    /// 400 of `scim_type` about `about`.
    pub fn bad(scim_type: ScimType, about: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(400, about, detail).with_scim_type(scim_type)
    }

    /// 404: the `resource` (`user`, `group`) does not exist in the caller's
    /// organization (a malformed id names none either).
    #[must_use]
    pub fn not_found(resource: &str) -> Self {
        Self::new(404, "id", format!("{resource} not found"))
    }

    /// 412: the stated version of the `resource` (`user`, `group`) is not
    /// the stored one.
    #[must_use]
    pub fn precondition_failed(resource: &str) -> Self {
        Self::new(
            412,
            "If-Match",
            format!("the {resource} was changed: its version no longer matches If-Match"),
        )
    }

    /// With `scim_type`.
    #[must_use]
    pub const fn with_scim_type(mut self, scim_type: ScimType) -> Self {
        self.scim_type = Some(scim_type);
        self
    }

    /// The status.
    #[must_use]
    pub const fn status(&self) -> u16 {
        self.status
    }

    /// The `scimType`, if any.
    #[must_use]
    pub const fn scim_type(&self) -> Option<ScimType> {
        self.scim_type
    }

    /// What the error is about: an attribute, parameter or header.
    #[must_use]
    pub fn about(&self) -> &str {
        &self.about
    }

    /// The text for the caller.
    #[must_use]
    pub fn detail(&self) -> &str {
        &self.detail
    }

    /// Whether the database was unavailable (503): a Bulk run counts these.
    #[must_use]
    pub const fn is_unavailable(&self) -> bool {
        self.status == 503
    }

    /// Whether the work was interrupted (its client gone, or its request's
    /// time limit reached) before this answer: nothing of it was written.
    #[must_use]
    pub const fn is_interrupted(&self) -> bool {
        self.status == CLIENT_CLOSED_REQUEST
    }

    /// The RFC 7644 error body (also the `response` of a failed Bulk
    /// operation).
    #[must_use]
    pub fn body(&self) -> ScimErrorBody {
        ScimErrorBody::new(self.status, self.scim_type, &self.detail)
    }
}

impl fmt::Display for ScimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.status, self.about, self.detail)
    }
}

impl std::error::Error for ScimError {}

/// The status of a domain error, naming its field: 400 (`invalidValue`),
/// 404, 409 (`uniqueness`), 410, 503 when the store is unavailable, 499 when
/// the caller left, 500 otherwise. A 5xx shows a fixed text; its cause goes
/// to the log only.
impl From<DomainError> for ScimError {
    fn from(err: DomainError) -> Self {
        match err {
            DomainError::Invalid { field, message } => {
                Self::bad(ScimType::InvalidValue, field, message)
            }
            DomainError::NotFound { entity, message } => Self::new(404, entity, message),
            DomainError::Conflict { entity, message } => {
                Self::new(409, entity, message).with_scim_type(ScimType::Uniqueness)
            }
            DomainError::Gone { field, message } => Self::new(410, field, message),
            DomainError::Store(StoreError::Unavailable(cause)) => {
                tracing::warn!("storage unavailable: {cause}");
                Self::new(
                    503,
                    "server",
                    "the service is temporarily unavailable; retry later",
                )
            }
            DomainError::Store(StoreError::Interrupted) => Self::new(
                CLIENT_CLOSED_REQUEST,
                "client",
                "the client closed the connection before the answer",
            ),
            DomainError::Store(other) => {
                tracing::error!("internal error: {other}");
                Self::new(500, "server", "internal server error")
            }
        }
    }
}

impl From<StoreError> for ScimError {
    fn from(err: StoreError) -> Self {
        DomainError::from(err).into()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn error_body_matches_rfc_7644_shape() {
        let body = ScimErrorBody::new(409, Some(ScimType::Uniqueness), "userName taken");
        let json = serde_json::to_value(&body).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"],
                "status": "409",
                "scimType": "uniqueness",
                "detail": "userName taken"
            })
        );
        let plain = serde_json::to_value(ScimErrorBody::new(401, None, "x")).unwrap();
        assert!(plain.get("scimType").is_none());
    }

    #[test]
    fn domain_errors_take_their_status_and_hide_server_causes() {
        let taken = ScimError::from(DomainError::conflict("userName", "taken"));
        assert_eq!(
            (taken.status(), taken.scim_type()),
            (409, Some(ScimType::Uniqueness))
        );
        let invalid = ScimError::from(DomainError::invalid("emails", "two primary"));
        assert_eq!(invalid.scim_type(), Some(ScimType::InvalidValue));
        assert_eq!(invalid.about(), "emails");
        let broken = ScimError::from(DomainError::Store(StoreError::Backend(
            "SELECT secret FROM x".into(),
        )));
        assert_eq!(broken.status(), 500);
        assert!(!broken.detail().contains("SELECT"));
        let down = ScimError::from(StoreError::Unavailable("pool timed out".into()));
        assert!(down.is_unavailable() && !down.detail().contains("pool"));
    }
}
