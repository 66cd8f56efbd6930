//! Query strings read into the parameter structs of this crate
//! (`#[derive(Deserialize, IntoParams)]`, one field per parameter), for every
//! operation that takes any: the inventory listing, the event feed, the
//! histories and a webhook's deliveries. The struct's `IntoParams` (what the
//! OpenAPI document lists) is what this reader takes, so the document and the
//! reader cannot disagree:
//!
//! - a query string that is not form-encoded UTF-8 is refused;
//! - a NUL character in a name or value is refused (PostgreSQL cannot store
//!   one, so no stored value has one: refused on every backend alike), before
//!   the name is looked up;
//! - a name the struct does not document is refused, with the names it does;
//! - a parameter documented as an array may repeat (`?a=X&a=Y`, values kept
//!   as given: the domain splits commas where a list takes them); any other
//!   given twice is refused.
//!
//! The pairs are checked in the order of the query string, so with faults in
//! several the first is the one answered. Values are texts; the domain
//! validates them and names the parameter at fault.

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use utoipa::openapi::path::ParameterIn;
use utoipa::openapi::{RefOr, Schema};
use utoipa::IntoParams;

use crate::read::{self, Fault};

/// Why a query string is refused before its values are validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryError {
    /// Not a form-encoded UTF-8 query string (serde_urlencoded's reason).
    Malformed(String),
    /// A NUL character in the named parameter's value, or in a name (`None`).
    Nul(Option<String>),
    /// No parameter of that name; the operation's parameters follow.
    Unknown {
        /// The name given.
        name: String,
        /// The names the operation documents, in the document's order.
        known: Vec<String>,
    },
    /// A single-valued parameter given a second time.
    Repeated(String),
    /// A required parameter is absent.
    Missing(String),
    /// A value the field's type does not take: the parameter and why.
    Invalid {
        /// The parameter.
        name: String,
        /// Why the value is refused.
        message: String,
    },
}

impl QueryError {
    /// What the error is about: the parameter, or `query` for the query
    /// string as a whole.
    #[must_use]
    pub fn source(&self) -> &str {
        match self {
            Self::Malformed(_) | Self::Nul(None) => "query",
            Self::Nul(Some(name))
            | Self::Unknown { name, .. }
            | Self::Repeated(name)
            | Self::Missing(name)
            | Self::Invalid { name, .. } => name,
        }
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Malformed(why) => write!(f, "malformed query string: {why}"),
            Self::Nul(_) => write!(f, "{} must not contain NUL characters", self.source()),
            Self::Unknown { name, known } => write!(
                f,
                "unknown query parameter '{name}'; known parameters: {}",
                known.join(", ")
            ),
            Self::Repeated(name) => write!(f, "{name} may be given only once"),
            Self::Missing(name) => write!(f, "{name} is required"),
            Self::Invalid { name, message } => write!(f, "{name}: {message}"),
        }
    }
}

impl std::error::Error for QueryError {}

/// Reads a raw query string (without the `?`) as a `T`.
///
/// # Errors
/// [`QueryError`], naming the parameter at fault.
pub fn read<T: DeserializeOwned + IntoParams>(query: &str) -> Result<T, QueryError> {
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(query).map_err(|e| QueryError::Malformed(e.to_string()))?;
    read_pairs(pairs)
}

/// Reads decoded `name=value` pairs, in the order of the query string, as a `T`.
///
/// # Errors
/// [`QueryError`], naming the parameter at fault.
pub fn read_pairs<T: DeserializeOwned + IntoParams>(
    pairs: impl IntoIterator<Item = (String, String)>,
) -> Result<T, QueryError> {
    let params = T::into_params(|| Some(ParameterIn::Query));
    let mut map = Map::new();
    for (name, value) in pairs {
        if name.contains('\0') {
            return Err(QueryError::Nul(None));
        }
        if value.contains('\0') {
            return Err(QueryError::Nul(Some(name)));
        }
        let Some(param) = params.iter().find(|p| p.name == name) else {
            let known = params.iter().map(|p| p.name.clone()).collect();
            return Err(QueryError::Unknown { name, known });
        };
        if matches!(param.schema, Some(RefOr::T(Schema::Array(_)))) {
            if let Value::Array(values) =
                map.entry(name).or_insert_with(|| Value::Array(Vec::new()))
            {
                values.push(Value::String(value));
            }
        } else if map.insert(name.clone(), Value::String(value)).is_some() {
            return Err(QueryError::Repeated(name));
        }
    }
    read::from_value(Value::Object(map)).map_err(|e| match e.fault {
        Fault::Missing => QueryError::Missing(e.path),
        Fault::Unknown { .. } => QueryError::Unknown {
            name: e.path,
            known: params.into_iter().map(|p| p.name).collect(),
        },
        Fault::Invalid(message) => QueryError::Invalid {
            name: e.path,
            message,
        },
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, IntoParams, PartialEq)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct Q {
        page: Option<String>,
        #[serde(default)]
        sku_ids: Vec<String>,
    }

    fn q(query: &str) -> Result<Q, QueryError> {
        read(query)
    }

    #[test]
    fn singles_once_and_lists_repeated() {
        assert_eq!(
            q("").unwrap(),
            Q {
                page: None,
                sku_ids: vec![]
            }
        );
        let got = q("skuIds=a&page=2&skuIds=b%2Cc&skuIds=").unwrap();
        assert_eq!(got.page.as_deref(), Some("2"));
        assert_eq!(
            got.sku_ids,
            ["a", "b,c", ""],
            "values as given; the domain splits"
        );
        assert_eq!(q("page=").unwrap().page.as_deref(), Some(""));
    }

    #[test]
    fn refusals_name_the_parameter() {
        let refused = |query: &str| {
            let e = q(query).unwrap_err();
            (e.source().to_owned(), e.to_string())
        };
        assert_eq!(
            refused("deployStatus=X"),
            (
                "deployStatus".into(),
                "unknown query parameter 'deployStatus'; known parameters: page, skuIds".into()
            )
        );
        assert_eq!(refused("PAGE=1").0, "PAGE", "names are case-sensitive");
        assert_eq!(
            refused("page=1&skuIds=a&page=2"),
            ("page".into(), "page may be given only once".into())
        );
        assert_eq!(
            refused("page=a%00b"),
            ("page".into(), "page must not contain NUL characters".into())
        );
        assert_eq!(refused("skuIds=a&skuIds=%00").0, "skuIds");
        assert_eq!(refused("page=1&page=%00").0, "page");
        assert_eq!(refused("x%00=1").0, "query");
        assert_eq!(
            refused("x=%00").1,
            "x must not contain NUL characters",
            "a NUL is refused before the name is looked up"
        );
    }

    #[test]
    fn a_required_parameter_is_named() {
        #[derive(Debug, Deserialize, IntoParams)]
        #[allow(dead_code)]
        struct N {
            n: String,
        }
        let e = read::<N>("").unwrap_err();
        assert_eq!(e, QueryError::Missing("n".into()));
        assert_eq!(e.to_string(), "n is required");
    }
}
