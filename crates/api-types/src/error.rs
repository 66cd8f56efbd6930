//! The error body of `/api/v1` (docs/api.md, "Errors"):
//! `{"errors": [{"detail", "source"}], "requestId"?}`.

use serde::Serialize;
use utoipa::ToSchema;

/// An `/api/v1` error answer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Error)]
pub struct ErrorBody<'a> {
    /// What is wrong (one entry).
    #[schema(min_items = 1)]
    pub errors: Vec<ErrorEntry<'a>>,
    /// On a 5xx answer: the request's id (as in its X-Request-Id header and
    /// on its log lines), for a report.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub request_id: Option<&'a str>,
}

/// One error: what is wrong and what it is about.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorEntry<'a> {
    /// What is wrong, for a person.
    pub detail: &'a str,
    /// The parameter, field or entity at fault (e.g. skuId, warehouse,
    /// authorization, request).
    pub source: &'a str,
}
