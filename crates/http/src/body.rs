//! Reading JSON request bodies field by field, so that a bad value is answered
//! with a 400 naming that field.

use equip_api_types::read::{self, Fault};
use equip_domain::ids::InvalidId;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::HttpError;

/// Reads a JSON object body as the wire type `T` (a serde derive of
/// `equip_api_types`, which refuses unknown fields).
///
/// # Errors
/// 400 naming the field at fault by its path (`assignedTo.type`): a missing
/// field, an unknown one, a bad value, a text holding a NUL character; or
/// `request` when the body is not a JSON object.
pub fn parse<T: DeserializeOwned>(body: Value) -> Result<T, HttpError> {
    Fields::of(&body)?;
    read::from_value(body).map_err(|e| {
        let path = e.path.as_str();
        match e.fault {
            Fault::Missing => HttpError::invalid(path, format!("{path} is required")),
            Fault::Unknown { .. } => HttpError::invalid(path, format!("unknown field '{path}'")),
            Fault::Invalid(_) if path.is_empty() => {
                HttpError::invalid("request", "the body must be a JSON object")
            }
            Fault::Invalid(why) => HttpError::invalid(path, format!("{path}: {why}")),
        }
    })
}

/// A JSON object body.
pub struct Fields<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    /// The body as an object.
    ///
    /// # Errors
    /// 400 when the body is not a JSON object, or when a text in it holds a
    /// NUL character (PostgreSQL cannot store one; refused on every backend).
    pub fn of(body: &'a Value) -> Result<Self, HttpError> {
        let map = body
            .as_object()
            .ok_or_else(|| HttpError::invalid("request", "the body must be a JSON object"))?;
        if let Some((name, _)) = map.iter().find(|(k, v)| has_nul(k) || value_has_nul(v)) {
            let source = if has_nul(name) {
                "request"
            } else {
                name.as_str()
            };
            return Err(HttpError::invalid(
                source,
                format!("{source} must not contain NUL characters"),
            ));
        }
        Ok(Self { map })
    }

    fn required(&self, name: &str) -> Result<&'a Value, HttpError> {
        match self.map.get(name) {
            None | Some(Value::Null) => {
                Err(HttpError::invalid(name, format!("{name} is required")))
            }
            Some(v) => Ok(v),
        }
    }

    /// A required UUID-valued field parsed with `parse`.
    ///
    /// # Errors
    /// 400 naming the field when it is missing or not a UUID string.
    pub fn id<T>(
        &self,
        name: &str,
        parse: fn(&str) -> Result<T, InvalidId>,
    ) -> Result<T, HttpError> {
        let value = self.required(name)?;
        value
            .as_str()
            .and_then(|s| parse(s).ok())
            .ok_or_else(|| HttpError::invalid(name, format!("{name} must be a UUID string")))
    }

    /// A required 32-bit integer field.
    ///
    /// # Errors
    /// 400 naming the field when it is missing or not an integer in range.
    pub fn i32(&self, name: &str) -> Result<i32, HttpError> {
        let value = self.required(name)?;
        value
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .ok_or_else(|| HttpError::invalid(name, format!("{name} must be an integer")))
    }
}

/// Whether `text` holds a NUL character, which no text equip stores may hold.
#[must_use]
pub fn has_nul(text: &str) -> bool {
    text.contains('\0')
}

fn value_has_nul(v: &Value) -> bool {
    match v {
        Value::String(s) => has_nul(s),
        Value::Array(a) => a.iter().any(value_has_nul),
        Value::Object(o) => o.iter().any(|(k, v)| has_nul(k) || value_has_nul(v)),
        _ => false,
    }
}

/// Parses a path segment as an id; 400 naming `name` otherwise.
///
/// # Errors
/// 400 naming the path parameter.
pub fn path_id<T>(
    name: &str,
    raw: &str,
    parse: fn(&str) -> Result<T, InvalidId>,
) -> Result<T, HttpError> {
    parse(raw).map_err(|_| HttpError::invalid(name, format!("'{raw}' is not a valid UUID")))
}

/// A field of a JSON object: absent, explicitly `null`, or a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Field<T> {
    /// Not in the body.
    Absent,
    /// `null`.
    Null,
    /// A value.
    Value(T),
}

impl<T> Field<T> {
    /// The value, if any.
    pub fn into_option(self) -> Option<T> {
        match self {
            Self::Value(v) => Some(v),
            _ => None,
        }
    }
}

impl Fields<'_> {
    /// Refuses fields outside `known`, naming the first.
    ///
    /// # Errors
    /// 400 naming the unknown field.
    pub fn only(&self, known: &[&str]) -> Result<(), HttpError> {
        match self.map.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(HttpError::invalid(
                k.as_str(),
                format!("unknown field '{k}'"),
            )),
            None => Ok(()),
        }
    }

    /// A field read with `parse`; `expected` describes a good value.
    ///
    /// # Errors
    /// 400 naming the field when `parse` refuses its value.
    pub fn get<T>(
        &self,
        name: &str,
        expected: &str,
        parse: impl Fn(&Value) -> Option<T>,
    ) -> Result<Field<T>, HttpError> {
        match self.map.get(name) {
            None => Ok(Field::Absent),
            Some(Value::Null) => Ok(Field::Null),
            Some(v) => parse(v)
                .map(Field::Value)
                .ok_or_else(|| HttpError::invalid(name, format!("{name} must be {expected}"))),
        }
    }

    /// A field that must be present and not null.
    ///
    /// # Errors
    /// 400 naming the field when missing, null or bad.
    pub fn require<T>(
        &self,
        name: &str,
        expected: &str,
        parse: impl Fn(&Value) -> Option<T>,
    ) -> Result<T, HttpError> {
        self.get(name, expected, parse)?
            .into_option()
            .ok_or_else(|| HttpError::invalid(name, format!("{name} is required")))
    }
}
