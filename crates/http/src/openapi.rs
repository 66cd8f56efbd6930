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

use actix_web::HttpResponse;
use equip_domain::inventory_level::MAX_QUANTITY;
use equip_domain::reminder::DeliveryStatus;
use serde_json::{json, Map, Value};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{Modify, OpenApi};

use crate::routes::new_joiners::REMIND_BODY_LIMIT;
use crate::JSON_LIMIT;

/// The version of the interface description (`info.version`; docs/api.md).
pub const API_VERSION: &str = "0.1.0";

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

fn uuid() -> Value {
    json!({ "type": "string", "format": "uuid" })
}

fn date_time() -> Value {
    json!({ "type": "string", "format": "date-time" })
}

fn string_enum(values: &[&str]) -> Value {
    json!({ "type": "string", "enum": values })
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

/// Adds [`SHARED_RESPONSES`] to every operation that needs a key (all but
/// those declaring `security: []`), unless the operation states its own.
struct SharedResponses;

impl Modify for SharedResponses {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        for item in doc.paths.paths.values_mut() {
            let operations = [
                &mut item.get,
                &mut item.put,
                &mut item.post,
                &mut item.delete,
                &mut item.patch,
                &mut item.head,
            ];
            for op in operations.into_iter().flatten() {
                if op.security.as_ref().is_some_and(Vec::is_empty) {
                    continue;
                }
                for (status, name) in SHARED_RESPONSES {
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
    doc.merge(crate::routes::inventory::Doc::openapi());
    doc.merge(crate::routes::inventory_items::Doc::openapi());
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

fn location_header(description: &str) -> Value {
    json!({ "Location": { "description": description, "schema": { "type": "string" } } })
}

fn json_body(schema: Value, required: bool) -> Value {
    json!({
        "required": required,
        "content": { "application/json": { "schema": schema } },
    })
}

fn paths() -> Value {
    json!({
        "/healthz": {
            "get": {
                "operationId": "healthz",
                "summary": "Liveness: the process serves requests.",
                "tags": ["operations"],
                "security": [],
                "responses": {
                    "200": json_response("Serving.", closed_object(json!({ "status": { "const": "ok" } }))),
                },
            },
        },
        "/readyz": {
            "get": {
                "operationId": "readyz",
                "summary": "Readiness: the database answers and can be written.",
                "tags": ["operations"],
                "security": [],
                "responses": {
                    "200": json_response("Ready.", closed_object(json!({ "status": { "const": "ready" } }))),
                    "503": error("The database is not reachable, or cannot be written (read-only, disk full)."),
                },
            },
        },
        "/openapi.json": {
            "get": {
                "operationId": "openapi",
                "summary": "This document.",
                "tags": ["operations"],
                "security": [],
                "responses": {
                    "200": json_response("The OpenAPI 3.1 document.", json!({ "type": "object" })),
                },
            },
        },
        "/api/v1/inventory-levels": {
            "get": {
                "operationId": "listInventoryLevels",
                "summary": "List the organization's inventory levels, newest first (extension).",
                "tags": ["inventory-levels"],
                "parameters": [
                    query("includeInactive", "Include deactivated levels (true or false, case-insensitive).", json!({ "type": "boolean", "default": false })),
                ],
                "responses": responses(json!({
                    "200": json_response("The levels.", closed_object(json!({
                        "data": { "type": "array", "items": schema_ref("InventoryLevel") },
                    }))),
                    "400": error("includeInactive is neither true nor false."),
                })),
            },
            "post": {
                "operationId": "createInventoryLevel",
                "summary": "Create an inventory level (extension).",
                "tags": ["inventory-levels"],
                "requestBody": json_body(schema_ref("InventoryLevelCreate"), true),
                "responses": responses(json!({
                    "201": {
                        "description": "Created.",
                        "headers": location_header("/api/v1/inventory-levels/{id} of the new level."),
                        "content": { "application/json": { "schema": schema_ref("InventoryLevel") } },
                    },
                    "400": error("A field is missing or invalid, or minimumQuantity > targetQuantity."),
                    "404": error("skuId is not in the organization, or warehouseId is not accessible to it."),
                    "409": error("An active level for this SKU and warehouse exists."),
                    "413": error("The body is larger than the limit."),
                    "415": error("The body is not application/json."),
                })),
            },
        },
        "/api/v1/inventory-levels/{id}": {
            "parameters": [path_id("id", "The level's id.")],
            "delete": {
                "operationId": "deactivateInventoryLevel",
                "summary": "Deactivate (soft-delete) an inventory level.",
                "description": "The level is kept with its deactivation time; reactivating means creating a new level.",
                "tags": ["inventory-levels"],
                "responses": responses(json!({
                    "204": { "description": "Deactivated." },
                    "400": error("The id is not a UUID."),
                    "404": error("No such level in the organization."),
                    "409": error("The level is already deactivated."),
                })),
            },
        },
        "/api/v1/new-joiners/{personId}/remind": {
            "parameters": [path_id("personId", "The new joiner.")],
            "post": {
                "operationId": "remindNewJoiner",
                "summary": "Send a reminder email to a new joiner.",
                "description": "The reminder and its email are written to an outbox in one transaction and \
                    delivered in the background. The body may be absent, empty or {}.",
                "tags": ["new-joiners"],
                "requestBody": json_body(schema_ref("ReminderRequest"), false),
                "responses": responses(json!({
                    "202": {
                        "description": "Accepted: the email is queued.",
                        "headers": location_header("/api/v1/new-joiners/{personId}/reminders."),
                        "content": { "application/json": { "schema": schema_ref("Reminder") } },
                    },
                    "400": error("A malformed id or body."),
                    "404": error("The person or the sender is not in the organization."),
                    "409": error("The person is not a new joiner (offboarded, or already started)."),
                    "413": error(&format!("The body is larger than {REMIND_BODY_LIMIT} bytes.")),
                    "415": error("The body is not application/json."),
                })),
            },
        },
        "/api/v1/new-joiners/{personId}/reminders": {
            "parameters": [path_id("personId", "The person.")],
            "get": {
                "operationId": "listReminders",
                "summary": "A person's reminders with the delivery state of their emails, newest first (extension).",
                "tags": ["new-joiners"],
                "responses": responses(json!({
                    "200": json_response("The reminders.", closed_object(json!({
                        "data": { "type": "array", "items": schema_ref("ReminderDelivery") },
                    }))),
                    "400": error("The id is not a UUID."),
                    "404": error("The person is not in the organization."),
                })),
            },
        },
    })
}

fn schemas() -> Value {
    let mut delivery = reminder_properties();
    delivery["attempts"] = json!({ "type": "integer", "minimum": 0 });
    delivery["lastError"] = nullable_string(None);
    delivery["sentAt"] = nullable_string(Some("date-time"));
    delivery["nextAttemptAt"] = nullable_string(Some("date-time"));
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
        "InventoryLevel": closed_object(json!({
            "id": uuid(),
            "skuId": uuid(),
            "warehouseId": uuid(),
            "minimumQuantity": { "type": "integer", "minimum": 0, "maximum": MAX_QUANTITY },
            "targetQuantity": { "type": "integer", "minimum": 0, "maximum": MAX_QUANTITY },
            "active": { "type": "boolean" },
            "createdAt": date_time(),
            "deactivatedAt": nullable_string(Some("date-time")),
        })),
        "InventoryLevelCreate": {
            "type": "object",
            "required": ["skuId", "warehouseId", "minimumQuantity", "targetQuantity"],
            "description": "0 <= minimumQuantity <= targetQuantity.",
            "properties": {
                "skuId": uuid(),
                "warehouseId": uuid(),
                "minimumQuantity": { "type": "integer", "minimum": 0, "maximum": MAX_QUANTITY },
                "targetQuantity": { "type": "integer", "minimum": 0, "maximum": MAX_QUANTITY },
            },
        },
        "ReminderRequest": {
            "type": "object",
            "properties": {
                "senderPersonId": {
                    "oneOf": [uuid(), { "type": "null" }],
                    "description": "Who asks (kept for audit); null or absent when triggered through the API.",
                },
            },
        },
        "Reminder": closed_object(reminder_properties()),
        "ReminderDelivery": closed_object(delivery),
    })
}

fn reminder_properties() -> Value {
    json!({
        "id": uuid(),
        "personId": uuid(),
        "senderPersonId": nullable_string(Some("uuid")),
        "status": string_enum(&names(DeliveryStatus::ALL, DeliveryStatus::as_str)),
        "createdAt": date_time(),
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
        "paths": merged(
            merged(merged(paths(), events::paths()), webhooks::paths()),
            api_key::paths(),
        ),
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
            "schemas": merged(
                merged(merged(schemas(), events::schemas()), webhooks::schemas()),
                api_key::schemas(),
            ),
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
pub async fn serve() -> HttpResponse {
    HttpResponse::Ok()
        .content_type(mime::APPLICATION_JSON)
        .body(document_text())
}

/// `base` with the members of `more` added (both objects).
fn merged(mut base: Value, more: Value) -> Value {
    if let (Value::Object(base), Value::Object(more)) = (&mut base, more) {
        base.extend(more);
    }
    base
}

mod api_key;
mod events;
mod webhooks;

#[cfg(test)]
mod tests;
