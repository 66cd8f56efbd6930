//! Reading JSON request bodies into the wire types, so that a bad value is
//! answered with a 400 naming its field.

use equip_api_types::read::{self, Fault};
use equip_domain::ids::InvalidId;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::HttpError;

/// Reads a JSON object body as the wire type `T` (a serde derive of
/// `equip_api_types`, which refuses unknown fields).
///
/// # Errors
/// 400 naming the field at fault by its path (`assignedTo.type`): a missing
/// field, an unknown one, a bad value, a text holding a NUL character; or
/// `request` when the body is not a JSON object.
pub fn parse<T: DeserializeOwned>(body: Value) -> Result<T, HttpError> {
    object_without_nul(&body)?;
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

/// Refuses a body that is not a JSON object, or whose texts (names or
/// values) hold a NUL character (PostgreSQL cannot store one; refused on
/// every backend).
fn object_without_nul(body: &Value) -> Result<(), HttpError> {
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
    Ok(())
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
