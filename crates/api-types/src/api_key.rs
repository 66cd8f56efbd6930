//! The key a request carries, as `GET /api/v1/api-key` shows it (docs/api.md,
//! "The key of a request"): never the key or its hash.

use chrono::{DateTime, Utc};
use equip_domain::api_key::{ApiKey, Scope};
use equip_domain::ids::{ApiKeyId, OrganizationId};
use equip_domain::organization::Organization;
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
    /// The organization's name, as `equip org create` gave it.
    organization_name: &'a str,
    /// In their stored order.
    #[schema(schema_with = scopes)]
    scopes: &'a [Scope],
    #[serde(serialize_with = "time::millis")]
    created_at: DateTime<Utc>,
}

impl<'a> ApiKeyBody<'a> {
    /// The key and the name of its organization.
    #[must_use]
    pub fn new(key: &'a ApiKey, organization: &'a Organization) -> Self {
        Self {
            id: key.id,
            prefix: &key.prefix,
            label: key.label.as_deref(),
            organization_id: key.organization_id,
            organization_name: organization.name.as_str(),
            scopes: key.scopes.as_slice(),
            created_at: key.created_at,
        }
    }
}

/// A key of the organization as `GET /api/v1/api-keys` lists it: enough to
/// name who did something (an event's actor), never the key or its hash.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = ApiKeyName)]
pub struct ApiKeyNameBody<'a> {
    #[schema(value_type = Uuid)]
    id: ApiKeyId,
    /// The key's public lookup prefix: the 16 hex characters after `equip_`.
    #[schema(pattern = "^[0-9a-f]{16}$")]
    prefix: &'a str,
    #[schema(required)]
    label: Option<&'a str>,
    #[serde(serialize_with = "time::millis")]
    created_at: DateTime<Utc>,
    /// When the key was revoked; null while it works.
    #[schema(required)]
    #[serde(serialize_with = "time::millis_or_null")]
    revoked_at: Option<DateTime<Utc>>,
}

impl<'a> From<&'a ApiKey> for ApiKeyNameBody<'a> {
    fn from(key: &'a ApiKey) -> Self {
        Self {
            id: key.id,
            prefix: &key.prefix,
            label: key.label.as_deref(),
            created_at: key.created_at,
            revoked_at: key.revoked_at,
        }
    }
}

/// `{"data": [key, …]}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApiKeyNameList<'a> {
    /// The organization's keys, revoked or not, oldest first.
    pub data: Vec<ApiKeyNameBody<'a>>,
}
