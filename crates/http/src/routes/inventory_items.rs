//! `GET`, `POST` and `PATCH` of single inventory items (extension, docs/api.md):
//! create, change status and reason, (re)assign, tags, renewal date and
//! description, under the domain's rules.

use actix_web::http::header::LOCATION;
use actix_web::{web, HttpResponse};
use chrono::{NaiveDate, Utc};
use equip_domain::api_key::Scope;
use equip_domain::ids::{InventoryItemId, SkuId};
use equip_domain::inventory::{AssigneeType, Condition, DeployReason, DeployStatus, SuppliedBy};
use equip_domain::inventory_json::ItemBody;
use equip_domain::services::inventory::{create_item, get_item, update_item, ItemChanges, NewItem};
use serde_json::Value;

use crate::auth::Authenticated;
use crate::blocking;
use crate::body::{path_id, Fields};
use crate::error::{Area, HttpError};
use crate::state::AppState;

fn text(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

fn texts(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// Tags as labels: `["a", "b"]` or `[{"label": "a"}, …]` (ids are kept by label).
fn tag_labels(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|t| match t {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => o.get("label")?.as_str().map(str::to_owned),
            _ => None,
        })
        .collect()
}

fn date(v: &Value) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(v.as_str()?, "%Y-%m-%d").ok()
}

fn wire<T>(
    parse: fn(&str) -> Result<T, equip_domain::DomainError>,
) -> impl Fn(&Value) -> Option<T> {
    move |v| v.as_str().and_then(|s| parse(s).ok())
}

fn assignee(v: &Value) -> Option<(AssigneeType, uuid::Uuid)> {
    let o = v.as_object()?;
    let kind = AssigneeType::parse(o.get("type")?.as_str()?).ok()?;
    let id = uuid::Uuid::parse_str(o.get("id")?.as_str()?).ok()?;
    Some((kind, id))
}

const ASSIGNEE: &str = "an object {\"type\": PERSON|WAREHOUSE|OFFICE, \"id\": UUID}";

/// `GET /api/v1/inventory/{id}`.
pub async fn get(
    auth: Authenticated,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, HttpError> {
    let org = auth.caller.organization_id;
    let id = path_id(Area::Api, "id", &id, InventoryItemId::parse)?;
    let ports = state.ports();
    let view = blocking::run(Area::Api, move || get_item(&*ports, org, id)).await?;
    Ok(HttpResponse::Ok().json(ItemBody::from(&view)))
}

/// `POST /api/v1/inventory`: 201 with its `Location` and the item, or only
/// `{"id"}` to a key without `inventory:read` (docs/api.md).
pub async fn create(
    auth: Authenticated,
    state: web::Data<AppState>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let org = auth.caller.organization_id;
    let may_read = auth.require(Scope::InventoryRead).is_ok();
    let f = Fields::of(Area::Api, &body)?;
    f.only(&[
        "skuId",
        "serialNumber",
        "imei",
        "deployStatus",
        "deployReason",
        "condition",
        "assignedTo",
        "tags",
        "renewalDate",
        "description",
        "procurementMethod",
        "suppliedBy",
    ])?;
    let new = NewItem {
        sku_id: f.require("skuId", "a UUID", |v| {
            v.as_str().and_then(|s| SkuId::parse(s).ok())
        })?,
        serial_number: f.get("serialNumber", "a string", text)?.into_option(),
        imei: f
            .get("imei", "an array of strings", texts)?
            .into_option()
            .unwrap_or_default(),
        deploy_status: f.require("deployStatus", "a deploy status", wire(DeployStatus::parse))?,
        deploy_reason: f
            .get("deployReason", "a deploy reason", wire(DeployReason::parse))?
            .into_option(),
        condition: f.require("condition", "a condition", wire(Condition::parse))?,
        assigned_to: f.get("assignedTo", ASSIGNEE, assignee)?.into_option(),
        tags: f
            .get("tags", "an array of labels", tag_labels)?
            .into_option()
            .unwrap_or_default(),
        renewal_date: f
            .get("renewalDate", "a date YYYY-MM-DD", date)?
            .into_option(),
        description: f.get("description", "a string", text)?.into_option(),
        procurement_method: f.get("procurementMethod", "a string", text)?.into_option(),
        supplied_by: f
            .get(
                "suppliedBy",
                "OPERATOR or ORGANIZATION",
                wire(SuppliedBy::parse),
            )?
            .into_option()
            .unwrap_or(SuppliedBy::Organization),
    };
    let ports = state.ports();
    let view = blocking::run(Area::Api, move || {
        create_item(&*ports, org, new, Utc::now())
    })
    .await?;
    let mut created = HttpResponse::Created();
    created.insert_header((LOCATION, format!("/api/v1/inventory/{}", view.item.id)));
    if !may_read {
        return Ok(created.json(serde_json::json!({ "id": view.item.id.to_string() })));
    }
    Ok(created.json(ItemBody::from(&view)))
}

/// `PATCH /api/v1/inventory/{id}`: 200 with the changed item to a key that
/// may read it (`inventory:read`), 204 without a body to a key that may only
/// write (docs/api.md).
pub async fn update(
    auth: Authenticated,
    state: web::Data<AppState>,
    id: web::Path<String>,
    body: web::Json<Value>,
) -> Result<HttpResponse, HttpError> {
    let org = auth.caller.organization_id;
    let may_read = auth.require(Scope::InventoryRead).is_ok();
    let id = path_id(Area::Api, "id", &id, InventoryItemId::parse)?;
    let f = Fields::of(Area::Api, &body)?;
    f.only(&[
        "deployStatus",
        "deployReason",
        "condition",
        "assignedTo",
        "tags",
        "renewalDate",
        "description",
    ])?;
    let not_null =
        |name: &str| HttpError::bad_request(Area::Api, name, format!("{name} cannot be null"));
    let changes = ItemChanges {
        deploy_status: match f
            .get("deployStatus", "a deploy status", wire(DeployStatus::parse))?
            .into_change()
        {
            Some(None) => return Err(not_null("deployStatus")),
            other => other.flatten(),
        },
        deploy_reason: f
            .get("deployReason", "a deploy reason", wire(DeployReason::parse))?
            .into_change(),
        condition: match f
            .get("condition", "a condition", wire(Condition::parse))?
            .into_change()
        {
            Some(None) => return Err(not_null("condition")),
            other => other.flatten(),
        },
        assigned_to: f.get("assignedTo", ASSIGNEE, assignee)?.into_change(),
        tags: f
            .get("tags", "an array of labels", tag_labels)?
            .into_change()
            .map(Option::unwrap_or_default),
        renewal_date: f
            .get("renewalDate", "a date YYYY-MM-DD", date)?
            .into_change(),
        description: f.get("description", "a string", text)?.into_change(),
    };
    let ports = state.ports();
    let view = blocking::run(Area::Api, move || {
        update_item(&*ports, org, id, changes, Utc::now())
    })
    .await?;
    if !may_read {
        return Ok(HttpResponse::NoContent().finish());
    }
    Ok(HttpResponse::Ok().json(ItemBody::from(&view)))
}
