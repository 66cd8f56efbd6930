//! `GET /api/v1/inventory` (and its alias `/api/inventory`): the inventory
//! listing of decisions §5, and the item JSON of the API document.

use actix_web::{web, HttpRequest, HttpResponse};
use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use equip_domain::api_key::Scope;
use equip_domain::ids::{InventoryItemId, SkuId};
use equip_domain::inventory::{
    AssigneeType, Condition, DeployReason, DeployStatus, DeviceProgramStatus, Price,
    RenewalDateUpdatedBy, RetrievalKind, ReturnInfo, SuppliedBy, Tag,
};
use equip_domain::inventory_query::{InventoryItemView, RawInventoryQuery};
use equip_domain::services::inventory::list_inventory;
use serde::Serialize;
use serde_json::{json, Value};

use crate::auth::Authenticated;
use crate::blocking;
use crate::error::{Area, HttpError};
use crate::state::AppState;

fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

fn return_json(r: &ReturnInfo) -> Value {
    let retrieval = r.retrieval.as_ref().map(|m| {
        let mut v = json!({
            "type": m.kind.type_name(),
            "id": m.id,
            "status": m.status,
            "updatedAt": time(m.updated_at),
        });
        match &m.kind {
            RetrievalKind::ReturnKit {
                inbound_tracking_code,
                inbound_tracking_link,
                outbound_tracking_code,
                outbound_tracking_link,
            } => {
                v["inboundTrackingCode"] = json!(inbound_tracking_code);
                v["inboundTrackingLink"] = json!(inbound_tracking_link);
                v["outboundTrackingCode"] = json!(outbound_tracking_code);
                v["outboundTrackingLink"] = json!(outbound_tracking_link);
            }
            RetrievalKind::InboundLabel {
                inbound_tracking_code,
                inbound_tracking_link,
            } => {
                v["inboundTrackingCode"] = json!(inbound_tracking_code);
                v["inboundTrackingLink"] = json!(inbound_tracking_link);
            }
            RetrievalKind::Physical => {}
        }
        v
    });
    json!({
        "id": r.id,
        "status": r.status,
        "createdAt": time(r.created_at),
        "returnOrderItemId": r.return_order_item_id,
        "returnOrderItemStatus": r.return_order_item_status,
        "retrievalMethod": retrieval,
    })
}

/// Who holds an item, as the document shows it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AssigneeBody<'a> {
    id: uuid::Uuid,
    #[serde(rename = "type")]
    kind: AssigneeType,
    label: Option<&'a str>,
    assigned_at: Option<String>,
}

/// Device-management program, as the document shows it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeviceProgramBody {
    assignment_status: DeviceProgramStatus,
    last_sync_timestamp: Option<String>,
    next_sync_timestamp: String,
}

/// The Inventory item of the API document, serialized straight from the
/// domain values. Absent optional values are `null`; `imei` and `tags` are
/// always arrays.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemBody<'a> {
    id: InventoryItemId,
    sku_id: SkuId,
    serial_number: Option<&'a str>,
    imei: &'a [String],
    deploy_status: DeployStatus,
    deploy_reason: Option<DeployReason>,
    condition: Condition,
    category_code: &'a str,
    category_name_of_sku: &'a str,
    sku_title: &'a str,
    vendor_code: &'a str,
    vendor_sku: &'a str,
    created_at: String,
    updated_at: String,
    renewal_date: Option<NaiveDate>,
    renewal_date_updated_by: Option<RenewalDateUpdatedBy>,
    billing_start_date: Option<NaiveDate>,
    billing_end_date: Option<NaiveDate>,
    procurement_method: Option<&'a str>,
    return_order: Option<Value>,
    assigned_to: Option<AssigneeBody<'a>>,
    tags: &'a [Tag],
    pricing: Option<&'a Price>,
    description: Option<&'a str>,
    erp_invoice_id: Option<&'a str>,
    hold_start_date: Option<NaiveDate>,
    unlock_date: Option<NaiveDate>,
    itad_requested: Option<bool>,
    device_program: Option<DeviceProgramBody>,
    supplied_by: SuppliedBy,
}

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
            return_order: i.return_order.as_ref().map(return_json),
            assigned_to: i.assignment.map(|a| AssigneeBody {
                id: a.id,
                kind: a.kind,
                label: v.assignee_label.as_deref(),
                assigned_at: a.assigned_at.map(time),
            }),
            tags: &i.tags,
            pricing: i.pricing.as_ref(),
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Pagination {
    total_records: u64,
    total_pages: u64,
    current_page: u32,
    page_size: u32,
}

#[derive(Serialize)]
struct ListBody<'a> {
    data: Vec<ItemBody<'a>>,
    pagination: Pagination,
}

/// Reads the listing's parameters; list parameters may repeat. Unknown
/// parameters are refused, so that a misspelt filter is not silently ignored.
fn raw_query(query_string: &str) -> Result<RawInventoryQuery, HttpError> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query_string).map_err(|e| {
        HttpError::bad_request(Area::Api, "query", format!("malformed query string: {e}"))
    })?;
    let mut raw = RawInventoryQuery::default();
    for (key, value) in pairs {
        let single = |slot: &mut Option<String>| -> Result<(), HttpError> {
            if slot.replace(value.clone()).is_some() {
                return Err(HttpError::bad_request(
                    Area::Api,
                    key.as_str(),
                    format!("{key} may be given only once"),
                ));
            }
            Ok(())
        };
        match key.as_str() {
            "page" => single(&mut raw.page)?,
            "size" => single(&mut raw.size)?,
            "personId" => single(&mut raw.person_id)?,
            "warehouseId" => single(&mut raw.warehouse_id)?,
            "officeId" => single(&mut raw.office_id)?,
            "searchString" => single(&mut raw.search_string)?,
            "updatedAtFrom" => single(&mut raw.updated_at_from)?,
            "updatedAtTo" => single(&mut raw.updated_at_to)?,
            "assignedEmail" => single(&mut raw.assigned_email)?,
            "sortBy" => single(&mut raw.sort_by)?,
            "sortDirection" => single(&mut raw.sort_direction)?,
            "categories" => raw.categories.push(value),
            "deployStatuses" => raw.deploy_statuses.push(value),
            "skuIds" => raw.sku_ids.push(value),
            "serialNumber" => raw.serial_numbers.push(value),
            "vendorSku" => raw.vendor_skus.push(value),
            _ => {
                return Err(HttpError::bad_request(
                    Area::Api,
                    key.as_str(),
                    format!("unknown query parameter '{key}'"),
                ))
            }
        }
    }
    Ok(raw)
}

/// `GET /api/v1/inventory`: `{"data": [...], "pagination": {...}}`.
pub async fn list(
    auth: Authenticated,
    state: web::Data<AppState>,
    req: HttpRequest,
) -> Result<HttpResponse, HttpError> {
    let org = auth.require(Scope::InventoryRead)?.organization_id;
    let raw = raw_query(req.query_string())?;
    let ports = state.ports();
    let (query, page) =
        blocking::run(Area::Api, move || list_inventory(&*ports, org, &raw)).await?;
    Ok(HttpResponse::Ok().json(ListBody {
        data: page.items.iter().map(ItemBody::from).collect(),
        pagination: Pagination {
            total_records: page.total_records,
            total_pages: page.total_pages(query.size),
            current_page: query.page,
            page_size: query.size,
        },
    }))
}
