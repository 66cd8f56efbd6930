//! The small kinds of the import document: warehouses, offices, SKUs,
//! packages, inventory levels and groups, and the members a person (a SCIM user) may
//! have. Inventory items are [`super::import_item`]. Every kind refuses a
//! member it does not know, so that a typo is not silently dropped.

use chrono::{DateTime, Utc};
use serde::de::IgnoredAny;
use serde::Deserialize;

use crate::import_entry::Entry;
use crate::package::PackageItemInput;
use equip_domain::catalog::{parse_contents, Package, RawPackageItem, Sku};
use equip_domain::error::DomainError;
use equip_domain::group::{Group, GroupFields};
use equip_domain::ids::OrganizationId;
use equip_domain::import::{ImportError, ImportedGroup};
use equip_domain::inventory_level::InventoryLevel;
use equip_domain::location::{Office, Warehouse, WarehouseAddress, WarehouseOwner};

/// A warehouse: `id`, `name`, `address` (object or null), `shared`.
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a warehouse object"
)]
pub struct WireWarehouse {
    id: String,
    name: String,
    #[serde(default)]
    address: Option<WireAddress>,
    #[serde(default)]
    shared: Option<bool>,
}

/// A warehouse's `address`.
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "an address object or null"
)]
pub struct WireAddress {
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

/// Converts a warehouse entry.
///
/// # Errors
/// A bad id, named by entry and field.
pub fn warehouse(
    entry: &Entry,
    w: WireWarehouse,
    organization: OrganizationId,
) -> Result<Warehouse, ImportError> {
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
pub struct WireOffice {
    id: String,
    name: String,
}

/// Converts an office entry.
///
/// # Errors
/// A bad id, named by entry and field.
pub fn office(
    entry: &Entry,
    o: WireOffice,
    organization: OrganizationId,
) -> Result<Office, ImportError> {
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
pub struct WireSku {
    id: String,
    title: String,
    category_code: String,
    category_name: String,
    vendor_code: String,
    vendor_name: String,
    vendor_sku: String,
}

/// Converts a SKU entry.
///
/// # Errors
/// A bad id, named by entry and field.
pub fn sku(entry: &Entry, s: WireSku, organization: OrganizationId) -> Result<Sku, ImportError> {
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

/// A package: `id`, `slug`, `name`, `items` (its contents, as `PUT
/// /api/v1/packages/{id}` takes them; absent: none).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a package object")]
pub struct WirePackage {
    id: String,
    slug: String,
    name: String,
    #[serde(default)]
    items: Option<Vec<PackageItemInput>>,
}

/// Converts a package entry. Its contents are checked on their own here
/// (`catalog::parse_contents`); their SKUs and categories against the
/// batch's and the stored SKUs by the import's rules.
///
/// # Errors
/// A bad id or a bad entry of the contents, named by entry and field (e.g.
/// `packages[0].items[1].quantity`).
pub fn package(
    entry: &Entry,
    p: WirePackage,
    organization: OrganizationId,
) -> Result<Package, ImportError> {
    let raw: Vec<RawPackageItem> = p
        .items
        .unwrap_or_default()
        .into_iter()
        .map(RawPackageItem::from)
        .collect();
    let items = parse_contents(&raw).map_err(|e| match e {
        DomainError::Invalid { field, message } => entry.error(&field, message),
        other => entry.error("items", other.to_string()),
    })?;
    Ok(Package {
        id: entry.id("id", &p.id)?,
        organization_id: organization,
        slug: p.slug,
        name: p.name,
        items,
    })
}

/// A group: `id`, `displayName`, `externalId`, `members` (user ids),
/// `packageId`, `precedence` (default 0).
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a group object"
)]
pub struct WireGroup {
    id: String,
    display_name: String,
    #[serde(default)]
    external_id: Option<String>,
    #[serde(default)]
    members: Vec<String>,
    #[serde(default)]
    package_id: Option<String>,
    #[serde(default)]
    precedence: Option<i32>,
}

/// Converts a group entry; `now` is its creation time when new.
///
/// # Errors
/// A bad id, named by entry and field (`members[3]` for a member).
pub fn group(
    entry: &Entry,
    g: WireGroup,
    organization: OrganizationId,
    now: DateTime<Utc>,
) -> Result<ImportedGroup, ImportError> {
    let members = g
        .members
        .iter()
        .enumerate()
        .map(|(i, m)| entry.id(&format!("members[{i}]"), m))
        .collect::<Result<Vec<_>, _>>()?;
    let fields = GroupFields {
        external_id: super::import_entry::non_empty(g.external_id.as_deref()).map(str::to_owned),
        display_name: g.display_name,
        package_id: entry.opt_id("packageId", g.package_id.as_deref())?,
        precedence: g.precedence.unwrap_or(0),
    };
    Ok(ImportedGroup {
        group: Group::new(entry.id("id", &g.id)?, organization, fields, now),
        members,
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
pub struct WireLevel {
    id: String,
    sku_id: String,
    warehouse_id: String,
    minimum_quantity: i32,
    target_quantity: i32,
    #[serde(default)]
    active: Option<bool>,
}

/// Converts an inventory level entry.
///
/// # Errors
/// A bad id, named by entry and field.
pub fn inventory_level(
    entry: &Entry,
    l: WireLevel,
    organization: OrganizationId,
    now: DateTime<Utc>,
) -> Result<InventoryLevel, ImportError> {
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

/// The members a person entry may have: a SCIM user's, as `POST
/// /scim/v2/Users` reads them, plus the `id` an import keeps. Only the names
/// are checked here (values are read as the SCIM user they are); unlike SCIM,
/// which ignores attributes it does not know, the import refuses them.
// Read for its member names only: the values are the SCIM user's.
#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a person object"
)]
pub struct PersonMembers {
    #[serde(default)]
    schemas: Option<IgnoredAny>,
    #[serde(default)]
    id: Option<IgnoredAny>,
    #[serde(default)]
    external_id: Option<IgnoredAny>,
    #[serde(default)]
    user_name: Option<IgnoredAny>,
    #[serde(default)]
    name: Option<PersonNameMembers>,
    #[serde(default)]
    display_name: Option<IgnoredAny>,
    #[serde(default)]
    emails: Option<Vec<PersonEmailMembers>>,
    #[serde(default)]
    phone_numbers: Option<Vec<PersonEmailMembers>>,
    #[serde(default)]
    addresses: Option<Vec<PersonAddressMembers>>,
    #[serde(default)]
    active: Option<IgnoredAny>,
    #[serde(
        default,
        rename = "urn:ietf:params:scim:schemas:extension:equip:1.0:User"
    )]
    extension: Option<PersonExtensionMembers>,
    #[serde(default)]
    nick_name: Option<IgnoredAny>,
    #[serde(default)]
    profile_url: Option<IgnoredAny>,
    #[serde(default)]
    title: Option<IgnoredAny>,
    #[serde(default)]
    user_type: Option<IgnoredAny>,
    #[serde(default)]
    preferred_language: Option<IgnoredAny>,
    #[serde(default)]
    locale: Option<IgnoredAny>,
    #[serde(default)]
    timezone: Option<IgnoredAny>,
    #[serde(default)]
    ims: Option<Vec<PersonEntryMembers>>,
    #[serde(default)]
    photos: Option<Vec<PersonEntryMembers>>,
    #[serde(default)]
    entitlements: Option<Vec<PersonEntryMembers>>,
    #[serde(default)]
    roles: Option<Vec<PersonEntryMembers>>,
    #[serde(default)]
    x509_certificates: Option<Vec<PersonEntryMembers>>,
}

/// One entry of a person's `ims`, `photos`, `entitlements`, `roles` or
/// `x509Certificates`.
// Read for its member names only: the values are the SCIM user's.
#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an object with value, display, type and primary"
)]
pub struct PersonEntryMembers {
    #[serde(default)]
    value: Option<IgnoredAny>,
    #[serde(default)]
    display: Option<IgnoredAny>,
    #[serde(default, rename = "type")]
    kind: Option<IgnoredAny>,
    #[serde(default)]
    primary: Option<IgnoredAny>,
}

/// `name` of a person.
// Read for its member names only: the values are the SCIM user's.
#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "a name object"
)]
pub struct PersonNameMembers {
    #[serde(default)]
    given_name: Option<IgnoredAny>,
    #[serde(default)]
    family_name: Option<IgnoredAny>,
    #[serde(default)]
    formatted: Option<IgnoredAny>,
    #[serde(default)]
    middle_name: Option<IgnoredAny>,
    #[serde(default)]
    honorific_prefix: Option<IgnoredAny>,
    #[serde(default)]
    honorific_suffix: Option<IgnoredAny>,
}

/// One of a person's `emails` or `phoneNumbers`.
// Read for its member names only: the values are the SCIM user's.
#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an object with value, type and primary"
)]
pub struct PersonEmailMembers {
    #[serde(default)]
    value: Option<IgnoredAny>,
    #[serde(default, rename = "type")]
    kind: Option<IgnoredAny>,
    #[serde(default)]
    primary: Option<IgnoredAny>,
}

/// One of a person's `addresses`.
// Read for its member names only: the values are the SCIM user's.
#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "an address object"
)]
pub struct PersonAddressMembers {
    #[serde(default, rename = "type")]
    kind: Option<IgnoredAny>,
    #[serde(default)]
    primary: Option<IgnoredAny>,
    #[serde(default)]
    country: Option<IgnoredAny>,
    #[serde(default)]
    street_address: Option<IgnoredAny>,
    #[serde(default)]
    postal_code: Option<IgnoredAny>,
    #[serde(default)]
    region: Option<IgnoredAny>,
    #[serde(default)]
    locality: Option<IgnoredAny>,
}

/// equip's extension of a person.
// Read for its member names only: the values are the SCIM user's.
#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    deny_unknown_fields,
    expecting = "an extension object"
)]
pub struct PersonExtensionMembers {
    #[serde(default)]
    package_id: Option<IgnoredAny>,
    #[serde(default)]
    start_date: Option<IgnoredAny>,
    #[serde(default)]
    status: Option<IgnoredAny>,
    #[serde(default)]
    skip_user_activation: Option<IgnoredAny>,
    #[serde(default)]
    cpf_number: Option<IgnoredAny>,
}
