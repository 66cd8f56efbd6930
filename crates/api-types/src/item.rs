//! The inventory item as JSON (docs/api.md, "The item"): one serializer for every
//! place that shows an item — the single-item endpoints, the listing, and the
//! pre-rendered item text the store keeps in each listing row (so that a page
//! is concatenated, not rebuilt) — and its OpenAPI schema (`InventoryItem`),
//! derived from the same types. The database store renders items at write time
//! and the HTTP layer renders single items, both through [`ItemBody`]. The
//! import reads the same shape back ([`super::import_item`]).
//!
//! The members of `returnOrder` and of its `retrievalMethod` are declared in
//! alphabetical order: the order in which items stored before these types
//! existed were rendered (the listing keeps rendered items), so that every
//! item's text stays byte for byte what it was.

use chrono::NaiveDate;
use serde::Serialize;
use utoipa::openapi::schema::{
    AdditionalProperties, Object, ObjectBuilder, OneOfBuilder, Schema, SchemaFormat, Type,
};
use utoipa::openapi::{KnownFormat, Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

use equip_domain::ids::{
    InventoryItemId, RetrievalId, ReturnOrderId, ReturnOrderItemId, SkuId, TagId,
};
use equip_domain::inventory::{
    AssigneeType, Condition, DeployReason, DeployStatus, DeviceProgramStatus, Price,
    RenewalDateUpdatedBy, Retrieval, RetrievalKind, RetrievalStatus, ReturnInfo, ReturnStatus,
    SuppliedBy, Tag,
};
use equip_domain::inventory_query::InventoryItemView;

use crate::schema::{names, nullable_one_of, one_of};

use crate::time::auto as time;

pub(crate) fn deploy_status() -> Object {
    one_of(names!(DeployStatus))
}

pub(crate) fn deploy_reason() -> Object {
    nullable_one_of(names!(DeployReason))
}

pub(crate) fn condition() -> Object {
    one_of(names!(Condition))
}

fn renewal_date_updated_by() -> Object {
    nullable_one_of(names!(RenewalDateUpdatedBy))
}

fn supplied_by() -> Object {
    one_of(names!(SuppliedBy))
}

fn return_status() -> Object {
    one_of(names!(ReturnStatus))
}

fn retrieval_status() -> Object {
    one_of(names!(RetrievalStatus))
}

pub(crate) fn assignee_type() -> Object {
    one_of(names!(AssigneeType))
}

fn device_program_status() -> Object {
    one_of(names!(DeviceProgramStatus))
}

/// The inventory item. Every member is present; absent values are `null`; `imei` and `tags` are always arrays.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = InventoryItem)]
pub struct ItemBody<'a> {
    #[schema(value_type = uuid::Uuid)]
    id: InventoryItemId,
    #[schema(value_type = uuid::Uuid)]
    sku_id: SkuId,
    #[schema(required)]
    serial_number: Option<&'a str>,
    #[schema(value_type = Vec<String>)]
    imei: &'a [String],
    #[schema(schema_with = deploy_status)]
    deploy_status: DeployStatus,
    #[schema(schema_with = deploy_reason, required)]
    deploy_reason: Option<DeployReason>,
    #[schema(schema_with = condition)]
    condition: Condition,
    category_code: &'a str,
    category_name_of_sku: &'a str,
    sku_title: &'a str,
    vendor_code: &'a str,
    vendor_sku: &'a str,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    #[schema(required)]
    renewal_date: Option<NaiveDate>,
    #[schema(schema_with = renewal_date_updated_by, required)]
    renewal_date_updated_by: Option<RenewalDateUpdatedBy>,
    #[schema(required)]
    billing_start_date: Option<NaiveDate>,
    #[schema(required)]
    billing_end_date: Option<NaiveDate>,
    #[schema(required)]
    procurement_method: Option<&'a str>,
    #[schema(inline, required)]
    return_order: Option<ReturnOrderBody<'a>>,
    #[schema(inline, required)]
    assigned_to: Option<AssigneeBody<'a>>,
    #[schema(value_type = std::collections::BTreeSet<TagBody>)]
    tags: Vec<TagBody<'a>>,
    #[schema(inline, required)]
    pricing: Option<PriceBody<'a>>,
    #[schema(required)]
    description: Option<&'a str>,
    #[schema(required)]
    erp_invoice_id: Option<&'a str>,
    #[schema(required)]
    hold_start_date: Option<NaiveDate>,
    #[schema(required)]
    unlock_date: Option<NaiveDate>,
    #[schema(required)]
    itad_requested: Option<bool>,
    #[schema(inline, required)]
    device_program: Option<DeviceProgramBody>,
    #[schema(schema_with = supplied_by)]
    supplied_by: SuppliedBy,
}

/// A label on an item, with its id (kept while the label stays on the item).
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Tag)]
pub struct TagBody<'a> {
    #[schema(value_type = uuid::Uuid)]
    id: TagId,
    label: &'a str,
}

/// Who holds an item (`assignedTo`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AssigneeBody<'a> {
    id: uuid::Uuid,
    #[serde(rename = "type")]
    #[schema(schema_with = assignee_type)]
    kind: AssigneeType,
    /// A person's email, an office's or warehouse's name.
    #[schema(required)]
    label: Option<&'a str>,
    #[schema(format = DateTime, required)]
    assigned_at: Option<String>,
}

/// The price of an item (`pricing`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PriceBody<'a> {
    region_code: &'a str,
    price_option: &'a str,
    price: f64,
    currency_code: &'a str,
    discounted_price: f64,
    discount_percentage: f64,
}

/// The device-management program (`deviceProgram`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeviceProgramBody {
    #[schema(schema_with = device_program_status)]
    assignment_status: DeviceProgramStatus,
    #[schema(format = DateTime, required)]
    last_sync_timestamp: Option<String>,
    #[schema(format = DateTime)]
    next_sync_timestamp: String,
}

/// The item's active return (`returnOrder`).
// Members in alphabetical order (see the module's documentation).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReturnOrderBody<'a> {
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(value_type = uuid::Uuid)]
    id: ReturnOrderId,
    #[schema(inline, required)]
    retrieval_method: Option<RetrievalBody<'a>>,
    #[schema(value_type = uuid::Uuid)]
    return_order_item_id: ReturnOrderItemId,
    #[schema(schema_with = return_status)]
    return_order_item_status: ReturnStatus,
    #[schema(schema_with = return_status)]
    status: ReturnStatus,
}

/// How a returned item comes back, told apart by `type`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
#[schema(discriminator(
    property_name = "type",
    mapping(
        ("RETURN_KIT" = "#/components/schemas/ReturnKitRetrieval"),
        ("INBOUND_LABEL" = "#/components/schemas/InboundLabelRetrieval"),
        ("PHYSICAL" = "#/components/schemas/PhysicalRetrieval"),
    )
))]
pub enum RetrievalBody<'a> {
    // A pre-paid kit sent to the holder.
    ReturnKit(ReturnKitRetrieval<'a>),
    // A pre-paid label sent to the holder.
    InboundLabel(InboundLabelRetrieval<'a>),
    // Dropped off in person or collected by courier.
    Physical(PhysicalRetrieval),
}

/// A return kit: a pre-paid kit sent to the holder, then the equipment coming back.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReturnKitRetrieval<'a> {
    #[schema(value_type = uuid::Uuid)]
    id: RetrievalId,
    #[schema(required)]
    inbound_tracking_code: Option<&'a str>,
    #[schema(required)]
    inbound_tracking_link: Option<&'a str>,
    #[schema(required)]
    outbound_tracking_code: Option<&'a str>,
    #[schema(required)]
    outbound_tracking_link: Option<&'a str>,
    #[schema(schema_with = retrieval_status)]
    status: RetrievalStatus,
    #[serde(rename = "type")]
    #[schema(schema_with = return_kit)]
    kind: &'static str,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// An inbound label: a pre-paid label sent to the holder.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InboundLabelRetrieval<'a> {
    #[schema(value_type = uuid::Uuid)]
    id: RetrievalId,
    #[schema(required)]
    inbound_tracking_code: Option<&'a str>,
    #[schema(required)]
    inbound_tracking_link: Option<&'a str>,
    #[schema(schema_with = retrieval_status)]
    status: RetrievalStatus,
    #[serde(rename = "type")]
    #[schema(schema_with = inbound_label)]
    kind: &'static str,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// A physical retrieval: dropped off in person or collected by courier.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PhysicalRetrieval {
    #[schema(value_type = uuid::Uuid)]
    id: RetrievalId,
    #[schema(schema_with = retrieval_status)]
    status: RetrievalStatus,
    #[serde(rename = "type")]
    #[schema(schema_with = physical)]
    kind: &'static str,
    #[schema(format = DateTime)]
    updated_at: String,
}

/// The retrieval kinds without their data: the `type` each shows.
const KINDS: [RetrievalKind; 3] = [
    RetrievalKind::ReturnKit {
        inbound_tracking_code: None,
        inbound_tracking_link: None,
        outbound_tracking_code: None,
        outbound_tracking_link: None,
    },
    RetrievalKind::InboundLabel {
        inbound_tracking_code: None,
        inbound_tracking_link: None,
    },
    RetrievalKind::Physical,
];

fn return_kit() -> Object {
    one_of([KINDS[0].type_name()])
}

fn inbound_label() -> Object {
    one_of([KINDS[1].type_name()])
}

fn physical() -> Object {
    one_of([KINDS[2].type_name()])
}

impl<'a> From<&'a Retrieval> for RetrievalBody<'a> {
    fn from(m: &'a Retrieval) -> Self {
        let (id, status, kind, updated_at) =
            (m.id, m.status, m.kind.type_name(), time(m.updated_at));
        match &m.kind {
            RetrievalKind::ReturnKit {
                inbound_tracking_code,
                inbound_tracking_link,
                outbound_tracking_code,
                outbound_tracking_link,
            } => Self::ReturnKit(ReturnKitRetrieval {
                id,
                inbound_tracking_code: inbound_tracking_code.as_deref(),
                inbound_tracking_link: inbound_tracking_link.as_deref(),
                outbound_tracking_code: outbound_tracking_code.as_deref(),
                outbound_tracking_link: outbound_tracking_link.as_deref(),
                status,
                kind,
                updated_at,
            }),
            RetrievalKind::InboundLabel {
                inbound_tracking_code,
                inbound_tracking_link,
            } => Self::InboundLabel(InboundLabelRetrieval {
                id,
                inbound_tracking_code: inbound_tracking_code.as_deref(),
                inbound_tracking_link: inbound_tracking_link.as_deref(),
                status,
                kind,
                updated_at,
            }),
            RetrievalKind::Physical => Self::Physical(PhysicalRetrieval {
                id,
                status,
                kind,
                updated_at,
            }),
        }
    }
}

impl<'a> From<&'a ReturnInfo> for ReturnOrderBody<'a> {
    fn from(r: &'a ReturnInfo) -> Self {
        Self {
            created_at: time(r.created_at),
            id: r.id,
            retrieval_method: r.retrieval.as_ref().map(RetrievalBody::from),
            return_order_item_id: r.return_order_item_id,
            return_order_item_status: r.return_order_item_status,
            status: r.status,
        }
    }
}

impl<'a> From<&'a Tag> for TagBody<'a> {
    fn from(t: &'a Tag) -> Self {
        Self {
            id: t.id,
            label: &t.label,
        }
    }
}

impl<'a> From<&'a Price> for PriceBody<'a> {
    fn from(p: &'a Price) -> Self {
        Self {
            region_code: &p.region_code,
            price_option: &p.price_option,
            price: p.price,
            currency_code: &p.currency_code,
            discounted_price: p.discounted_price,
            discount_percentage: p.discount_percentage,
        }
    }
}

/// The members of an item's JSON, in the order [`ItemBody`] writes them.
pub const FIELDS: [&str; 30] = [
    "id",
    "skuId",
    "serialNumber",
    "imei",
    "deployStatus",
    "deployReason",
    "condition",
    "categoryCode",
    "categoryNameOfSku",
    "skuTitle",
    "vendorCode",
    "vendorSku",
    "createdAt",
    "updatedAt",
    "renewalDate",
    "renewalDateUpdatedBy",
    "billingStartDate",
    "billingEndDate",
    "procurementMethod",
    "returnOrder",
    "assignedTo",
    "tags",
    "pricing",
    "description",
    "erpInvoiceId",
    "holdStartDate",
    "unlockDate",
    "itadRequested",
    "deviceProgram",
    "suppliedBy",
];

impl<'a> From<&'a InventoryItemView> for ItemBody<'a> {
    fn from(v: &'a InventoryItemView) -> Self {
        let i = &v.item;
        Self {
            id: i.id,
            sku_id: i.sku_id,
            serial_number: i.serial_number.as_deref(),
            imei: &i.imei,
            deploy_status: i.deploy_status,
            deploy_reason: i.deploy_reason,
            condition: i.condition,
            category_code: &v.sku.category_code,
            category_name_of_sku: &v.sku.category_name,
            sku_title: &v.sku.title,
            vendor_code: &v.sku.vendor_code,
            vendor_sku: &v.sku.vendor_sku,
            created_at: time(i.created_at),
            updated_at: time(i.updated_at),
            renewal_date: i.renewal_date,
            renewal_date_updated_by: i.renewal_date_updated_by,
            billing_start_date: i.billing_start_date,
            billing_end_date: i.billing_end_date,
            procurement_method: i.procurement_method.as_deref(),
            return_order: i.return_order.as_ref().map(ReturnOrderBody::from),
            assigned_to: i.assignment.map(|a| AssigneeBody {
                id: a.assignee.id(),
                kind: a.assignee.kind(),
                label: v.assignee_label.as_deref(),
                assigned_at: a.assigned_at.map(time),
            }),
            tags: i.tags.iter().map(TagBody::from).collect(),
            pricing: i.pricing.as_ref().map(PriceBody::from),
            description: i.description.as_deref(),
            erp_invoice_id: i.erp_invoice_id.as_deref(),
            hold_start_date: i.hold_start_date,
            unlock_date: i.unlock_date,
            itad_requested: i.itad_requested,
            device_program: i.device_program.as_ref().map(|d| DeviceProgramBody {
                assignment_status: d.assignment_status,
                last_sync_timestamp: d.last_sync_timestamp.map(time),
                next_sync_timestamp: time(d.next_sync_timestamp),
            }),
            supplied_by: i.supplied_by,
        }
    }
}

/// An item's JSON text, as every endpoint shows it (the text a database
/// store keeps in the item's listing row).
///
/// # Errors
/// Serialization failures (none are expected for these types).
pub fn render(view: &InventoryItemView) -> Result<String, serde_json::Error> {
    serde_json::to_string(&ItemBody::from(view))
}

/// A page of the listing: its items and where it is.
// The route writes it by concatenating the items' rendered texts around
// [`Pagination`]; this type describes it for the OpenAPI document.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = InventoryPage)]
pub struct InventoryPageBody<'a> {
    /// The page's items, in the query's order.
    data: Vec<ItemBody<'a>>,
    /// Where the page is in the whole listing.
    pagination: Pagination,
}

/// Where a page is in the whole listing.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Pagination {
    /// Items matching the filters.
    #[schema(minimum = 0)]
    pub total_records: u64,
    /// Pages of `pageSize` they fill.
    #[schema(minimum = 0)]
    pub total_pages: u64,
    /// This page (from 1).
    #[schema(minimum = 1)]
    pub current_page: u32,
    /// Items per page.
    #[schema(minimum = 1)]
    pub page_size: u32,
}

/// The answer to `POST /api/v1/inventory`: the new item, to a key that may
/// read it; only its id to a key that may only write.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ItemCreated<'a> {
    /// The item.
    Item(Box<ItemBody<'a>>),
    /// Its id alone: `{"id"}`.
    Id {
        /// The new item's id.
        id: InventoryItemId,
    },
}

impl<'a> ItemCreated<'a> {
    /// The answer to a key that may read the item.
    #[must_use]
    pub fn item(view: &'a InventoryItemView) -> Self {
        Self::Item(Box::new(ItemBody::from(view)))
    }

    /// The answer to a key that may only write.
    #[must_use]
    pub fn id(view: &InventoryItemView) -> Self {
        Self::Id { id: view.item.id }
    }
}

// Written by hand: a derive would make the `{"id"}` object open to other
// members (serde's `deny_unknown_fields` does not reach an enum's variant).
impl PartialSchema for ItemCreated<'_> {
    fn schema() -> RefOr<Schema> {
        body_or_id(ItemBody::name())
    }
}

/// The schema of a create's answer: the schema named `body`, or `{"id"}`
/// alone (the answer to a key that may only write).
pub(crate) fn body_or_id(body: std::borrow::Cow<'_, str>) -> RefOr<Schema> {
    OneOfBuilder::new()
        .item(Ref::from_schema_name(body))
        .item(
            ObjectBuilder::new()
                .required("id")
                .additional_properties(Some(AdditionalProperties::<Schema>::FreeForm(false)))
                .property(
                    "id",
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid))),
                ),
        )
        .into()
}

impl ToSchema for ItemCreated<'_> {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((ItemBody::name().into_owned(), ItemBody::schema()));
        ItemBody::schemas(schemas);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};
    use equip_domain::catalog::Sku;
    use equip_domain::ids::{OrganizationId, PersonId};
    use equip_domain::inventory::{Assignee, Assignment, DeviceProgram, InventoryItem};

    fn id(n: u128) -> uuid::Uuid {
        uuid::Uuid::from_u128(n)
    }

    /// An item with every member set, holding a return with `retrieval`.
    fn view(retrieval: Option<RetrievalKind>) -> InventoryItemView {
        let t = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
        let ms = t + chrono::Duration::milliseconds(120);
        let day = NaiveDate::from_ymd_opt(2027, 6, 30).unwrap();
        let item = InventoryItem {
            id: InventoryItemId::from_uuid(id(1)),
            organization_id: OrganizationId::from_uuid(id(2)),
            sku_id: SkuId::from_uuid(id(3)),
            serial_number: Some("SN-\"1\"".into()),
            imei: vec!["356600000000001".into(), "356600000000002".into()],
            deploy_status: DeployStatus::Unavailable,
            deploy_reason: Some(DeployReason::InTransit),
            condition: Condition::UsedGood,
            renewal_date: Some(day),
            renewal_date_updated_by: Some(RenewalDateUpdatedBy::ManuallyUpdated),
            billing_start_date: Some(day),
            billing_end_date: None,
            procurement_method: Some("PURCHASE".into()),
            assignment: Some(Assignment {
                assignee: Assignee::Person(PersonId::from_uuid(id(4))),
                assigned_at: Some(ms),
            }),
            tags: vec![Tag {
                id: TagId::from_uuid(id(5)),
                label: "loaner".into(),
            }],
            pricing: Some(Price {
                region_code: "DE".into(),
                price_option: "RENTAL_24M".into(),
                price: 2399.0,
                currency_code: "EUR".into(),
                discounted_price: 2159.1,
                discount_percentage: 10.0,
            }),
            description: Some("Spare ✓".into()),
            erp_invoice_id: None,
            hold_start_date: None,
            unlock_date: Some(day),
            itad_requested: Some(false),
            device_program: Some(DeviceProgram {
                assignment_status: DeviceProgramStatus::Assigned,
                last_sync_timestamp: None,
                next_sync_timestamp: t,
            }),
            supplied_by: SuppliedBy::Operator,
            return_order: Some(ReturnInfo {
                id: ReturnOrderId::from_uuid(id(6)),
                status: ReturnStatus::Processing,
                created_at: t,
                return_order_item_id: ReturnOrderItemId::from_uuid(id(7)),
                return_order_item_status: ReturnStatus::ReturnKitSent,
                retrieval: retrieval.map(|kind| Retrieval {
                    id: RetrievalId::from_uuid(id(8)),
                    status: RetrievalStatus::Shipped,
                    updated_at: ms,
                    kind,
                }),
            }),
            created_at: t,
            updated_at: ms,
        };
        InventoryItemView {
            item,
            sku: Sku {
                id: SkuId::from_uuid(id(3)),
                organization_id: OrganizationId::from_uuid(id(2)),
                title: "MacBook Pro 14".into(),
                category_code: "LAPTOP".into(),
                category_name: "Laptops".into(),
                vendor_code: "APPLE".into(),
                vendor_name: "Apple".into(),
                vendor_sku: "MBP14-M3".into(),
            },
            assignee_label: Some("ada@x.example".into()),
        }
    }

    /// The item's text, byte for byte as items were rendered before these
    /// types (`json!`, members of `returnOrder` in alphabetical order): the
    /// listing keeps each item's text, so a change here would leave stored
    /// items rendered differently from new ones.
    #[test]
    fn an_item_renders_exactly_as_stored_items_were_rendered() {
        let head = concat!(
            r#"{"id":"00000000-0000-0000-0000-000000000001","skuId":"00000000-0000-0000-0000-000000000003","#,
            r#""serialNumber":"SN-\"1\"","imei":["356600000000001","356600000000002"],"#,
            r#""deployStatus":"UNAVAILABLE","deployReason":"IN_TRANSIT","condition":"USED_GOOD","#,
            r#""categoryCode":"LAPTOP","categoryNameOfSku":"Laptops","skuTitle":"MacBook Pro 14","#,
            r#""vendorCode":"APPLE","vendorSku":"MBP14-M3","createdAt":"2026-01-02T03:04:05Z","#,
            r#""updatedAt":"2026-01-02T03:04:05.120Z","renewalDate":"2027-06-30","#,
            r#""renewalDateUpdatedBy":"RENEWAL_DATE_MANUALLY_UPDATED","billingStartDate":"2027-06-30","#,
            r#""billingEndDate":null,"procurementMethod":"PURCHASE","#,
            r#""returnOrder":{"createdAt":"2026-01-02T03:04:05Z","id":"00000000-0000-0000-0000-000000000006","retrievalMethod":"#,
        );
        let tail = concat!(
            r#","returnOrderItemId":"00000000-0000-0000-0000-000000000007","returnOrderItemStatus":"RETURN_KIT_SENT","status":"PROCESSING"},"#,
            r#""assignedTo":{"id":"00000000-0000-0000-0000-000000000004","type":"PERSON","label":"ada@x.example","assignedAt":"2026-01-02T03:04:05.120Z"},"#,
            r#""tags":[{"id":"00000000-0000-0000-0000-000000000005","label":"loaner"}],"#,
            r#""pricing":{"regionCode":"DE","priceOption":"RENTAL_24M","price":2399.0,"currencyCode":"EUR","discountedPrice":2159.1,"discountPercentage":10.0},"#,
            r#""description":"Spare ✓","erpInvoiceId":null,"holdStartDate":null,"unlockDate":"2027-06-30","itadRequested":false,"#,
            r#""deviceProgram":{"assignmentStatus":"ASSIGNED","lastSyncTimestamp":null,"nextSyncTimestamp":"2026-01-02T03:04:05Z"},"#,
            r#""suppliedBy":"OPERATOR"}"#,
        );
        let retrieval = |kind: &str, tracking: &str| {
            format!(
                r#"{{"id":"00000000-0000-0000-0000-000000000008",{tracking}"status":"SHIPPED","type":"{kind}","updatedAt":"2026-01-02T03:04:05.120Z"}}"#
            )
        };
        let cases = [
            (
                Some(RetrievalKind::ReturnKit {
                    inbound_tracking_code: Some("IN1".into()),
                    inbound_tracking_link: None,
                    outbound_tracking_code: Some("OUT1".into()),
                    outbound_tracking_link: Some("https://x.example/o".into()),
                }),
                retrieval(
                    "RETURN_KIT",
                    r#""inboundTrackingCode":"IN1","inboundTrackingLink":null,"outboundTrackingCode":"OUT1","outboundTrackingLink":"https://x.example/o","#,
                ),
            ),
            (
                Some(RetrievalKind::InboundLabel {
                    inbound_tracking_code: None,
                    inbound_tracking_link: Some("https://x.example/i".into()),
                }),
                retrieval(
                    "INBOUND_LABEL",
                    r#""inboundTrackingCode":null,"inboundTrackingLink":"https://x.example/i","#,
                ),
            ),
            (Some(RetrievalKind::Physical), retrieval("PHYSICAL", "")),
            (None, "null".to_owned()),
        ];
        for (kind, method) in cases {
            assert_eq!(
                render(&view(kind)).unwrap(),
                format!("{head}{method}{tail}")
            );
        }
    }

    #[test]
    fn each_retrieval_schema_names_the_type_the_domain_gives_it() {
        let doc = |schema: RefOr<Schema>| serde_json::to_value(schema).unwrap();
        let types = [
            doc(ReturnKitRetrieval::schema()),
            doc(InboundLabelRetrieval::schema()),
            doc(PhysicalRetrieval::schema()),
        ];
        let names = [
            ReturnKitRetrieval::name(),
            InboundLabelRetrieval::name(),
            PhysicalRetrieval::name(),
        ];
        let method = doc(RetrievalBody::schema());
        for ((kind, schema), name) in KINDS.iter().zip(types).zip(names) {
            assert_eq!(
                schema["properties"]["type"]["enum"],
                serde_json::json!([kind.type_name()])
            );
            assert_eq!(
                method["discriminator"]["mapping"][kind.type_name()],
                format!("#/components/schemas/{name}")
            );
        }
    }
}
