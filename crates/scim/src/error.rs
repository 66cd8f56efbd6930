//! The SCIM error response (RFC 7644 §3.12).

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
}
