//! The OpenAPI 3.1 document of the JSON API (`/api/v1`, the `/api/inventory`
//! alias, `/healthz`, `/readyz` and this document), served at
//! `GET /openapi.json` and kept in `docs/openapi.json`.
//!
//! Over 500 lines on purpose: one document whose paths and component schemas
//! refer to each other by name; split, a reader would follow each reference
//! across files.
//!
//! It is written here, next to the handlers, rather than derived: the handlers
//! build their JSON by hand and the domain crate stays free of documentation
//! derives. What keeps it true:
//! - every enum is listed from the domain's `ALL` constants, every limit from
//!   the domain's constants;
//! - the route table of [`crate::routes::table`] must list exactly the
//!   documented paths and methods (tests below); `crates/server/tests/api/openapi.rs`
//!   checks that each method the document does not name answers 405, and that
//!   the responses of a walk through every operation validate against the
//!   document; `scripts/schemathesis.sh` fuzzes a live server against it;
//! - `docs/openapi.json` must equal [`document_text`] (`equip openapi` prints it).
//!
//! SCIM (`/scim/v2`) is described by its own discovery endpoints
//! (`/scim/v2/Schemas`, `/ResourceTypes`, `/ServiceProviderConfig`) and is not
//! part of this document.

use std::sync::OnceLock;

use actix_web::http::Method;
use actix_web::HttpResponse;
use equip_domain::inventory::{
    AssigneeType, Condition, DeployReason, DeployStatus, DeviceProgramStatus, RenewalDateUpdatedBy,
    RetrievalStatus, ReturnStatus, SuppliedBy,
};
use equip_domain::inventory_query::params::{Param, ValueSchema, PARAMS};
use equip_domain::inventory_query::{DEPRECATED_DEPLOY_STATUSES, MAX_LIST_VALUES};
use equip_domain::text::{LONG_TEXT_MAX, SHORT_TEXT_MAX};
use serde_json::{json, Map, Value};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{Modify, OpenApi};

use crate::gate::Needs;
use crate::JSON_LIMIT;

/// The version of the interface description (`info.version`; docs/api.md).
pub const API_VERSION: &str = "0.1.0";

/// `updatedAtFrom` / `updatedAtTo`: a real calendar date (leap years included)
/// and time, `YYYY-MM-DDTHH:MM:SS[.f…]`, optionally `Z`.
const UTC_TIME_PATTERN: &str = concat!(
    r"^(?:\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|02-(?:0[1-9]|1\d|2[0-8]))",
    r"|(?:\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)",
    r"T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?[Zz]?$",
);

/// A string with something other than white space (the domain trims).
const NOT_BLANK: &str = r"\S";

fn names<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> Vec<&'static str> {
    all.iter().copied().map(name).collect()
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn nullable(schema: Value) -> Value {
    json!({ "oneOf": [schema, { "type": "null" }] })
}

fn nullable_string(format: Option<&str>) -> Value {
    match format {
        Some(f) => nullable(json!({ "type": "string", "format": f })),
        None => json!({ "type": ["string", "null"] }),
    }
}

/// A nullable string of at most `max` characters (a domain limit,
/// `equip_domain::text`).
fn nullable_bounded(max: usize) -> Value {
    json!({ "type": ["string", "null"], "maxLength": max })
}

fn uuid() -> Value {
    json!({ "type": "string", "format": "uuid" })
}

fn date_time() -> Value {
    json!({ "type": "string", "format": "date-time" })
}

fn string_enum(values: &[&str]) -> Value {
    json!({ "type": "string", "enum": values })
}

fn nullable_enum(values: &[&str]) -> Value {
    let mut with_null: Vec<Value> = values.iter().map(|v| json!(v)).collect();
    with_null.push(Value::Null);
    json!({ "type": ["string", "null"], "enum": with_null })
}

/// An object whose every property is required (absent values are `null`) and
/// which has no other property.
fn closed_object(properties: Value) -> Value {
    let required: Vec<String> = properties
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    json!({
        "type": "object",
        "required": required,
        "additionalProperties": false,
        "properties": properties,
    })
}

/// A JSON response with `schema`.
fn json_response(description: &str, schema: Value) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": schema } },
    })
}

/// A standard error response (`{"errors":[{"detail","source"}]}`).
fn error(description: &str) -> Value {
    json_response(description, schema_ref("Error"))
}

/// The responses every authenticated operation shares, plus `own`.
fn responses(own: Value) -> Value {
    let mut map = match own {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    for (status, name) in SHARED_RESPONSES {
        map.entry(status)
            .or_insert_with(|| json!({ "$ref": format!("#/components/responses/{name}") }));
    }
    Value::Object(map)
}

/// The responses every operation behind the gate shares beyond its own: the
/// key (401, 403), the request limits of `crate::limits`, the key's rate
/// limit (`crate::rate_limit`) and the database pool.
const SHARED_RESPONSES: [(&str, &str); 6] = [
    ("401", "Unauthorized"),
    ("403", "Forbidden"),
    ("414", "UriTooLong"),
    ("429", "TooManyRequests"),
    ("431", "HeadersTooLarge"),
    ("503", "Unavailable"),
];

/// Adds [`SHARED_RESPONSES`] to every operation, as its route declares
/// what it needs (`crate::routes`, `gate::Needs`), unless the operation
/// states its own: none to an operation that needs no key (whose `security`
/// is written `[]`: no key), all but 403 to one that takes any valid key.
struct SharedResponses;

impl Modify for SharedResponses {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        for (path, item) in &mut doc.paths.paths {
            let operations = [
                (Method::GET, &mut item.get),
                (Method::PUT, &mut item.put),
                (Method::POST, &mut item.post),
                (Method::DELETE, &mut item.delete),
                (Method::PATCH, &mut item.patch),
                (Method::HEAD, &mut item.head),
            ];
            for (method, op) in operations {
                let Some(op) = op else { continue };
                let needs = crate::routes::needs(path, &method);
                if needs == Some(Needs::NoKey) {
                    // utoipa writes `security(())` as `[{}]`; `[]` says it plainly.
                    op.security = Some(Vec::new());
                    continue;
                }
                for (status, name) in SHARED_RESPONSES {
                    if needs == Some(Needs::AnyKey) && status == "403" {
                        continue;
                    }
                    op.responses
                        .responses
                        .entry(status.to_owned())
                        .or_insert_with(|| RefOr::Ref(Ref::from_response_name(name)));
                }
            }
        }
    }
}

/// The document generated from the handlers' `#[utoipa::path]` and the wire
/// types of `equip_api_types`: one part per route module.
fn generated() -> utoipa::openapi::OpenApi {
    let mut doc = crate::routes::warehouses::Doc::openapi();
    doc.merge(crate::routes::health::Doc::openapi());
    doc.merge(crate::routes::inventory_levels::Doc::openapi());
    doc.merge(crate::routes::new_joiners::Doc::openapi());
    doc.merge(crate::routes::events::Doc::openapi());
    doc.merge(crate::routes::webhooks::Doc::openapi());
    doc.merge(crate::routes::api_key::Doc::openapi());
    SharedResponses.modify(&mut doc);
    doc
}

/// `hand` with the generated paths and component schemas put in place of the
/// hand-written ones of the same names.
fn overlaid(mut hand: Value) -> Value {
    let Ok(generated) = serde_json::to_value(generated()) else {
        return hand;
    };
    for at in ["/paths", "/components/schemas"] {
        if let (Some(Value::Object(from)), Some(Value::Object(into))) =
            (generated.pointer(at), hand.pointer_mut(at))
        {
            for (name, value) in from {
                into.insert(name.clone(), value.clone());
            }
        }
    }
    hand
}

fn path_id(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "in": "path",
        "required": true,
        "description": description,
        "schema": uuid(),
    })
}

fn query(name: &str, description: &str, schema: Value) -> Value {
    json!({ "name": name, "in": "query", "required": false, "description": description, "schema": schema })
}

/// A list parameter: repeated (`?a=X&a=Y`) or comma-separated (`?a=X,Y`).
fn list_query(name: &str, description: &str, items: Value) -> Value {
    json!({
        "name": name,
        "in": "query",
        "required": false,
        "description": format!("{description} Repeat the parameter or separate values with commas; at most {MAX_LIST_VALUES} values, none empty."),
        "style": "form",
        "explode": true,
        "schema": { "type": "array", "items": items, "maxItems": MAX_LIST_VALUES },
    })
}

fn location_header(description: &str) -> Value {
    json!({ "Location": { "description": description, "schema": { "type": "string" } } })
}

fn json_body(schema: Value, required: bool) -> Value {
    json!({
        "required": required,
        "content": { "application/json": { "schema": schema } },
    })
}

/// One parameter of the listing, from the domain's table.
fn listing_param(p: &Param) -> Value {
    let schema = match p.schema {
        ValueSchema::Integer { min, max, default } => {
            json!({ "type": "integer", "format": "int32", "minimum": min, "maximum": max, "default": default })
        }
        ValueSchema::Uuid => uuid(),
        ValueSchema::Text {
            max_chars: Some(max),
        } => json!({ "type": "string", "maxLength": max }),
        ValueSchema::Text { max_chars: None } => json!({ "type": "string" }),
        ValueSchema::NotBlank => json!({ "type": "string", "pattern": NOT_BLANK }),
        ValueSchema::UtcTime => json!({ "type": "string", "pattern": UTC_TIME_PATTERN }),
        ValueSchema::OneOf(values) => string_enum(&values()),
    };
    if p.is_list() {
        list_query(p.name, p.description, schema)
    } else {
        query(p.name, p.description, schema)
    }
}

fn list_inventory_operation(operation_id: &str, summary: &str) -> Value {
    json!({
        "operationId": operation_id,
        "summary": summary,
        "description": format!(
            "The organization's inventory items, filtered, sorted and paged. Filters combine with AND, \
             the values of one list parameter with OR. Unknown parameters and single-valued parameters \
             given twice are refused (400). The deprecated deploy statuses {} are refused (400); VOIDED \
             matches no item. Without sortBy the order is createdAt descending; every order ends with \
             the item id, so paging never skips or repeats an item.",
            DEPRECATED_DEPLOY_STATUSES.join(", ")
        ),
        "tags": ["inventory"],
        "parameters": PARAMS.iter().map(listing_param).collect::<Vec<_>>(),
        "responses": responses(json!({
            "200": json_response("A page of items.", schema_ref("InventoryPage")),
            "400": error("A parameter is malformed, unknown, repeated or out of range (source names it)."),
            "404": error("personId, warehouseId or officeId is not in the organization."),
        })),
    })
}

fn paths() -> Value {
    json!({
        "/api/v1/inventory": {
            "get": list_inventory_operation("listInventory", "List inventory items."),
            "post": {
                "operationId": "createInventoryItem",
                "summary": "Create an inventory item (extension).",
                "description": "A move's rules apply from the start: UNAVAILABLE and ARCHIVED need a deployReason, \
                    DEPLOYED and AVAILABLE take none, DEPLOYED needs a PERSON assignee. The assignee must be a \
                    provisioned person, an office of the organization or a warehouse accessible to it.",
                "tags": ["inventory"],
                "requestBody": json_body(schema_ref("InventoryItemCreate"), true),
                "responses": responses(json!({
                    "201": {
                        "description": "Created. The item, to a key that also holds inventory:read; only its id to a key that may only write.",
                        "headers": location_header("/api/v1/inventory/{id} of the new item."),
                        "content": { "application/json": { "schema": { "oneOf": [
                            schema_ref("InventoryItem"),
                            {
                                "type": "object",
                                "required": ["id"],
                                "additionalProperties": false,
                                "properties": { "id": { "type": "string", "format": "uuid" } },
                            },
                        ] } } },
                    },
                    "400": error("A field is missing, unknown or invalid, or a rule is broken (source names the field)."),
                    "404": error("skuId or assignedTo.id is not in the organization."),
                    "413": error("The body is larger than the limit."),
                    "415": error("The body is not application/json."),
                })),
            },
        },
        "/api/v1/inventory/{id}": {
            "parameters": [path_id("id", "The item's id.")],
            "get": {
                "operationId": "getInventoryItem",
                "summary": "Read one inventory item (extension).",
                "tags": ["inventory"],
                "responses": responses(json!({
                    "200": json_response("The item.", schema_ref("InventoryItem")),
                    "400": error("The id is not a UUID."),
                    "404": error("No such item in the organization."),
                })),
            },
            "patch": {
                "operationId": "updateInventoryItem",
                "summary": "Change an inventory item (extension).",
                "description": "Only the fields given change; null clears a nullable field. A status change to \
                    UNAVAILABLE or ARCHIVED needs a deployReason in the same request; DEPLOYED and AVAILABLE clear \
                    it; DEPLOYED needs a PERSON assignee; ARCHIVED is final (409). A change that raced another \
                    change of the item is 409: read it again and retry.",
                "tags": ["inventory"],
                "requestBody": json_body(schema_ref("InventoryItemPatch"), true),
                "responses": responses(json!({
                    "200": json_response("The changed item (to a key that also holds inventory:read). A change that changes nothing writes nothing and leaves updatedAt as it was.", schema_ref("InventoryItem")),
                    "204": { "description": "Changed, answered without the item to a key that may only write." },
                    "400": error("The id is not a UUID, or a field is unknown or invalid, or a rule is broken."),
                    "404": error("No such item, or assignedTo.id is not in the organization."),
                    "409": error("The move is not allowed from the current status, or the item changed meanwhile."),
                    "413": error("The body is larger than the limit."),
                    "415": error("The body is not application/json."),
                })),
            },
        },
        "/api/inventory": {
            "get": list_inventory_operation("listInventoryUnversioned", "List inventory items (the same operation without the version segment)."),
        },
    })
}

fn retrieval(kind: &str, extra: &[&str]) -> Value {
    let mut props = json!({
        "type": { "const": kind },
        "id": uuid(),
        "status": string_enum(&names(RetrievalStatus::ALL, RetrievalStatus::as_str)),
        "updatedAt": date_time(),
    });
    for field in extra {
        props[*field] = nullable_string(None);
    }
    closed_object(props)
}

fn item_schema() -> Value {
    let dp = names(DeployReason::ALL, DeployReason::as_str);
    let return_status = names(ReturnStatus::ALL, ReturnStatus::as_str);
    closed_object(json!({
        "id": uuid(),
        "skuId": uuid(),
        "serialNumber": nullable_string(None),
        "imei": { "type": "array", "items": { "type": "string" } },
        "deployStatus": string_enum(&names(DeployStatus::ALL, DeployStatus::as_str)),
        "deployReason": nullable_enum(&dp),
        "condition": string_enum(&names(Condition::ALL, Condition::as_str)),
        "categoryCode": { "type": "string" },
        "categoryNameOfSku": { "type": "string" },
        "skuTitle": { "type": "string" },
        "vendorCode": { "type": "string" },
        "vendorSku": { "type": "string" },
        "createdAt": date_time(),
        "updatedAt": date_time(),
        "renewalDate": nullable_string(Some("date")),
        "renewalDateUpdatedBy": nullable_enum(&names(RenewalDateUpdatedBy::ALL, RenewalDateUpdatedBy::as_str)),
        "billingStartDate": nullable_string(Some("date")),
        "billingEndDate": nullable_string(Some("date")),
        "procurementMethod": nullable_string(None),
        "returnOrder": nullable(closed_object(json!({
            "id": uuid(),
            "status": string_enum(&return_status),
            "createdAt": date_time(),
            "returnOrderItemId": uuid(),
            "returnOrderItemStatus": string_enum(&return_status),
            "retrievalMethod": nullable(json!({
                "oneOf": [
                    schema_ref("ReturnKitRetrieval"),
                    schema_ref("InboundLabelRetrieval"),
                    schema_ref("PhysicalRetrieval"),
                ],
                "discriminator": {
                    "propertyName": "type",
                    "mapping": {
                        "RETURN_KIT": "#/components/schemas/ReturnKitRetrieval",
                        "INBOUND_LABEL": "#/components/schemas/InboundLabelRetrieval",
                        "PHYSICAL": "#/components/schemas/PhysicalRetrieval",
                    },
                },
            })),
        }))),
        "assignedTo": nullable(closed_object(json!({
            "id": uuid(),
            "type": string_enum(&names(AssigneeType::ALL, AssigneeType::as_str)),
            "label": { "type": ["string", "null"], "description": "A person's email, an office's or warehouse's name." },
            "assignedAt": nullable_string(Some("date-time")),
        }))),
        "tags": { "type": "array", "uniqueItems": true, "items": schema_ref("Tag") },
        "pricing": nullable(closed_object(json!({
            "regionCode": { "type": "string" },
            "priceOption": { "type": "string" },
            "price": { "type": "number" },
            "currencyCode": { "type": "string" },
            "discountedPrice": { "type": "number" },
            "discountPercentage": { "type": "number" },
        }))),
        "description": nullable_string(None),
        "erpInvoiceId": nullable_string(None),
        "holdStartDate": nullable_string(Some("date")),
        "unlockDate": nullable_string(Some("date")),
        "itadRequested": { "type": ["boolean", "null"] },
        "deviceProgram": nullable(closed_object(json!({
            "assignmentStatus": string_enum(&names(DeviceProgramStatus::ALL, DeviceProgramStatus::as_str)),
            "lastSyncTimestamp": nullable_string(Some("date-time")),
            "nextSyncTimestamp": date_time(),
        }))),
        "suppliedBy": string_enum(&names(SuppliedBy::ALL, SuppliedBy::as_str)),
    }))
}

/// `{"type", "id"}` of a write.
fn assignee_input() -> Value {
    nullable(json!({
        "type": "object",
        "required": ["type", "id"],
        "properties": {
            "type": string_enum(&names(AssigneeType::ALL, AssigneeType::as_str)),
            "id": uuid(),
        },
    }))
}

fn tags_input() -> Value {
    nullable(json!({
        "type": "array",
        "description": "Labels, as strings or {\"label\"} objects; labels already on the item keep their tag ids.",
        "items": {
            "oneOf": [
                { "type": "string", "pattern": NOT_BLANK, "maxLength": SHORT_TEXT_MAX },
                {
                    "type": "object",
                    "required": ["label"],
                    "properties": { "label": { "type": "string", "pattern": NOT_BLANK, "maxLength": SHORT_TEXT_MAX } },
                },
            ],
        },
    }))
}

fn item_write_properties() -> Value {
    json!({
        "deployStatus": string_enum(&names(DeployStatus::ALL, DeployStatus::as_str)),
        "deployReason": nullable_enum(&names(DeployReason::ALL, DeployReason::as_str)),
        "condition": string_enum(&names(Condition::ALL, Condition::as_str)),
        "assignedTo": assignee_input(),
        "tags": tags_input(),
        "renewalDate": nullable_string(Some("date")),
        "description": nullable_bounded(LONG_TEXT_MAX),
    })
}

fn schemas() -> Value {
    let mut create = item_write_properties();
    create["skuId"] = uuid();
    create["serialNumber"] = nullable_bounded(SHORT_TEXT_MAX);
    create["imei"] = nullable(
        json!({ "type": "array", "items": { "type": "string", "pattern": NOT_BLANK, "maxLength": SHORT_TEXT_MAX } }),
    );
    create["procurementMethod"] = nullable_bounded(SHORT_TEXT_MAX);
    create["suppliedBy"] = json!({
        "type": ["string", "null"],
        "enum": names(SuppliedBy::ALL, SuppliedBy::as_str).into_iter().map(Value::from).chain([Value::Null]).collect::<Vec<_>>(),
        "description": "Default ORGANIZATION.",
    });
    json!({
        "Error": {
            "type": "object",
            "required": ["errors"],
            "additionalProperties": false,
            "properties": {
                "errors": {
                    "type": "array",
                    "minItems": 1,
                    "items": closed_object(json!({
                        "detail": { "type": "string", "description": "What is wrong, for a person." },
                        "source": { "type": "string", "description": "The parameter, field or entity at fault (e.g. skuId, warehouse, authorization, request)." },
                    })),
                },
                "requestId": { "type": "string", "description": "On a 5xx answer: the request's id (as in its X-Request-Id header and on its log lines), for a report." },
            },
        },
        "InventoryItem": item_schema(),
        "Tag": closed_object(json!({ "id": uuid(), "label": { "type": "string" } })),
        "ReturnKitRetrieval": retrieval("RETURN_KIT", &["inboundTrackingCode", "inboundTrackingLink", "outboundTrackingCode", "outboundTrackingLink"]),
        "InboundLabelRetrieval": retrieval("INBOUND_LABEL", &["inboundTrackingCode", "inboundTrackingLink"]),
        "PhysicalRetrieval": retrieval("PHYSICAL", &[]),
        "Pagination": closed_object(json!({
            "totalRecords": { "type": "integer", "minimum": 0 },
            "totalPages": { "type": "integer", "minimum": 0 },
            "currentPage": { "type": "integer", "minimum": 1 },
            "pageSize": { "type": "integer", "minimum": 1 },
        })),
        "InventoryPage": closed_object(json!({
            "data": { "type": "array", "items": schema_ref("InventoryItem") },
            "pagination": schema_ref("Pagination"),
        })),
        "InventoryItemCreate": {
            "type": "object",
            "required": ["skuId", "deployStatus", "condition"],
            "additionalProperties": false,
            "properties": create,
        },
        "InventoryItemPatch": {
            "type": "object",
            "additionalProperties": false,
            "properties": item_write_properties(),
        },
    })
}

/// The document.
#[must_use]
pub fn document() -> Value {
    overlaid(json!({
        "openapi": "3.1.0",
        "info": {
            "title": "equip API",
            "version": API_VERSION,
            "description": format!(
                "Equipment inventory, warehouses, inventory levels and new-joiner reminders of the caller's \
                 organization. Every /api/v1 operation needs `Authorization: ApiKey <key>`; the key decides the \
                 organization and its scopes (401 without a valid key, 403 without the scope). Each key may make a \
                 limited number of requests a second (429 with `Retry-After` past it; responses carry \
                 `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`). Errors carry \
                 `{{\"errors\":[{{\"detail\",\"source\"}}]}}`. JSON bodies are limited to {JSON_LIMIT} bytes; no text, \
                 in a body or a query parameter, may hold a NUL character (U+0000): 400. \
                 An unknown path is 404 and a method a path does not take is 405 with an `Allow` header, both \
                 with the error body. SCIM 2.0 (/scim/v2) is described by its own discovery endpoints."
            ),
            "license": { "name": "MIT OR Apache-2.0", "identifier": "MIT OR Apache-2.0" },
        },
        "tags": [
            { "name": "inventory" },
            { "name": "warehouses" },
            { "name": "api-key" },
            { "name": "inventory-levels" },
            { "name": "new-joiners" },
            { "name": "events" },
            { "name": "webhooks" },
            { "name": "operations" },
        ],
        "security": [{ "apiKey": [] }],
        "paths": paths(),
        "components": {
            "securitySchemes": {
                "apiKey": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "The word ApiKey, a space, then the key: `Authorization: ApiKey equip_…`. Scopes: \
                        inventory:read (inventory and level listing, item reads), inventory:write (item writes), \
                        warehouses:read, inventory-levels:write, new-joiners:write, events:read (the feed and histories), \
                        webhooks:write. GET /api/v1/api-key takes any valid key, whatever its scopes.",
                },
            },
            "responses": {
                "Unauthorized": {
                    "description": "No key, or a malformed, unknown or revoked key.",
                    "headers": {
                        "WWW-Authenticate": { "description": "ApiKey realm=\"equip\"", "schema": { "type": "string" } },
                    },
                    "content": { "application/json": { "schema": schema_ref("Error") } },
                },
                "Forbidden": error("The key lacks the scope this operation needs."),
                "UriTooLong": error("The request URL (path and query) is longer than 8 KiB."),
                "TooManyRequests": {
                    "description": "The key is over its rate limit (`equip serve --rate-limit`: N requests a second per key, \
                        bursts of 2N, counted per process). Retry after `Retry-After` seconds.",
                    "headers": {
                        "Retry-After": { "description": "Whole seconds until the key may make a request again (at least 1).", "schema": { "type": "integer", "minimum": 1 } },
                        "RateLimit-Limit": { "description": "The key's burst: requests it may make at once after a pause (2N).", "schema": { "type": "integer", "minimum": 1 } },
                        "RateLimit-Remaining": { "description": "Requests the key may still make at once: 0.", "schema": { "type": "integer", "minimum": 0 } },
                        "RateLimit-Reset": { "description": "Whole seconds until the key's full burst is available again.", "schema": { "type": "integer", "minimum": 1 } },
                    },
                    "content": { "application/json": { "schema": schema_ref("Error") } },
                },
                "HeadersTooLarge": error("The request headers are larger than 32 KiB."),
                "Unavailable": error("No database connection within the pool's timeout, or the request did not finish within its time limit (docs/reliability.md)."),
            },
            "schemas": schemas(),
        },
    }))
}

/// The document as served and as kept in `docs/openapi.json`: pretty-printed,
/// with a final newline.
#[must_use]
pub fn document_text() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut text = serde_json::to_string_pretty(&document()).unwrap_or_default();
        text.push('\n');
        text
    })
}

/// `GET /openapi.json` (no key needed).
#[utoipa::path(
    get,
    path = "/openapi.json",
    operation_id = "openapi",
    tag = "operations",
    summary = "This document.",
    security(()),
    responses((status = 200, description = "The OpenAPI 3.1 document.", body = Object)),
)]
pub async fn serve() -> HttpResponse {
    HttpResponse::Ok()
        .content_type(mime::APPLICATION_JSON)
        .body(document_text())
}

#[cfg(test)]
mod tests;
