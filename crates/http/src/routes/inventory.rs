//! `GET /api/v1/inventory` (and its alias `/api/inventory`): the inventory
//! listing of decisions §5, and the item JSON of the API document.

use actix_web::{web, HttpRequest, HttpResponse};
use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use equip_domain::api_key::Scope;
use equip_domain::inventory::{RetrievalKind, ReturnInfo};
use equip_domain::inventory_query::{InventoryItemView, RawInventoryQuery};
use equip_domain::services::inventory::list_inventory;
use serde_json::{json, Value};

use crate::auth::Authenticated;
use crate::blocking;
use crate::error::{Area, HttpError};
use crate::state::AppState;

fn time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

fn date(d: Option<NaiveDate>) -> Value {
    d.map_or(Value::Null, |d| {
        Value::String(d.format("%Y-%m-%d").to_string())
    })
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

/// The Inventory item of the API document. Absent optional values are `null`;
/// `imei` and `tags` are always arrays.
#[must_use]
pub fn item_json(v: &InventoryItemView) -> Value {
    let i = &v.item;
    json!({
        "id": i.id,
        "skuId": i.sku_id,
        "serialNumber": i.serial_number,
        "imei": i.imei,
        "deployStatus": i.deploy_status,
        "deployReason": i.deploy_reason,
        "condition": i.condition,
        "categoryCode": v.sku.category_code,
        "categoryNameOfSku": v.sku.category_name,
        "skuTitle": v.sku.title,
        "vendorCode": v.sku.vendor_code,
        "vendorSku": v.sku.vendor_sku,
        "createdAt": time(i.created_at),
        "updatedAt": time(i.updated_at),
        "renewalDate": date(i.renewal_date),
        "renewalDateUpdatedBy": i.renewal_date_updated_by,
        "billingStartDate": date(i.billing_start_date),
        "billingEndDate": date(i.billing_end_date),
        "procurementMethod": i.procurement_method,
        "returnOrder": i.return_order.as_ref().map(return_json),
        "assignedTo": i.assignment.map(|a| json!({
            "id": a.id,
            "type": a.kind,
            "label": v.assignee_label,
            "assignedAt": a.assigned_at.map(time),
        })),
        "tags": i.tags,
        "pricing": i.pricing,
        "description": i.description,
        "erpInvoiceId": i.erp_invoice_id,
        "holdStartDate": date(i.hold_start_date),
        "unlockDate": date(i.unlock_date),
        "itadRequested": i.itad_requested,
        "deviceProgram": i.device_program.as_ref().map(|d| json!({
            "assignmentStatus": d.assignment_status,
            "lastSyncTimestamp": d.last_sync_timestamp.map(time),
            "nextSyncTimestamp": time(d.next_sync_timestamp),
        })),
        "suppliedBy": i.supplied_by,
    })
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
    let data: Vec<Value> = page.items.iter().map(item_json).collect();
    Ok(HttpResponse::Ok().json(json!({
        "data": data,
        "pagination": {
            "totalRecords": page.total_records,
            "totalPages": page.total_pages(query.size),
            "currentPage": query.page,
            "pageSize": query.size,
        }
    })))
}
