//! Query strings read into a `#[derive(Deserialize)]` parameter type (see
//! [`crate::inventory_query`]), whose fields are texts: `Option<String>` for a
//! parameter given at most once, `Vec<String>` (with `#[serde(default)]`) for
//! one that may repeat (`?a=X&a=Y`). The values are validated by the domain,
//! which names the parameter at fault; this reader refuses what comes before:
//!
//! - a query string that is not form-encoded UTF-8;
//! - a name or value holding a NUL character (PostgreSQL cannot store one,
//!   so no stored value has one: refused on every backend alike);
//! - a name the type does not have (with `#[serde(deny_unknown_fields)]`:
//!   a misspelt filter is refused, not silently ignored);
//! - a second value of a single-valued parameter.
//!
//! The pairs are grouped by name in the order each name first appears, and
//! each name's values are checked in order; with faults in several
//! parameters, the first of those names is the one answered.

use std::collections::HashMap;
use std::fmt;

use serde::de::value::StrDeserializer;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use serde::forward_to_deserialize_any;

/// Why a query string is refused before its values are validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryError {
    /// Not a form-encoded UTF-8 query string (serde_urlencoded's reason).
    Malformed(String),
    /// A NUL character in the named parameter's value, or in a name (`None`).
    Nul(Option<String>),
    /// No parameter of that name.
    Unknown(String),
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
            | Self::Unknown(name)
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
            Self::Unknown(name) => write!(f, "unknown query parameter '{name}'"),
            Self::Repeated(name) => write!(f, "{name} may be given only once"),
            Self::Missing(name) => write!(f, "{name} is required"),
            Self::Invalid { name, message } => write!(f, "{name}: {message}"),
        }
    }
}

impl std::error::Error for QueryError {}

impl de::Error for QueryError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        // The parameter is filled in by the value's reader (`Params`).
        Self::Invalid {
            name: String::new(),
            message: msg.to_string(),
        }
    }

    fn unknown_field(field: &str, _expected: &'static [&'static str]) -> Self {
        Self::Unknown(field.to_owned())
    }

    fn missing_field(field: &'static str) -> Self {
        Self::Missing(field.to_owned())
    }

    fn duplicate_field(field: &'static str) -> Self {
        Self::Repeated(field.to_owned())
    }
}

/// Reads a raw query string (without the `?`) as a `T`.
///
/// # Errors
/// [`QueryError`], naming the parameter at fault.
pub fn from_query<T: DeserializeOwned>(query: &str) -> Result<T, QueryError> {
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(query).map_err(|e| QueryError::Malformed(e.to_string()))?;
    from_pairs(pairs)
}

/// Reads decoded `name=value` pairs, in the order of the query string, as a `T`.
///
/// # Errors
/// [`QueryError`], naming the parameter at fault.
pub fn from_pairs<T: DeserializeOwned>(
    pairs: impl IntoIterator<Item = (String, String)>,
) -> Result<T, QueryError> {
    let mut grouped: Vec<(String, Vec<String>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (name, value) in pairs {
        match index.get(&name) {
            Some(&at) => grouped[at].1.push(value),
            None => {
                index.insert(name.clone(), grouped.len());
                grouped.push((name, vec![value]));
            }
        }
    }
    T::deserialize(Params {
        entries: grouped.into_iter(),
        current: None,
    })
}

fn has_nul(text: &str) -> bool {
    text.contains('\0')
}

/// The grouped pairs, as a map from name to values.
struct Params {
    entries: std::vec::IntoIter<(String, Vec<String>)>,
    current: Option<(String, Vec<String>)>,
}

impl<'de> de::Deserializer<'de> for Params {
    type Error = QueryError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        visitor.visit_map(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> MapAccess<'de> for Params {
    type Error = QueryError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, QueryError> {
        let Some((name, values)) = self.entries.next() else {
            return Ok(None);
        };
        if has_nul(&name) {
            return Err(QueryError::Nul(None));
        }
        if values.first().is_some_and(|v| has_nul(v)) {
            return Err(QueryError::Nul(Some(name)));
        }
        let key: StrDeserializer<'_, QueryError> = name.as_str().into_deserializer();
        let key = seed.deserialize(key)?;
        self.current = Some((name, values));
        Ok(Some(key))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, QueryError> {
        let (name, values) = self
            .current
            .take()
            .ok_or_else(|| de::Error::custom("a value without its name"))?;
        let named = name.clone();
        seed.deserialize(Values { name, values })
            .map_err(|e| match e {
                QueryError::Invalid { name, message } if name.is_empty() => QueryError::Invalid {
                    name: named,
                    message,
                },
                other => other,
            })
    }
}

/// One parameter's values: a sequence to a list field, the only value to
/// any other.
struct Values {
    name: String,
    values: Vec<String>,
}

impl<'de> de::Deserializer<'de> for Values {
    type Error = QueryError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        let mut values = self.values.into_iter();
        let first = values.next().unwrap_or_default();
        match values.next() {
            Some(second) if has_nul(&second) => Err(QueryError::Nul(Some(self.name))),
            Some(_) => Err(QueryError::Repeated(self.name)),
            None => visitor.visit_string(first),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        visitor.visit_some(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        visitor.visit_seq(List {
            name: self.name,
            values: self.values.into_iter(),
        })
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, QueryError> {
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct tuple
        tuple_struct map struct enum identifier
    }
}

/// A list parameter's values, in order.
struct List {
    name: String,
    values: std::vec::IntoIter<String>,
}

impl<'de> SeqAccess<'de> for List {
    type Error = QueryError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, QueryError> {
        match self.values.next() {
            None => Ok(None),
            Some(v) if has_nul(&v) => Err(QueryError::Nul(Some(self.name.clone()))),
            Some(v) => seed.deserialize(v.into_deserializer()).map(Some),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.values.len())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct Q {
        page: Option<String>,
        #[serde(default)]
        sku_ids: Vec<String>,
    }

    fn q(query: &str) -> Result<Q, QueryError> {
        from_query(query)
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
                "unknown query parameter 'deployStatus'".into()
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
            "a NUL is refused before the name is looked up, as before"
        );
    }

    #[test]
    fn a_value_of_another_type_is_named() {
        #[derive(Debug, Deserialize)]
        #[allow(dead_code)]
        struct N {
            n: u32,
        }
        let e = from_query::<N>("n=1").unwrap_err();
        assert_eq!(e.source(), "n");
        let e = from_query::<N>("").unwrap_err();
        assert_eq!(e, QueryError::Missing("n".into()));
    }
}
