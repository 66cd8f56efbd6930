//! Query strings read into the wire types' parameter structs
//! (`#[derive(Deserialize, IntoParams)]` of `equip_api_types`), refusing what
//! the operation does not document: a parameter it does not have, and a
//! single-valued one given twice. The parameters a struct documents are the
//! ones it takes; those documented as arrays may repeat (`?types=a&types=b`).

use equip_api_types::read::{self, Fault};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use utoipa::openapi::path::ParameterIn;
use utoipa::openapi::{RefOr, Schema};
use utoipa::IntoParams;

use crate::error::HttpError;

/// Reads the query string's `pairs` (in their order) as `T`.
///
/// # Errors
/// 400 naming the parameter: one `T` does not document ("unknown parameter
/// 'x'; known parameters: …"), one given twice that may not repeat ("'x' may
/// be given once"), or a value `T` refuses.
pub fn read<T: DeserializeOwned + IntoParams>(
    pairs: Vec<(String, String)>,
) -> Result<T, HttpError> {
    let params = T::into_params(|| Some(ParameterIn::Query));
    let repeats = |name: &str| {
        params
            .iter()
            .any(|p| p.name == name && matches!(p.schema, Some(RefOr::T(Schema::Array(_)))))
    };
    let mut map = Map::new();
    for (name, value) in pairs {
        if !params.iter().any(|p| p.name == name) {
            let known: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
            return Err(HttpError::invalid(
                &name,
                format!(
                    "unknown parameter '{name}'; known parameters: {}",
                    known.join(", ")
                ),
            ));
        }
        if repeats(&name) {
            if let Value::Array(values) =
                map.entry(name).or_insert_with(|| Value::Array(Vec::new()))
            {
                values.push(Value::String(value));
            }
        } else if map.insert(name.clone(), Value::String(value)).is_some() {
            return Err(HttpError::invalid(
                &name,
                format!("'{name}' may be given once"),
            ));
        }
    }
    read::from_value(Value::Object(map)).map_err(|e| {
        let path = e.path.as_str();
        match e.fault {
            Fault::Missing => HttpError::invalid(path, format!("{path} is required")),
            Fault::Unknown { .. } => {
                HttpError::invalid(path, format!("unknown parameter '{path}'"))
            }
            Fault::Invalid(why) => HttpError::invalid(path, format!("{path}: {why}")),
        }
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use equip_api_types::event::FeedParams;
    use equip_domain::event_feed::RawFeedQuery;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    /// "400 source: detail".
    fn refusal(list: &[(&str, &str)]) -> String {
        read::<FeedParams>(pairs(list)).unwrap_err().to_string()
    }

    #[test]
    fn documented_parameters_are_read_and_lists_repeat() {
        let raw: RawFeedQuery = read::<FeedParams>(pairs(&[
            ("types", "person.created"),
            ("size", "5"),
            ("types", "group.created,group.deleted"),
            ("subjectId", "x"),
        ]))
        .unwrap()
        .into();
        assert_eq!(raw.types, ["person.created", "group.created,group.deleted"]);
        assert_eq!(raw.size.as_deref(), Some("5"));
        assert_eq!(raw.subject_id.as_deref(), Some("x"));
        assert_eq!(raw.after, None);
        let raw: RawFeedQuery = read::<FeedParams>(Vec::new()).unwrap().into();
        assert!(raw.types.is_empty());
    }

    #[test]
    fn unknown_and_repeated_parameters_are_named() {
        assert_eq!(
            refusal(&[("size", "1"), ("colour", "red")]),
            "400 colour: unknown parameter 'colour'; known parameters: after, types, subjectId, size"
        );
        assert_eq!(
            refusal(&[("size", "1"), ("size", "2")]),
            "400 size: 'size' may be given once"
        );
    }
}
