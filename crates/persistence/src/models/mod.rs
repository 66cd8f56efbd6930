//! Row types (one per table) and their conversions to and from the domain,
//! one module per area; the value conversions they share are here.
//!
//! UUIDs are stored as lowercase hyphenated text; times as naive UTC timestamps
//! truncated to microseconds (PostgreSQL's precision, applied on SQLite too so
//! both backends return the same value); enums by their wire names; phone
//! numbers, addresses and IMEIs as JSON text in the shapes defined here (not
//! the domain's serde shapes, so the storage format does not move with them).

use chrono::{DateTime, NaiveDate, NaiveDateTime, SubsecRound, Utc};
use diesel::prelude::*;
use equip_domain::text::identifier_key;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use equip_domain::api_key::{ApiKey, Scopes};
use equip_domain::catalog::{Package, Sku};
use equip_domain::ids::{
    ApiKeyId, InventoryItemId, InventoryLevelId, OfficeId, OrganizationId, PackageId, PersonId,
    RetrievalId, ReturnOrderId, ReturnOrderItemId, SkuId, TagId, WarehouseId,
};
use equip_domain::inventory::{
    Assignee, AssigneeType, Assignment, Condition, DeployReason, DeployStatus, DeviceProgram,
    DeviceProgramStatus, InventoryItem, Price, RenewalDateUpdatedBy, Retrieval, RetrievalKind,
    RetrievalStatus, ReturnInfo, ReturnStatus, SuppliedBy, Tag,
};
use equip_domain::inventory_level::InventoryLevel;
use equip_domain::location::{Office, Warehouse, WarehouseAddress, WarehouseOwner};
use equip_domain::organization::{Organization, OrganizationName};
use equip_domain::person::{Address, Email, Person, PersonStatus, PhoneNumber};
use equip_domain::returns::order::{ReturnLine, ReturnOrder};
use equip_domain::returns::{ClosedReason, LineState};

use crate::error::{DbError, DbResult};

mod catalog;
mod groups;
mod inventory;
mod levels;
mod locations;
mod orders;
mod organizations;
mod people;
mod sso;

pub(crate) use catalog::*;
pub(crate) use groups::*;
pub(crate) use inventory::*;
pub(crate) use levels::*;
pub(crate) use locations::*;
pub(crate) use orders::*;
pub(crate) use organizations::*;
pub(crate) use people::*;
pub(crate) use sso::*;

/// A time as stored: naive UTC, microsecond precision.
pub(crate) fn db_time(t: DateTime<Utc>) -> NaiveDateTime {
    t.naive_utc().trunc_subsecs(6)
}

/// A stored time back in UTC.
pub(crate) fn utc(t: NaiveDateTime) -> DateTime<Utc> {
    t.and_utc()
}

/// A UUID as stored.
pub(crate) fn id_text(id: &Uuid) -> String {
    id.hyphenated().to_string()
}

/// Parses a stored UUID into a typed id.
pub(crate) fn parse_id<T: From<Uuid>>(raw: &str) -> DbResult<T> {
    Uuid::parse_str(raw)
        .map(T::from)
        .map_err(|_| DbError::corrupt(format!("'{raw}' is not a UUID")))
}

fn parse_enum<T>(
    raw: &str,
    parse: fn(&str) -> Result<T, equip_domain::DomainError>,
) -> DbResult<T> {
    parse(raw).map_err(|e| DbError::corrupt(e.to_string()))
}

fn parse_opt_enum<T>(
    raw: Option<&str>,
    parse: fn(&str) -> Result<T, equip_domain::DomainError>,
) -> DbResult<Option<T>> {
    raw.map(|r| parse_enum(r, parse)).transpose()
}

fn to_json<T: Serialize>(value: &T) -> DbResult<String> {
    serde_json::to_string(value).map_err(|e| DbError::corrupt(format!("cannot encode JSON: {e}")))
}

fn from_json<T: for<'de> Deserialize<'de>>(raw: &str) -> DbResult<T> {
    serde_json::from_str(raw).map_err(|e| DbError::corrupt(format!("bad JSON column: {e}")))
}

/// Unicode lowercase: how case-insensitive text that is not an identifier
/// (names, the listing's search keys) is folded, as PostgreSQL's `LOWER`
/// and SQLite's `equip_lower` do. Identifiers (`user_name_lower`,
/// `value_lower`) hold the domain's
/// [`identifier_key`](equip_domain::text::identifier_key) instead.
#[must_use]
pub fn fold_case(value: &str) -> String {
    value.to_lowercase()
}

/// A list entry's position as stored.
fn position(i: usize) -> DbResult<i32> {
    i32::try_from(i).map_err(|_| DbError::corrupt("too many list entries"))
}
