//! The small kinds of the import document (docs/import.md): warehouses, offices,
//! SKUs, packages, inventory levels, and people as SCIM users.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::value::RawValue;

use equip_domain::catalog::{Package, Sku};
use equip_domain::ids::{OrganizationId, PersonId};
use equip_domain::import::ImportError;
use equip_domain::inventory_level::InventoryLevel;
use equip_domain::location::{Office, Warehouse, WarehouseAddress, WarehouseOwner};
use equip_domain::person::Person;
use equip_scim::user::{ScimUser, ScimUserError};

use super::fields::Entry;

/// A warehouse: `id`, `name`, `address` (object or null), `shared`.
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a warehouse object"
)]
struct WireWarehouse {
    id: String,
    name: String,
    #[serde(default)]
    address: Option<WireAddress>,
    #[serde(default)]
    shared: Option<bool>,
}

#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "an address object or null"
)]
struct WireAddress {
    #[serde(default)]
    street1: Option<String>,
    #[serde(default)]
    street2: Option<String>,
    #[serde(default)]
    city: Option<String>,
    #[serde(default)]
    province: Option<String>,
    #[serde(default)]
    postal_code: Option<String>,
    #[serde(default)]
    country_code: Option<String>,
    #[serde(default)]
    phone_number: Option<String>,
}

pub fn warehouse(
    entry: &Entry,
    raw: &RawValue,
    organization: OrganizationId,
) -> Result<Warehouse, ImportError> {
    let w: WireWarehouse = entry.parse(raw)?;
    Ok(Warehouse {
        id: entry.id("id", &w.id)?,
        owner: if w.shared.unwrap_or(false) {
            WarehouseOwner::Shared
        } else {
            WarehouseOwner::Organization(organization)
        },
        name: w.name,
        address: w.address.map(|a| WarehouseAddress {
            street1: a.street1,
            street2: a.street2,
            city: a.city,
            province: a.province,
            postal_code: a.postal_code,
            country_code: a.country_code,
            phone_number: a.phone_number,
        }),
    })
}

/// An office: `id`, `name`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "an office object")]
struct WireOffice {
    id: String,
    name: String,
}

pub fn office(
    entry: &Entry,
    raw: &RawValue,
    organization: OrganizationId,
) -> Result<Office, ImportError> {
    let o: WireOffice = entry.parse(raw)?;
    Ok(Office {
        id: entry.id("id", &o.id)?,
        organization_id: organization,
        name: o.name,
    })
}

/// A SKU: `id`, `title`, `categoryCode`, `categoryName`, `vendorCode`,
/// `vendorName`, `vendorSku`.
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a sku object"
)]
struct WireSku {
    id: String,
    title: String,
    category_code: String,
    category_name: String,
    vendor_code: String,
    vendor_name: String,
    vendor_sku: String,
}

pub fn sku(
    entry: &Entry,
    raw: &RawValue,
    organization: OrganizationId,
) -> Result<Sku, ImportError> {
    let s: WireSku = entry.parse(raw)?;
    Ok(Sku {
        id: entry.id("id", &s.id)?,
        organization_id: organization,
        title: s.title,
        category_code: s.category_code,
        category_name: s.category_name,
        vendor_code: s.vendor_code,
        vendor_name: s.vendor_name,
        vendor_sku: s.vendor_sku,
    })
}

/// A package: `id`, `slug`, `name`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a package object")]
struct WirePackage {
    id: String,
    slug: String,
    name: String,
}

pub fn package(
    entry: &Entry,
    raw: &RawValue,
    organization: OrganizationId,
) -> Result<Package, ImportError> {
    let p: WirePackage = entry.parse(raw)?;
    Ok(Package {
        id: entry.id("id", &p.id)?,
        organization_id: organization,
        slug: p.slug,
        name: p.name,
    })
}

/// An inventory level: `id`, `skuId`, `warehouseId`, `minimumQuantity`,
/// `targetQuantity`, `active` (default true). An inactive level is stored as
/// deactivated at the time of the import.
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "an inventory level object"
)]
struct WireLevel {
    id: String,
    sku_id: String,
    warehouse_id: String,
    minimum_quantity: i32,
    target_quantity: i32,
    #[serde(default)]
    active: Option<bool>,
}

pub fn inventory_level(
    entry: &Entry,
    raw: &RawValue,
    organization: OrganizationId,
    now: DateTime<Utc>,
) -> Result<InventoryLevel, ImportError> {
    let l: WireLevel = entry.parse(raw)?;
    Ok(InventoryLevel {
        id: entry.id("id", &l.id)?,
        organization_id: organization,
        sku_id: entry.id("skuId", &l.sku_id)?,
        warehouse_id: entry.id("warehouseId", &l.warehouse_id)?,
        minimum_quantity: l.minimum_quantity,
        target_quantity: l.target_quantity,
        created_at: now,
        deactivated_at: (!l.active.unwrap_or(true)).then_some(now),
    })
}

/// A person, as a SCIM user whose `id` is given. Unknown attributes are ignored
/// as over SCIM; the person rules (userName, CPF…) are checked by the batch.
pub fn person(
    entry: &Entry,
    raw: &RawValue,
    organization: OrganizationId,
    now: DateTime<Utc>,
) -> Result<Person, ImportError> {
    let user: ScimUser = entry.parse(raw)?;
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
