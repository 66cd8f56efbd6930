//! The small kinds of the import document (docs/import.md): warehouses, offices,
//! SKUs, packages, inventory levels, and people as SCIM users. Their shapes are
//! the domain's (`equip_api_types::import`); this reads them.

use chrono::{DateTime, Utc};
use serde_json::value::RawValue;

use equip_api_types::import::PersonMembers;
use equip_domain::ids::{OrganizationId, PersonId};
use equip_domain::import::ImportError;
use equip_domain::person::Person;
use equip_scim::user::{ScimUser, ScimUserError};

use super::fields::{parse, Entry};

/// A person, as a SCIM user whose `id` is given. Unknown attributes are
/// refused, as in every other kind (SCIM itself ignores them); the person
/// rules (userName, CPF…) are checked by the batch.
pub fn person(
    entry: &Entry,
    raw: &RawValue,
    organization: OrganizationId,
    now: DateTime<Utc>,
) -> Result<Person, ImportError> {
    let user: ScimUser = parse(entry, raw)?;
    let _: PersonMembers = parse(entry, raw)?;
    let id: PersonId = match user.id.as_deref() {
        Some(id) if !id.trim().is_empty() => entry.id("id", id)?,
        _ => return Err(entry.error("id", "required (an import keeps the ids it is given)")),
    };
    user.into_person(organization, id, now)
        .map_err(|e: ScimUserError| match e {
            ScimUserError::Missing { attribute } => entry.error(&attribute, "required"),
            ScimUserError::Invalid { attribute, message } => entry.error(&attribute, message),
        })
}
