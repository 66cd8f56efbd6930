//! Reading one entry of the import document: deserializing it with a precise
//! path on failure. The fields' own parsing (ids, dates, timestamps, enums) is
//! the domain's [`Entry`].

use serde::Deserialize;
use serde_json::value::RawValue;

use equip_domain::import::ImportError;
pub use equip_domain::wire::import_entry::{parse_timestamp, Entry};

/// Deserializes the entry `raw` of `entry`; a failure names the entry and the
/// field path.
pub fn parse<'de, T: Deserialize<'de>>(
    entry: &Entry,
    raw: &'de RawValue,
) -> Result<T, ImportError> {
    let mut de = serde_json::Deserializer::from_str(raw.get());
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let message = strip_position(&e.into_inner().to_string());
        structural(entry, &path, &message)
    })
}

/// Turns serde's "missing field `x`" and "unknown field `x`" (reported at the
/// enclosing object) into an error on the field itself.
fn structural(entry: &Entry, path: &str, message: &str) -> ImportError {
    let join = |field: &str| {
        if path == field || path.ends_with(&format!(".{field}")) {
            // The path already ends at the field (unknown fields are tracked so).
            path.to_owned()
        } else if path.is_empty() {
            field.to_owned()
        } else {
            format!("{path}.{field}")
        }
    };
    if let Some(field) = backticked(message, "missing field `") {
        return entry.error(&join(field), "required");
    }
    if let Some(field) = backticked(message, "unknown field `") {
        let expected = message
            .split_once(", expected ")
            .map(|(_, rest)| format!(" (expected {rest})"))
            .unwrap_or_default();
        return entry.error(&join(field), format!("unknown field{expected}"));
    }
    entry.error(path, message)
}

/// serde_json appends " at line L column C" to its messages: the position within
/// one entry is of no use to a reader, who is told the entry and field instead.
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn position_suffix_is_removed() {
        assert_eq!(
            strip_position("invalid type: integer `5`, expected a string at line 1 column 9"),
            "invalid type: integer `5`, expected a string"
        );
        assert_eq!(strip_position("plain"), "plain");
    }
}
