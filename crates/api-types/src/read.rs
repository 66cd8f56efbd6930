//! Reading JSON into the wire types with the exact path of what is wrong
//! (`serde_path_to_error`), so that a 400 or an import error names the field:
//! `assignedTo.type`, not "the body". Serde reports a missing or unknown
//! field at the enclosing object; [`ShapeError`] puts it on the field itself.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

/// What is wrong with a field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// A required field is absent.
    Missing,
    /// A field the shape does not have; `expected` lists the ones it has,
    /// as serde says them.
    Unknown {
        /// The fields the shape takes, e.g. "one of `a`, `b`".
        expected: Option<String>,
    },
    /// The value is not a good one: serde's (or the field type's) message,
    /// without serde_json's position suffix.
    Invalid(String),
}

/// A JSON text or value that is not the shape asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    /// The field at fault, as a dotted path (`returnOrder.status`,
    /// `imei[2]`); empty for the whole document.
    pub path: String,
    /// What is wrong with it.
    pub fault: Fault,
}

impl ShapeError {
    fn from_serde(path: &serde_path_to_error::Path, error: &serde_json::Error) -> Self {
        let path = path.to_string();
        let path = if path == "." { String::new() } else { path };
        let message = strip_position(&error.to_string());
        let join = |field: &str| {
            if path == field || path.ends_with(&format!(".{field}")) {
                // The path already ends at the field (unknown fields are tracked so).
                path.clone()
            } else if path.is_empty() {
                field.to_owned()
            } else {
                format!("{path}.{field}")
            }
        };
        if let Some(field) = backticked(&message, "missing field `") {
            return Self {
                path: join(field),
                fault: Fault::Missing,
            };
        }
        // A required field given `null` is as absent as a missing one (the
        // shapes take `null` wherever a value may be left out).
        if message.starts_with("invalid type: null,") {
            return Self {
                path,
                fault: Fault::Missing,
            };
        }
        if let Some(field) = backticked(&message, "unknown field `") {
            return Self {
                path: join(field),
                fault: Fault::Unknown {
                    expected: message
                        .split_once(", expected ")
                        .map(|(_, rest)| rest.to_owned()),
                },
            };
        }
        Self {
            path,
            fault: Fault::Invalid(message),
        }
    }
}

/// Reads `text` as a `T`.
///
/// # Errors
/// [`ShapeError`] naming the field at fault.
pub fn from_str<'de, T: Deserialize<'de>>(text: &'de str) -> Result<T, ShapeError> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de)
        .map_err(|e| ShapeError::from_serde(e.path(), e.inner()))
}

/// Reads `value` as a `T`.
///
/// # Errors
/// [`ShapeError`] naming the field at fault.
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, ShapeError> {
    serde_path_to_error::deserialize(value).map_err(|e| ShapeError::from_serde(e.path(), e.inner()))
}

/// For `#[serde(default, deserialize_with = "double_option")]` on an
/// `Option<Option<T>>` field of a PATCH body: absent is `None` (left as it
/// is), `null` is `Some(None)` (cleared), a value is `Some(Some(v))`.
///
/// # Errors
/// The value's own, when it is not `null` and not a `T`.
pub fn double_option<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// For `#[serde(default, deserialize_with = "not_null")]` on an `Option<T>`
/// field of a PATCH body that may be left out but not cleared: absent is
/// `None`, `null` is refused ("cannot be null"), a value is `Some(v)`.
///
/// # Errors
/// "cannot be null", or the value's own when it is not a `T`.
pub fn not_null<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    match Option::<T>::deserialize(deserializer)? {
        Some(value) => Ok(Some(value)),
        None => Err(serde::de::Error::custom("cannot be null")),
    }
}

/// serde_json appends " at line L column C" to its messages: the position is
/// of no use to a reader, who is told the field instead.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) if message[at..].contains(" column ") => message[..at].to_owned(),
        _ => message.to_owned(),
    }
}

fn backticked<'m>(message: &'m str, prefix: &str) -> Option<&'m str> {
    let rest = message.strip_prefix(prefix)?;
    rest.split_once('`').map(|(field, _)| field)
}

/// For `#[serde(default, deserialize_with = "optional_whole_number")]` on an
/// optional integer field: absent or `null` is `None`, else
/// [`whole_number`].
///
/// # Errors
/// As [`whole_number`].
pub fn optional_whole_number<'de, D>(deserializer: D) -> Result<Option<i64>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    struct Whole(i64);
    impl<'de> Deserialize<'de> for Whole {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            whole_number(d).map(Whole)
        }
    }
    Ok(Option::<Whole>::deserialize(deserializer)?.map(|w| w.0))
}

/// For `#[serde(deserialize_with = "whole_number")]` on an integer field: a
/// JSON number without a fractional part, written `30` or `30.0` (JSON Schema
/// calls both an integer).
///
/// # Errors
/// "expected a whole number" for a fraction, a value outside `i64`, or
/// anything but a number.
pub fn whole_number<'de, D>(deserializer: D) -> Result<i64, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let n = serde_json::Number::deserialize(deserializer)?;
    if let Some(i) = n.as_i64() {
        return Ok(i);
    }
    match n.as_f64() {
        // The bounds are i64's (2^63 is exact in f64); within them the cast
        // is exact for a value without a fraction.
        #[allow(clippy::cast_possible_truncation)]
        Some(f)
            if f.fract() == 0.0
                && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) =>
        {
            Ok(f as i64)
        }
        _ => Err(serde::de::Error::custom(format!(
            "expected a whole number, found {n}"
        ))),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct Outer {
        #[allow(dead_code)]
        sku_id: String,
        #[serde(default)]
        #[allow(dead_code)]
        inner: Option<Inner>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        #[allow(dead_code)]
        id: u32,
    }

    #[test]
    fn missing_and_unknown_fields_are_named_as_themselves() {
        let e = from_value::<Outer>(json!({})).unwrap_err();
        assert_eq!((e.path.as_str(), &e.fault), ("skuId", &Fault::Missing));
        let e = from_value::<Outer>(json!({"skuId": "a", "inner": {}})).unwrap_err();
        assert_eq!((e.path.as_str(), &e.fault), ("inner.id", &Fault::Missing));
        let e = from_value::<Outer>(json!({"skuId": null})).unwrap_err();
        assert_eq!((e.path.as_str(), &e.fault), ("skuId", &Fault::Missing));
        let e = from_value::<Outer>(json!({"skuId": "a", "color": 1})).unwrap_err();
        assert_eq!(e.path, "color");
        assert!(matches!(e.fault, Fault::Unknown { expected: Some(ref x) } if x.contains("skuId")));
        let e = from_str::<Outer>(r#"{"skuId": "a", "inner": {"id": "x"}}"#).unwrap_err();
        assert_eq!(e.path, "inner.id");
        assert_eq!(
            e.fault,
            Fault::Invalid("invalid type: string \"x\", expected u32".into())
        );
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Patch {
        #[serde(default, deserialize_with = "double_option")]
        note: Option<Option<String>>,
        #[serde(default, deserialize_with = "not_null")]
        size: Option<u32>,
    }

    #[test]
    fn a_patch_tells_absent_from_null() {
        let p: Patch = from_value(json!({})).unwrap();
        assert_eq!((p.note, p.size), (None, None));
        let p: Patch = from_value(json!({"note": null, "size": 3})).unwrap();
        assert_eq!((p.note, p.size), (Some(None), Some(3)));
        let p: Patch = from_value(json!({"note": "x"})).unwrap();
        assert_eq!(p.note, Some(Some("x".to_owned())));
        let e = from_value::<Patch>(json!({"size": null})).unwrap_err();
        assert_eq!(e.path, "size");
        assert_eq!(e.fault, Fault::Invalid("cannot be null".into()));
    }

    #[test]
    fn position_suffix_is_removed() {
        assert_eq!(
            strip_position("invalid type: integer `5`, expected a string at line 1 column 9"),
            "invalid type: integer `5`, expected a string"
        );
        assert_eq!(strip_position("plain"), "plain");
    }

    #[test]
    fn a_whole_number_may_be_written_with_a_zero_fraction() {
        #[derive(Debug, Deserialize)]
        struct N {
            #[serde(deserialize_with = "whole_number")]
            n: i64,
        }
        let n = |text: &str| from_str::<N>(text).map(|v| v.n);
        assert_eq!(n(r#"{"n": 30}"#).unwrap(), 30);
        assert_eq!(n(r#"{"n": 869.0}"#).unwrap(), 869);
        assert_eq!(n(r#"{"n": -2.0}"#).unwrap(), -2);
        for refused in [r#"{"n": 1.5}"#, r#"{"n": 1e300}"#, r#"{"n": "3"}"#] {
            let e = n(refused).unwrap_err();
            assert_eq!(e.path, "n", "{refused}");
        }
    }

    #[test]
    fn an_optional_whole_number_may_be_absent_or_null() {
        #[derive(Debug, Deserialize)]
        struct N {
            #[serde(default, deserialize_with = "optional_whole_number")]
            n: Option<i64>,
        }
        let n = |text: &str| from_str::<N>(text).map(|v| v.n);
        assert_eq!(n("{}").unwrap(), None);
        assert_eq!(n(r#"{"n": null}"#).unwrap(), None);
        assert_eq!(n(r#"{"n": 262145.0}"#).unwrap(), Some(262_145));
        assert_eq!(n(r#"{"n": 7}"#).unwrap(), Some(7));
        for refused in [r#"{"n": 1.5}"#, r#"{"n": "3"}"#, r#"{"n": []}"#] {
            assert_eq!(n(refused).unwrap_err().path, "n", "{refused}");
        }
    }
}
