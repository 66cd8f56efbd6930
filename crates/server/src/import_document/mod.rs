//! The import document of `equip import` (docs/import.md): one JSON object with
//! the optional arrays `warehouses`, `offices`, `skus`, `packages`, `people`,
//! `inventory`, `inventoryLevels` and `groups`, converted into the domain's
//! [`ImportBatch`].
//!
//! The top level is read with each entry kept as raw JSON text, and every entry
//! is then parsed on its own, so a bad entry is named precisely
//! (`inventory[12].deployStatus: unknown value 'GIFTED'; …`) and memory stays
//! close to the size of the file. `docs/import.md` describes the shapes.

mod entries;
mod fields;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::value::RawValue;

use equip_api_types::{import, import_item};
use equip_domain::ids::OrganizationId;
use equip_domain::import::{ImportBatch, ImportError};

pub use fields::{parse_timestamp, Entry};

/// The document with each entry still raw.
#[derive(Deserialize, Default)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "an import document object"
)]
struct RawDocument<'a> {
    #[serde(borrow, default)]
    warehouses: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    offices: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    skus: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    packages: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    people: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    inventory: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    inventory_levels: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    groups: Option<Vec<&'a RawValue>>,
}

impl<'a> RawDocument<'a> {
    fn parse(text: &'a str) -> Result<Self, ImportError> {
        // A UTF-8 byte order mark, as some editors write, is not JSON: skip it.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        serde_json::from_str(text)
            .map_err(|e| ImportError::new("document", format!("not a valid import document: {e}")))
    }

    fn kind(&self, kind: &str) -> Option<&[&'a RawValue]> {
        match kind {
            "warehouses" => self.warehouses.as_deref(),
            "offices" => self.offices.as_deref(),
            "skus" => self.skus.as_deref(),
            "packages" => self.packages.as_deref(),
            "people" => self.people.as_deref(),
            "inventory" => self.inventory.as_deref(),
            "inventoryLevels" => self.inventory_levels.as_deref(),
            "groups" => self.groups.as_deref(),
            _ => None,
        }
    }
}

fn convert<'a, T>(
    kind: &str,
    raws: Option<Vec<&'a RawValue>>,
    mut one: impl FnMut(&Entry, &'a RawValue) -> Result<T, ImportError>,
) -> Result<Vec<T>, ImportError> {
    raws.unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, raw)| one(&Entry::new(kind, i), raw))
        .collect()
}

/// Converts the document `text` into a batch for `organization`; `now` stands
/// in for absent timestamps.
///
/// # Errors
/// The first entry that cannot be converted, named by array, index and field;
/// or `document` when the text is not a JSON object of the known arrays.
pub fn parse_document(
    text: &str,
    organization: OrganizationId,
    now: DateTime<Utc>,
) -> Result<ImportBatch, ImportError> {
    let doc = RawDocument::parse(text)?;
    let org = organization;
    Ok(ImportBatch {
        warehouses: convert("warehouses", doc.warehouses, |e, r| {
            import::warehouse(e, fields::parse(e, r)?, org)
        })?,
        offices: convert("offices", doc.offices, |e, r| {
            import::office(e, fields::parse(e, r)?, org)
        })?,
        skus: convert("skus", doc.skus, |e, r| {
            import::sku(e, fields::parse(e, r)?, org)
        })?,
        packages: convert("packages", doc.packages, |e, r| {
            import::package(e, fields::parse(e, r)?, org)
        })?,
        people: convert("people", doc.people, |e, r| entries::person(e, r, org, now))?,
        inventory: convert("inventory", doc.inventory, |e, r| {
            import_item::inventory_item(e, fields::parse(e, r)?, org, now)
        })?,
        inventory_levels: convert("inventoryLevels", doc.inventory_levels, |e, r| {
            import::inventory_level(e, fields::parse(e, r)?, org, now)
        })?,
        groups: convert("groups", doc.groups, |e, r| {
            import::group(e, fields::parse(e, r)?, org, now)
        })?,
    })
}

/// The line of `text` on which the entry an error names (e.g.
/// `inventory[12].deployStatus`) starts, for pointing a person at it.
#[must_use]
pub fn entry_line(text: &str, entry: &str) -> Option<usize> {
    let (kind, rest) = entry.split_once('[')?;
    let index: usize = rest.split_once(']')?.0.parse().ok()?;
    let doc = RawDocument::parse(text).ok()?;
    let raw = doc.kind(kind)?.get(index)?;
    let offset = (raw.get().as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let before = text.get(..offset)?;
    Some(1 + before.bytes().filter(|b| *b == b'\n').count())
}

#[cfg(test)]
mod tests;
