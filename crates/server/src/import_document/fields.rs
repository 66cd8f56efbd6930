//! Reading one entry of the import document: deserializing it with a precise
//! path on failure. The fields' own parsing (ids, dates, timestamps, enums) is
//! the domain's [`Entry`].

use serde::Deserialize;
use serde_json::value::RawValue;

pub use equip_api_types::import_entry::{parse_timestamp, Entry};
use equip_api_types::read::{self, Fault};
use equip_domain::import::ImportError;

/// Deserializes the entry `raw` of `entry`; a failure names the entry and the
/// field path.
pub fn parse<'de, T: Deserialize<'de>>(
    entry: &Entry,
    raw: &'de RawValue,
) -> Result<T, ImportError> {
    read::from_str(raw.get()).map_err(|e| {
        let message = match e.fault {
            Fault::Missing => "required".to_owned(),
            Fault::Unknown { expected } => format!(
                "unknown field{}",
                expected
                    .map(|x| format!(" (expected {x})"))
                    .unwrap_or_default()
            ),
            Fault::Invalid(message) => message,
        };
        entry.error(&e.path, message)
    })
}
