//! Row types (one per table) and their conversions to and from the domain.
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

use crate::error::{DbError, DbResult};
use crate::schema::{
    api_keys, inventory_item_pricing, inventory_item_tags, inventory_items, inventory_levels,
    offices, organizations, packages, people, person_emails, return_order_items, return_orders,
    skus, warehouse_grants, warehouses,
};

// ---------------------------------------------------------------------------
// Value conversions
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Organizations and API keys
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = organizations, treat_none_as_default_value = false)]
pub(crate) struct OrganizationRow {
    pub id: String,
    pub name: String,
    pub created_at: NaiveDateTime,
}

impl From<&Organization> for OrganizationRow {
    fn from(o: &Organization) -> Self {
        Self {
            id: o.id.to_string(),
            name: o.name.as_str().to_owned(),
            created_at: db_time(o.created_at),
        }
    }
}

impl OrganizationRow {
    pub(crate) fn into_domain(self) -> DbResult<Organization> {
        Ok(Organization {
            id: parse_id(&self.id)?,
            name: OrganizationName::parse(&self.name)
                .map_err(|e| DbError::corrupt(e.to_string()))?,
            created_at: utc(self.created_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, QueryableByName, Selectable, Insertable)]
#[diesel(table_name = api_keys, treat_none_as_default_value = false)]
pub(crate) struct ApiKeyRow {
    pub id: String,
    pub organization_id: String,
    pub prefix: String,
    pub hash: String,
    pub scopes: String,
    pub label: Option<String>,
    pub created_at: NaiveDateTime,
    pub revoked_at: Option<NaiveDateTime>,
}

impl From<&ApiKey> for ApiKeyRow {
    fn from(k: &ApiKey) -> Self {
        Self {
            id: k.id.to_string(),
            organization_id: k.organization_id.to_string(),
            prefix: k.prefix.clone(),
            hash: k.hash.clone(),
            scopes: k.scopes.to_storage(),
            label: k.label.clone(),
            created_at: db_time(k.created_at),
            revoked_at: k.revoked_at.map(db_time),
        }
    }
}

impl ApiKeyRow {
    pub(crate) fn into_domain(self) -> DbResult<ApiKey> {
        Ok(ApiKey {
            id: parse_id::<ApiKeyId>(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            prefix: self.prefix,
            hash: self.hash,
            scopes: Scopes::parse_list(&self.scopes)
                .map_err(|e| DbError::corrupt(e.to_string()))?,
            label: self.label,
            created_at: utc(self.created_at),
            revoked_at: self.revoked_at.map(utc),
        })
    }
}

// ---------------------------------------------------------------------------
// Warehouses and offices
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = warehouses, treat_none_as_default_value = false)]
pub(crate) struct WarehouseRow {
    pub id: String,
    pub owner_organization_id: Option<String>,
    pub name: String,
    pub address_configured: bool,
    pub street1: Option<String>,
    pub street2: Option<String>,
    pub city: Option<String>,
    pub province: Option<String>,
    pub postal_code: Option<String>,
    pub country_code: Option<String>,
    pub phone_number: Option<String>,
}

impl From<&Warehouse> for WarehouseRow {
    fn from(w: &Warehouse) -> Self {
        let a = w.address.clone().unwrap_or_default();
        Self {
            id: w.id.to_string(),
            owner_organization_id: match w.owner {
                WarehouseOwner::Organization(o) => Some(o.to_string()),
                WarehouseOwner::Shared => None,
            },
            name: w.name.clone(),
            address_configured: w.address.is_some(),
            street1: a.street1,
            street2: a.street2,
            city: a.city,
            province: a.province,
            postal_code: a.postal_code,
            country_code: a.country_code,
            phone_number: a.phone_number,
        }
    }
}

impl WarehouseRow {
    pub(crate) fn into_domain(self) -> DbResult<Warehouse> {
        Ok(Warehouse {
            id: parse_id::<WarehouseId>(&self.id)?,
            owner: match self.owner_organization_id {
                Some(o) => WarehouseOwner::Organization(parse_id(&o)?),
                None => WarehouseOwner::Shared,
            },
            name: self.name,
            address: self.address_configured.then_some(WarehouseAddress {
                street1: self.street1,
                street2: self.street2,
                city: self.city,
                province: self.province,
                postal_code: self.postal_code,
                country_code: self.country_code,
                phone_number: self.phone_number,
            }),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = warehouse_grants, treat_none_as_default_value = false)]
pub(crate) struct WarehouseGrantRow {
    pub warehouse_id: String,
    pub organization_id: String,
    pub granted_at: NaiveDateTime,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = offices, treat_none_as_default_value = false)]
pub(crate) struct OfficeRow {
    pub id: String,
    pub organization_id: String,
    pub name: String,
}

impl From<&Office> for OfficeRow {
    fn from(o: &Office) -> Self {
        Self {
            id: o.id.to_string(),
            organization_id: o.organization_id.to_string(),
            name: o.name.clone(),
        }
    }
}

impl OfficeRow {
    #[allow(dead_code)]
    pub(crate) fn into_domain(self) -> DbResult<Office> {
        Ok(Office {
            id: parse_id::<OfficeId>(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            name: self.name,
        })
    }
}

// ---------------------------------------------------------------------------
// Catalog
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = skus, treat_none_as_default_value = false)]
pub(crate) struct SkuRow {
    pub id: String,
    pub organization_id: String,
    pub title: String,
    pub category_code: String,
    pub category_name: String,
    pub vendor_code: String,
    pub vendor_name: String,
    pub vendor_sku: String,
}

impl From<&Sku> for SkuRow {
    fn from(s: &Sku) -> Self {
        Self {
            id: s.id.to_string(),
            organization_id: s.organization_id.to_string(),
            title: s.title.clone(),
            category_code: s.category_code.clone(),
            category_name: s.category_name.clone(),
            vendor_code: s.vendor_code.clone(),
            vendor_name: s.vendor_name.clone(),
            vendor_sku: s.vendor_sku.clone(),
        }
    }
}

impl SkuRow {
    pub(crate) fn into_domain(self) -> DbResult<Sku> {
        Ok(Sku {
            id: parse_id::<SkuId>(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            title: self.title,
            category_code: self.category_code,
            category_name: self.category_name,
            vendor_code: self.vendor_code,
            vendor_name: self.vendor_name,
            vendor_sku: self.vendor_sku,
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = packages, treat_none_as_default_value = false)]
pub(crate) struct PackageRow {
    pub id: String,
    pub organization_id: String,
    pub slug: String,
    pub name: String,
}

impl From<&Package> for PackageRow {
    fn from(p: &Package) -> Self {
        Self {
            id: p.id.to_string(),
            organization_id: p.organization_id.to_string(),
            slug: p.slug.clone(),
            name: p.name.clone(),
        }
    }
}

impl PackageRow {
    pub(crate) fn into_domain(self) -> DbResult<Package> {
        Ok(Package {
            id: parse_id::<PackageId>(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            slug: self.slug,
            name: self.name,
        })
    }
}

// ---------------------------------------------------------------------------
// People
// ---------------------------------------------------------------------------

/// Stored shape of a phone number (JSON).
#[derive(Debug, Serialize, Deserialize)]
struct StoredPhone {
    value: String,
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    primary: bool,
}

/// Stored shape of an address (JSON).
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredAddress {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    primary: bool,
    #[serde(default)]
    country: Option<String>,
    #[serde(default)]
    street_address: Option<String>,
    #[serde(default)]
    postal_code: Option<String>,
    #[serde(default)]
    region: Option<String>,
    #[serde(default)]
    locality: Option<String>,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = people, treat_none_as_default_value = false)]
pub(crate) struct PersonRow {
    pub id: String,
    pub organization_id: String,
    pub external_id: Option<String>,
    pub user_name: String,
    pub user_name_lower: String,
    pub given_name: Option<String>,
    pub family_name: Option<String>,
    pub display_name: Option<String>,
    pub phone_numbers: String,
    pub addresses: String,
    pub active: bool,
    pub package_id: Option<String>,
    pub start_date: Option<NaiveDate>,
    pub status: String,
    pub skip_user_activation: Option<bool>,
    pub cpf_number: Option<String>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    pub version: i64,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = person_emails, treat_none_as_default_value = false)]
pub(crate) struct PersonEmailRow {
    pub person_id: String,
    pub organization_id: String,
    pub position: i32,
    pub value: String,
    pub value_lower: String,
    pub kind: Option<String>,
    pub is_primary: bool,
}

/// Rows of one person.
pub(crate) struct PersonRows {
    pub person: PersonRow,
    pub emails: Vec<PersonEmailRow>,
}

fn position(i: usize) -> DbResult<i32> {
    i32::try_from(i).map_err(|_| DbError::corrupt("too many list entries"))
}

impl PersonRows {
    pub(crate) fn from_domain(p: &Person) -> DbResult<Self> {
        let id = p.id.to_string();
        let org = p.organization_id.to_string();
        let phones: Vec<StoredPhone> = p
            .phone_numbers
            .iter()
            .map(|n| StoredPhone {
                value: n.value.clone(),
                kind: n.kind.clone(),
                primary: n.primary,
            })
            .collect();
        let addresses: Vec<StoredAddress> = p
            .addresses
            .iter()
            .map(|a| StoredAddress {
                kind: a.kind.clone(),
                primary: a.primary,
                country: a.country.clone(),
                street_address: a.street_address.clone(),
                postal_code: a.postal_code.clone(),
                region: a.region.clone(),
                locality: a.locality.clone(),
            })
            .collect();
        let emails = p
            .emails
            .iter()
            .enumerate()
            .map(|(i, e)| {
                Ok(PersonEmailRow {
                    person_id: id.clone(),
                    organization_id: org.clone(),
                    position: position(i)?,
                    value: e.value.clone(),
                    value_lower: identifier_key(&e.value),
                    kind: e.kind.clone(),
                    is_primary: e.primary,
                })
            })
            .collect::<DbResult<Vec<_>>>()?;
        Ok(Self {
            person: PersonRow {
                id,
                organization_id: org,
                external_id: p.external_id.clone(),
                user_name: p.user_name.clone(),
                user_name_lower: identifier_key(&p.user_name),
                given_name: p.given_name.clone(),
                family_name: p.family_name.clone(),
                display_name: p.display_name.clone(),
                phone_numbers: to_json(&phones)?,
                addresses: to_json(&addresses)?,
                active: p.active,
                package_id: p.package_id.map(|x| x.to_string()),
                start_date: p.start_date,
                status: p.status.as_str().to_owned(),
                skip_user_activation: p.skip_user_activation,
                cpf_number: p.cpf_number.clone(),
                created_at: db_time(p.created_at),
                updated_at: db_time(p.updated_at),
                version: p.version,
            },
            emails,
        })
    }

    /// `emails` must be in position order.
    pub(crate) fn into_domain(self) -> DbResult<Person> {
        let p = self.person;
        let phones: Vec<StoredPhone> = from_json(&p.phone_numbers)?;
        let addresses: Vec<StoredAddress> = from_json(&p.addresses)?;
        Ok(Person {
            id: parse_id::<PersonId>(&p.id)?,
            organization_id: parse_id(&p.organization_id)?,
            external_id: p.external_id,
            user_name: p.user_name,
            given_name: p.given_name,
            family_name: p.family_name,
            display_name: p.display_name,
            emails: self
                .emails
                .into_iter()
                .map(|e| Email {
                    value: e.value,
                    kind: e.kind,
                    primary: e.is_primary,
                })
                .collect(),
            phone_numbers: phones
                .into_iter()
                .map(|n| PhoneNumber {
                    value: n.value,
                    kind: n.kind,
                    primary: n.primary,
                })
                .collect(),
            addresses: addresses
                .into_iter()
                .map(|a| Address {
                    kind: a.kind,
                    primary: a.primary,
                    country: a.country,
                    street_address: a.street_address,
                    postal_code: a.postal_code,
                    region: a.region,
                    locality: a.locality,
                })
                .collect(),
            active: p.active,
            package_id: p
                .package_id
                .as_deref()
                .map(parse_id::<PackageId>)
                .transpose()?,
            start_date: p.start_date,
            status: PersonStatus::parse(&p.status).map_err(|e| DbError::corrupt(e.to_string()))?,
            skip_user_activation: p.skip_user_activation,
            cpf_number: p.cpf_number,
            created_at: utc(p.created_at),
            updated_at: utc(p.updated_at),
            version: p.version,
        })
    }
}

// ---------------------------------------------------------------------------
// Inventory
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = inventory_items, treat_none_as_default_value = false, treat_none_as_null = true)]
pub(crate) struct ItemRow {
    pub id: String,
    pub organization_id: String,
    pub sku_id: String,
    pub serial_number: Option<String>,
    pub imei: String,
    pub deploy_status: String,
    pub deploy_reason: Option<String>,
    pub condition: String,
    pub renewal_date: Option<NaiveDate>,
    pub renewal_date_updated_by: Option<String>,
    pub billing_start_date: Option<NaiveDate>,
    pub billing_end_date: Option<NaiveDate>,
    pub procurement_method: Option<String>,
    pub assignee_type: Option<String>,
    pub assignee_id: Option<String>,
    pub assigned_at: Option<NaiveDateTime>,
    pub description: Option<String>,
    pub erp_invoice_id: Option<String>,
    pub hold_start_date: Option<NaiveDate>,
    pub unlock_date: Option<NaiveDate>,
    pub itad_requested: Option<bool>,
    pub device_program_status: Option<String>,
    pub device_program_last_sync_at: Option<NaiveDateTime>,
    pub device_program_next_sync_at: Option<NaiveDateTime>,
    pub supplied_by: String,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = inventory_item_pricing, treat_none_as_default_value = false)]
pub(crate) struct PricingRow {
    pub item_id: String,
    pub organization_id: String,
    pub region_code: String,
    pub price_option: String,
    pub price: f64,
    pub currency_code: String,
    pub discounted_price: f64,
    pub discount_percentage: f64,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = inventory_item_tags, treat_none_as_default_value = false)]
pub(crate) struct TagRow {
    pub item_id: String,
    pub organization_id: String,
    pub position: i32,
    pub tag_id: String,
    pub label: String,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = return_orders, treat_none_as_default_value = false)]
pub(crate) struct ReturnOrderRow {
    pub id: String,
    pub organization_id: String,
    pub person_id: Option<String>,
    pub status: String,
    pub created_at: NaiveDateTime,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = return_order_items, treat_none_as_default_value = false)]
pub(crate) struct ReturnOrderItemRow {
    pub id: String,
    pub organization_id: String,
    pub return_order_id: String,
    pub inventory_item_id: String,
    pub status: String,
    pub active: bool,
    pub retrieval_id: Option<String>,
    pub retrieval_type: Option<String>,
    pub retrieval_status: Option<String>,
    pub retrieval_updated_at: Option<NaiveDateTime>,
    pub inbound_tracking_code: Option<String>,
    pub inbound_tracking_link: Option<String>,
    pub outbound_tracking_code: Option<String>,
    pub outbound_tracking_link: Option<String>,
}

/// Rows of one inventory item.
pub(crate) struct ItemRows {
    pub item: ItemRow,
    pub pricing: Option<PricingRow>,
    pub tags: Vec<TagRow>,
    /// The active return: its order and its line for this item.
    pub active_return: Option<(ReturnOrderRow, ReturnOrderItemRow)>,
}

impl ItemRows {
    pub(crate) fn from_domain(i: &InventoryItem) -> DbResult<Self> {
        let id = i.id.to_string();
        let org = i.organization_id.to_string();
        let tags = i
            .tags
            .iter()
            .enumerate()
            .map(|(n, t)| {
                Ok(TagRow {
                    item_id: id.clone(),
                    organization_id: org.clone(),
                    position: position(n)?,
                    tag_id: t.id.to_string(),
                    label: t.label.clone(),
                })
            })
            .collect::<DbResult<Vec<_>>>()?;
        let pricing = i.pricing.as_ref().map(|p| PricingRow {
            item_id: id.clone(),
            organization_id: org.clone(),
            region_code: p.region_code.clone(),
            price_option: p.price_option.clone(),
            price: p.price,
            currency_code: p.currency_code.clone(),
            discounted_price: p.discounted_price,
            discount_percentage: p.discount_percentage,
        });
        let active_return = i.return_order.as_ref().map(|r| {
            let (rid, rtype, rstatus, rat, in_code, in_link, out_code, out_link) =
                match &r.retrieval {
                    None => (None, None, None, None, None, None, None, None),
                    Some(ret) => {
                        let (a, b, c, d) = match &ret.kind {
                            RetrievalKind::ReturnKit {
                                inbound_tracking_code,
                                inbound_tracking_link,
                                outbound_tracking_code,
                                outbound_tracking_link,
                            } => (
                                inbound_tracking_code.clone(),
                                inbound_tracking_link.clone(),
                                outbound_tracking_code.clone(),
                                outbound_tracking_link.clone(),
                            ),
                            RetrievalKind::InboundLabel {
                                inbound_tracking_code,
                                inbound_tracking_link,
                            } => (
                                inbound_tracking_code.clone(),
                                inbound_tracking_link.clone(),
                                None,
                                None,
                            ),
                            RetrievalKind::Physical => (None, None, None, None),
                        };
                        (
                            Some(ret.id.to_string()),
                            Some(ret.kind.type_name().to_owned()),
                            Some(ret.status.as_str().to_owned()),
                            Some(db_time(ret.updated_at)),
                            a,
                            b,
                            c,
                            d,
                        )
                    }
                };
            (
                ReturnOrderRow {
                    id: r.id.to_string(),
                    organization_id: org.clone(),
                    person_id: None,
                    status: r.status.as_str().to_owned(),
                    created_at: db_time(r.created_at),
                },
                ReturnOrderItemRow {
                    id: r.return_order_item_id.to_string(),
                    organization_id: org.clone(),
                    return_order_id: r.id.to_string(),
                    inventory_item_id: id.clone(),
                    status: r.return_order_item_status.as_str().to_owned(),
                    active: true,
                    retrieval_id: rid,
                    retrieval_type: rtype,
                    retrieval_status: rstatus,
                    retrieval_updated_at: rat,
                    inbound_tracking_code: in_code,
                    inbound_tracking_link: in_link,
                    outbound_tracking_code: out_code,
                    outbound_tracking_link: out_link,
                },
            )
        });
        let (assignee_type, assignee_id, assigned_at) = match i.assignment {
            Some(a) => (
                Some(a.assignee.kind().as_str().to_owned()),
                Some(id_text(&a.assignee.id())),
                a.assigned_at.map(db_time),
            ),
            None => (None, None, None),
        };
        let item = ItemRow {
            id,
            organization_id: org,
            sku_id: i.sku_id.to_string(),
            serial_number: i.serial_number.clone(),
            imei: to_json(&i.imei)?,
            deploy_status: i.deploy_status.as_str().to_owned(),
            deploy_reason: i.deploy_reason.map(|r| r.as_str().to_owned()),
            condition: i.condition.as_str().to_owned(),
            renewal_date: i.renewal_date,
            renewal_date_updated_by: i.renewal_date_updated_by.map(|r| r.as_str().to_owned()),
            billing_start_date: i.billing_start_date,
            billing_end_date: i.billing_end_date,
            procurement_method: i.procurement_method.clone(),
            assignee_type,
            assignee_id,
            assigned_at,
            description: i.description.clone(),
            erp_invoice_id: i.erp_invoice_id.clone(),
            hold_start_date: i.hold_start_date,
            unlock_date: i.unlock_date,
            itad_requested: i.itad_requested,
            device_program_status: i
                .device_program
                .as_ref()
                .map(|d| d.assignment_status.as_str().to_owned()),
            device_program_last_sync_at: i
                .device_program
                .as_ref()
                .and_then(|d| d.last_sync_timestamp.map(db_time)),
            device_program_next_sync_at: i
                .device_program
                .as_ref()
                .map(|d| db_time(d.next_sync_timestamp)),
            supplied_by: i.supplied_by.as_str().to_owned(),
            created_at: db_time(i.created_at),
            updated_at: db_time(i.updated_at),
        };
        Ok(Self {
            item,
            pricing,
            tags,
            active_return,
        })
    }

    /// `tags` must be in position order.
    pub(crate) fn into_domain(self) -> DbResult<InventoryItem> {
        let r = self.item;
        let assignment = match (r.assignee_type.as_deref(), r.assignee_id.as_deref()) {
            (Some(kind), Some(id)) => Some(Assignment {
                assignee: Assignee::new(
                    parse_enum(kind, AssigneeType::parse)?,
                    Uuid::parse_str(id)
                        .map_err(|_| DbError::corrupt(format!("'{id}' is not a UUID")))?,
                ),
                assigned_at: r.assigned_at.map(utc),
            }),
            (None, None) => None,
            _ => return Err(DbError::corrupt("assignee_type and assignee_id disagree")),
        };
        let device_program = match (
            r.device_program_status.as_deref(),
            r.device_program_next_sync_at,
        ) {
            (Some(status), Some(next)) => Some(DeviceProgram {
                assignment_status: parse_enum(status, DeviceProgramStatus::parse)?,
                last_sync_timestamp: r.device_program_last_sync_at.map(utc),
                next_sync_timestamp: utc(next),
            }),
            (None, _) => None,
            (Some(_), None) => {
                return Err(DbError::corrupt("device program without next sync time"))
            }
        };
        let return_order = self
            .active_return
            .map(|(o, line)| return_info(o, line))
            .transpose()?;
        Ok(InventoryItem {
            id: parse_id::<InventoryItemId>(&r.id)?,
            organization_id: parse_id::<OrganizationId>(&r.organization_id)?,
            sku_id: parse_id(&r.sku_id)?,
            serial_number: r.serial_number,
            imei: from_json(&r.imei)?,
            deploy_status: parse_enum(&r.deploy_status, DeployStatus::parse)?,
            deploy_reason: parse_opt_enum(r.deploy_reason.as_deref(), DeployReason::parse)?,
            condition: parse_enum(&r.condition, Condition::parse)?,
            renewal_date: r.renewal_date,
            renewal_date_updated_by: parse_opt_enum(
                r.renewal_date_updated_by.as_deref(),
                RenewalDateUpdatedBy::parse,
            )?,
            billing_start_date: r.billing_start_date,
            billing_end_date: r.billing_end_date,
            procurement_method: r.procurement_method,
            assignment,
            tags: self
                .tags
                .into_iter()
                .map(|t| {
                    Ok(Tag {
                        id: parse_id::<TagId>(&t.tag_id)?,
                        label: t.label,
                    })
                })
                .collect::<DbResult<Vec<_>>>()?,
            pricing: self.pricing.map(|p| Price {
                region_code: p.region_code,
                price_option: p.price_option,
                price: p.price,
                currency_code: p.currency_code,
                discounted_price: p.discounted_price,
                discount_percentage: p.discount_percentage,
            }),
            description: r.description,
            erp_invoice_id: r.erp_invoice_id,
            hold_start_date: r.hold_start_date,
            unlock_date: r.unlock_date,
            itad_requested: r.itad_requested,
            device_program,
            supplied_by: parse_enum(&r.supplied_by, SuppliedBy::parse)?,
            return_order,
            created_at: utc(r.created_at),
            updated_at: utc(r.updated_at),
        })
    }
}

fn return_info(order: ReturnOrderRow, line: ReturnOrderItemRow) -> DbResult<ReturnInfo> {
    let retrieval = match (
        line.retrieval_id.as_deref(),
        line.retrieval_type.as_deref(),
        line.retrieval_status.as_deref(),
        line.retrieval_updated_at,
    ) {
        (None, None, None, None) => None,
        (Some(id), Some(kind), Some(status), Some(updated_at)) => {
            let kind = match kind {
                "RETURN_KIT" => RetrievalKind::ReturnKit {
                    inbound_tracking_code: line.inbound_tracking_code,
                    inbound_tracking_link: line.inbound_tracking_link,
                    outbound_tracking_code: line.outbound_tracking_code,
                    outbound_tracking_link: line.outbound_tracking_link,
                },
                "INBOUND_LABEL" => RetrievalKind::InboundLabel {
                    inbound_tracking_code: line.inbound_tracking_code,
                    inbound_tracking_link: line.inbound_tracking_link,
                },
                "PHYSICAL" => RetrievalKind::Physical,
                other => {
                    return Err(DbError::corrupt(format!(
                        "unknown retrieval type '{other}'"
                    )))
                }
            };
            Some(Retrieval {
                id: parse_id::<RetrievalId>(id)?,
                status: parse_enum(status, RetrievalStatus::parse)?,
                updated_at: utc(updated_at),
                kind,
            })
        }
        _ => return Err(DbError::corrupt("incomplete retrieval columns")),
    };
    Ok(ReturnInfo {
        id: parse_id::<ReturnOrderId>(&order.id)?,
        status: parse_enum(&order.status, ReturnStatus::parse)?,
        created_at: utc(order.created_at),
        return_order_item_id: parse_id::<ReturnOrderItemId>(&line.id)?,
        return_order_item_status: parse_enum(&line.status, ReturnStatus::parse)?,
        retrieval,
    })
}

// ---------------------------------------------------------------------------
// Inventory levels
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = inventory_levels, treat_none_as_default_value = false)]
pub(crate) struct LevelRow {
    pub id: String,
    pub organization_id: String,
    pub sku_id: String,
    pub warehouse_id: String,
    pub minimum_quantity: i32,
    pub target_quantity: i32,
    pub created_at: NaiveDateTime,
    pub deactivated_at: Option<NaiveDateTime>,
}

impl From<&InventoryLevel> for LevelRow {
    fn from(l: &InventoryLevel) -> Self {
        Self {
            id: l.id.to_string(),
            organization_id: l.organization_id.to_string(),
            sku_id: l.sku_id.to_string(),
            warehouse_id: l.warehouse_id.to_string(),
            minimum_quantity: l.minimum_quantity,
            target_quantity: l.target_quantity,
            created_at: db_time(l.created_at),
            deactivated_at: l.deactivated_at.map(db_time),
        }
    }
}

impl LevelRow {
    pub(crate) fn into_domain(self) -> DbResult<InventoryLevel> {
        Ok(InventoryLevel {
            id: parse_id::<InventoryLevelId>(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            sku_id: parse_id(&self.sku_id)?,
            warehouse_id: parse_id(&self.warehouse_id)?,
            minimum_quantity: self.minimum_quantity,
            target_quantity: self.target_quantity,
            created_at: utc(self.created_at),
            deactivated_at: self.deactivated_at.map(utc),
        })
    }
}
