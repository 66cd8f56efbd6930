//! The key a request carries, as `GET /api/v1/api-key` shows it (docs/api.md,
//! "The key of a request"): never the key or its hash.

use chrono::{DateTime, Utc};
use equip_domain::api_key::{ApiKey, Scope};
use equip_domain::ids::{ApiKeyId, OrganizationId};
use serde::Serialize;
use utoipa::openapi::schema::Array;
use utoipa::ToSchema;

use crate::schema::{array_of, one_of};
use crate::time;

fn scopes() -> Array {
    array_of(
        one_of(Scope::ALL.iter().map(|s| s.as_str())),
        "What the key may do, in a fixed order; empty for a key without scopes.",
    )
    .unique_items(true)
    .build()
}

/// An API key: its id, public prefix, label, organization and scopes.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = ApiKey)]
pub struct ApiKeyBody<'a> {
    /// The key's id (as `equip key create` prints it; `equip key revoke` takes it).
    #[schema(value_type = Uuid)]
    id: ApiKeyId,
    /// The key's public lookup prefix: the 16 hex characters after `equip_`.
    #[schema(pattern = "^[0-9a-f]{16}$")]
    prefix: &'a str,
    #[schema(required)]
    label: Option<&'a str>,
    #[schema(value_type = Uuid)]
    organization_id: OrganizationId,
    /// In their stored order.
    #[schema(schema_with = scopes)]
    scopes: &'a [Scope],
    #[serde(serialize_with = "time::millis")]
    created_at: DateTime<Utc>,
}

impl<'a> From<&'a ApiKey> for ApiKeyBody<'a> {
    fn from(key: &'a ApiKey) -> Self {
        Self {
            id: key.id,
            prefix: &key.prefix,
            label: key.label.as_deref(),
            organization_id: key.organization_id,
            scopes: key.scopes.as_slice(),
            created_at: key.created_at,
        }
    }
}
