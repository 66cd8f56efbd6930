//! SCIM Bulk (RFC 7644 §3.7): the request as equip accepts it, `bulkId`
//! references, and the BulkResponse.
//!
//! What a request must satisfy is checked here, before any operation runs:
//! the `BulkRequest` schema, at most [`MAX_OPERATIONS`] operations, a known
//! method per operation, `bulkId` present on every POST and unique in the
//! request, `data` where the method needs it. Running the operations is the
//! web layer's job: it sends each one through the same code as the single-user
//! endpoints, in order, each atomic on its own.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use crate::error::{ScimErrorBody, ScimType};
use crate::schemas;

/// Most operations in one Bulk request (advertised in `ServiceProviderConfig`).
pub const MAX_OPERATIONS: usize = 1_000;
/// Largest Bulk request body in bytes (advertised in `ServiceProviderConfig`).
pub const MAX_PAYLOAD_SIZE: usize = 1024 * 1024;

/// The prefix of a reference to the resource created by another operation.
const BULK_ID_PREFIX: &str = "bulkId:";

/// The HTTP method of one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkMethod {
    /// Create (`path` is the resource type endpoint).
    Post,
    /// Replace.
    Put,
    /// Modify (RFC 7644 §3.5.2).
    Patch,
    /// Delete.
    Delete,
}

impl BulkMethod {
    /// The method as the response names it.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Post => "POST",
            Self::Put => "PUT",
            Self::Patch => "PATCH",
            Self::Delete => "DELETE",
        }
    }

    /// The method named `raw` (case-insensitive, surrounding spaces ignored).
    #[must_use]
    pub fn parse(raw: &str) -> Option<Self> {
        [Self::Post, Self::Put, Self::Patch, Self::Delete]
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(raw.trim()))
    }
}

/// One operation of a Bulk request.
#[derive(Debug, Clone, PartialEq)]
pub struct BulkOperation {
    /// The method.
    pub method: BulkMethod,
    /// The client's transient id (required on POST).
    pub bulk_id: Option<String>,
    /// The resource path, e.g. `/Users`, `/Users/<id>`, `/Groups` or
    /// `/Groups/<id>` (`<id>` may be a `bulkId:` reference).
    pub path: String,
    /// The expected resource version (`If-Match` of the operation).
    pub version: Option<String>,
    /// The resource (POST, PUT) or the PatchOp message (PATCH).
    pub data: Option<Value>,
}

/// A validated Bulk request.
#[derive(Debug, Clone, PartialEq)]
pub struct BulkRequest {
    /// Stop after this many failed operations (`None`: run them all).
    pub fail_on_errors: Option<usize>,
    /// The operations, in request order.
    pub operations: Vec<BulkOperation>,
}

/// Why a Bulk request is refused as a whole (nothing of it ran).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BulkRequestError {
    /// The body is not a well-formed BulkRequest (400 `invalidSyntax`).
    #[error("{0}")]
    InvalidSyntax(String),
    /// A value is not acceptable (400 `invalidValue`).
    #[error("{0}")]
    InvalidValue(String),
    /// More than [`MAX_OPERATIONS`] operations (413).
    #[error("the request holds {count} operations; at most {max} are accepted (maxOperations)")]
    TooManyOperations {
        /// Operations in the request.
        count: usize,
        /// The limit.
        max: usize,
    },
}

impl BulkRequestError {
    /// The HTTP status and `scimType` of the refusal.
    #[must_use]
    pub fn status(&self) -> (u16, Option<ScimType>) {
        match self {
            Self::InvalidSyntax(_) => (400, Some(ScimType::InvalidSyntax)),
            Self::InvalidValue(_) => (400, Some(ScimType::InvalidValue)),
            Self::TooManyOperations { .. } => (413, None),
        }
    }
}

/// A Bulk request refused whole: 400 / 413 about `Operations`.
impl From<BulkRequestError> for crate::error::ScimError {
    fn from(e: BulkRequestError) -> Self {
        let (status, scim_type) = e.status();
        let err = Self::new(status, "Operations", e.to_string());
        match scim_type {
            Some(t) => err.with_scim_type(t),
            None => err,
        }
    }
}

fn syntax(message: impl Into<String>) -> BulkRequestError {
    BulkRequestError::InvalidSyntax(message.into())
}

/// The member of `object` named `name`, case-insensitively (RFC 7643 §2.1).
fn member<'a>(object: &'a serde_json::Map<String, Value>, name: &str) -> Option<&'a Value> {
    object
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
}

fn optional_string(
    op: &serde_json::Map<String, Value>,
    name: &str,
    index: usize,
) -> Result<Option<String>, BulkRequestError> {
    match member(op, name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(syntax(format!(
            "Operations[{index}].{name} must be a string"
        ))),
    }
}

impl BulkOperation {
    /// Validates the operation at `index` of a request: a known method,
    /// `bulkId` on POST (not empty), `path`, and `data` unless DELETE.
    ///
    /// # Errors
    /// [`BulkRequestError`] naming the problem.
    pub fn from_json(index: usize, op: Value) -> Result<Self, BulkRequestError> {
        let Value::Object(mut op) = op else {
            return Err(syntax(format!("Operations[{index}] must be an object")));
        };
        let method = optional_string(&op, "method", index)?
            .ok_or_else(|| syntax(format!("Operations[{index}].method is required")))?;
        let method = BulkMethod::parse(&method).ok_or_else(|| {
            syntax(format!(
                "Operations[{index}].method {method:?} is not one of POST, PUT, PATCH, DELETE"
            ))
        })?;
        let bulk_id = optional_string(&op, "bulkId", index)?;
        match &bulk_id {
            None if method == BulkMethod::Post => {
                return Err(syntax(format!(
                    "Operations[{index}].bulkId is required for POST"
                )))
            }
            Some(id) if id.is_empty() => {
                return Err(syntax(format!("Operations[{index}].bulkId is empty")))
            }
            _ => {}
        }
        let path = optional_string(&op, "path", index)?
            .ok_or_else(|| syntax(format!("Operations[{index}].path is required")))?;
        let version = optional_string(&op, "version", index)?;
        let data_key = op.keys().find(|k| k.eq_ignore_ascii_case("data")).cloned();
        let data = data_key
            .and_then(|k| op.remove(&k))
            .filter(|d| !d.is_null());
        if data.is_none() && method != BulkMethod::Delete {
            return Err(syntax(format!(
                "Operations[{index}].data is required for {}",
                method.as_str()
            )));
        }
        Ok(Self {
            method,
            bulk_id,
            path,
            version,
            data,
        })
    }
}

impl BulkRequest {
    /// Validates `body` as a BulkRequest (see the module documentation).
    ///
    /// # Errors
    /// [`BulkRequestError`] naming the first problem.
    pub fn parse(body: Value) -> Result<Self, BulkRequestError> {
        let Value::Object(mut body) = body else {
            return Err(syntax("the body must be a BulkRequest object"));
        };
        let has_schema = member(&body, "schemas")
            .and_then(Value::as_array)
            .is_some_and(|s| s.iter().any(|u| u.as_str() == Some(schemas::BULK_REQUEST)));
        if !has_schema {
            return Err(syntax(format!(
                "schemas must hold {}",
                schemas::BULK_REQUEST
            )));
        }
        let fail_on_errors = match member(&body, "failOnErrors") {
            None | Some(Value::Null) => None,
            Some(v) => match v.as_u64() {
                Some(n) if n >= 1 => Some(usize::try_from(n).unwrap_or(usize::MAX)),
                _ => {
                    return Err(BulkRequestError::InvalidValue(
                        "failOnErrors must be an integer of at least 1".into(),
                    ))
                }
            },
        };
        let key = body
            .keys()
            .find(|k| k.eq_ignore_ascii_case("Operations"))
            .cloned()
            .ok_or_else(|| syntax("Operations is required"))?;
        let Some(Value::Array(raw)) = body.remove(&key) else {
            return Err(syntax("Operations must be an array"));
        };
        if raw.len() > MAX_OPERATIONS {
            return Err(BulkRequestError::TooManyOperations {
                count: raw.len(),
                max: MAX_OPERATIONS,
            });
        }
        let mut seen = HashSet::new();
        let mut operations = Vec::with_capacity(raw.len());
        for (index, op) in raw.into_iter().enumerate() {
            let op = BulkOperation::from_json(index, op)?;
            if let Some(id) = &op.bulk_id {
                if !seen.insert(id.clone()) {
                    return Err(BulkRequestError::InvalidValue(format!(
                        "Operations[{index}].bulkId {id:?} is used twice in the request"
                    )));
                }
            }
            operations.push(op);
        }
        Ok(Self {
            fail_on_errors,
            operations,
        })
    }
}

/// What an operation's (resolved) path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkTarget<'a> {
    /// `/Users`: the endpoint a POST creates users under.
    Users,
    /// `/Users/<id>`: one user.
    User(&'a str),
    /// `/Groups`: the endpoint a POST creates groups under.
    Groups,
    /// `/Groups/<id>`: one group.
    Group(&'a str),
}

impl<'a> BulkTarget<'a> {
    /// Parses `/Users`, `/Users/<id>`, `/Groups` or `/Groups/<id>` (the
    /// leading `/` optional, the resource type matched case-insensitively);
    /// `None` for anything else.
    #[must_use]
    pub fn parse(path: &'a str) -> Option<Self> {
        let path = path.trim();
        let path = path.strip_prefix('/').unwrap_or(path);
        let (kind, rest) = match path.find('/') {
            Some(at) => (&path[..at], &path[at..]),
            None => (path, ""),
        };
        let users = if kind.eq_ignore_ascii_case("Users") {
            true
        } else if kind.eq_ignore_ascii_case("Groups") {
            false
        } else {
            return None;
        };
        match rest.trim_end_matches('/') {
            "" if users => Some(Self::Users),
            "" => Some(Self::Groups),
            id => id
                .strip_prefix('/')
                .filter(|id| !id.is_empty() && !id.contains('/'))
                .map(|id| {
                    if users {
                        Self::User(id)
                    } else {
                        Self::Group(id)
                    }
                }),
        }
    }
}

/// A `bulkId:` reference that names no resource created earlier in the request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bulkId:{0} does not name a resource created by an earlier operation of this request")]
pub struct UnresolvedBulkId(pub String);

/// The created resources of a request so far, by `bulkId`, and the
/// replacement of `bulkId:<id>` references with their ids.
#[derive(Debug, Default, Clone)]
pub struct BulkIds {
    created: HashMap<String, String>,
}

impl BulkIds {
    /// Records that the operation `bulk_id` created the resource `id`.
    pub fn record(&mut self, bulk_id: &str, id: String) {
        self.created.insert(bulk_id.to_owned(), id);
    }

    /// `text` with every `bulkId:<id>` replaced by the resource id. A bulkId
    /// ends at whitespace, `"`, `'`, `]`, `)`, `,` or `/`.
    ///
    /// # Errors
    /// [`UnresolvedBulkId`] for a reference to an operation that has not
    /// created anything (later in the request, failed, or unknown).
    pub fn resolve_str(&self, text: &str) -> Result<String, UnresolvedBulkId> {
        if !text.contains(BULK_ID_PREFIX) {
            return Ok(text.to_owned());
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(BULK_ID_PREFIX) {
            out.push_str(&rest[..at]);
            let after = &rest[at + BULK_ID_PREFIX.len()..];
            let end = after
                .find(|c: char| c.is_whitespace() || "\"']),/".contains(c))
                .unwrap_or(after.len());
            let id = &after[..end];
            let resolved = self
                .created
                .get(id)
                .ok_or_else(|| UnresolvedBulkId(id.to_owned()))?;
            out.push_str(resolved);
            rest = &after[end..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// Replaces the references in every string of `value` (keys excluded).
    ///
    /// # Errors
    /// As [`BulkIds::resolve_str`].
    pub fn resolve_value(&self, value: &mut Value) -> Result<(), UnresolvedBulkId> {
        match value {
            Value::String(s) if s.contains(BULK_ID_PREFIX) => {
                *s = self.resolve_str(s)?;
                Ok(())
            }
            Value::Array(items) => items.iter_mut().try_for_each(|v| self.resolve_value(v)),
            Value::Object(map) => map.values_mut().try_for_each(|v| self.resolve_value(v)),
            _ => Ok(()),
        }
    }
}

/// Whether any string of `value` (keys excluded) holds a `bulkId:` reference.
#[must_use]
pub fn has_references(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains(BULK_ID_PREFIX),
        Value::Array(items) => items.iter().any(has_references),
        Value::Object(map) => map.values().any(has_references),
        _ => false,
    }
}

/// The outcome of one operation, as the BulkResponse lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BulkOperationResult {
    /// The operation's method.
    pub method: &'static str,
    /// The operation's `bulkId`, when it had one.
    #[serde(rename = "bulkId", skip_serializing_if = "Option::is_none")]
    pub bulk_id: Option<String>,
    /// The resource's URL (absent for a failed POST).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// The resource's version after the operation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The HTTP status of the operation, as a string (RFC 7644 §3.7.3).
    pub status: String,
    /// The SCIM error, when the operation failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<ScimErrorBody>,
}

impl BulkOperationResult {
    /// Whether the operation failed.
    #[must_use]
    pub fn failed(&self) -> bool {
        self.response.is_some()
    }
}

/// Writes a BulkResponse one operation at a time, so a response of 50,000
/// results is one growing string, never a tree of values.
#[derive(Debug)]
pub struct BulkResponseWriter {
    text: String,
    count: usize,
    errors: usize,
}

impl Default for BulkResponseWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl BulkResponseWriter {
    /// An empty response.
    #[must_use]
    pub fn new() -> Self {
        let mut text = String::with_capacity(256);
        let _ = write!(
            text,
            "{{\"schemas\":[\"{}\"],\"Operations\":[",
            schemas::BULK_RESPONSE
        );
        Self {
            text,
            count: 0,
            errors: 0,
        }
    }

    /// Appends `result`.
    pub fn push(&mut self, result: &BulkOperationResult) {
        if self.count > 0 {
            self.text.push(',');
        }
        self.count += 1;
        if result.failed() {
            self.errors += 1;
        }
        // Serializing plain strings and numbers into a String cannot fail.
        if let Ok(json) = serde_json::to_string(result) {
            self.text.push_str(&json);
        }
    }

    /// Operations written so far.
    #[must_use]
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether nothing was written.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Failed operations written so far.
    #[must_use]
    pub fn errors(&self) -> usize {
        self.errors
    }

    /// The response body.
    #[must_use]
    pub fn finish(mut self) -> String {
        self.text.push_str("]}");
        self.text
    }

    /// The response body of a run that stopped before its end (answered
    /// 503): the BulkResponse with every operation's result, which is also an
    /// RFC 7644 error (its `schemas` name both, with `status` and `detail`).
    #[must_use]
    pub fn finish_stopped(mut self, detail: &str) -> String {
        let head = format!("{{\"schemas\":[\"{}\"]", schemas::BULK_RESPONSE);
        let both = format!(
            "{{\"schemas\":[\"{}\",\"{}\"],\"status\":\"503\",\"detail\":{}",
            schemas::BULK_RESPONSE,
            schemas::ERROR,
            serde_json::Value::from(detail)
        );
        if let Some(rest) = self.text.strip_prefix(&head) {
            self.text = format!("{both}{rest}");
        }
        self.text.push_str("]}");
        self.text
    }
}

#[cfg(test)]
mod tests;
