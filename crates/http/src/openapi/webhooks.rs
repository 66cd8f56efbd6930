//! The webhook operations and schemas of the OpenAPI document
//! (`/api/v1/webhooks`; docs/webhooks.md), merged into it by `super::document`.

use equip_domain::event::EventType;
use equip_domain::event_feed::{DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE};
use equip_domain::webhook::{AttemptOutcome, WebhookStatus, MAX_URL_CHARS};
use serde_json::{json, Value};

use super::{
    closed_object, date_time, error, json_body, json_response, location_header, names,
    nullable_string, path_id, query, responses, schema_ref, string_enum, uuid,
};

/// The webhook paths.
pub(super) fn paths() -> Value {
    json!({
        "/api/v1/webhooks": {
            "get": {
                "operationId": "listWebhooks",
                "summary": "The organization's webhooks, oldest first.",
                "tags": ["webhooks"],
                "responses": responses(json!({
                    "200": json_response("The webhooks.", closed_object(json!({
                        "data": { "type": "array", "items": schema_ref("Webhook") },
                    }))),
                })),
            },
            "post": {
                "operationId": "createWebhook",
                "summary": "Subscribe a URL to the organization's events.",
                "description": "The events recorded after the webhook's creation whose type is in `types` (every \
                    type when `types` is empty or absent) are POSTed to the URL, one at a time, in sequence \
                    order, signed with the secret returned here (and never again). The URL must use https or \
                    http, hold no credentials, and its host must not be (or resolve to) a private, loopback or \
                    otherwise reserved address unless the server allows them.",
                "tags": ["webhooks"],
                "requestBody": json_body(schema_ref("WebhookCreate"), true),
                "responses": responses(json!({
                    "201": {
                        "description": "Created: the webhook with its signing secret.",
                        "headers": location_header("/api/v1/webhooks/{id} of the new webhook."),
                        "content": { "application/json": { "schema": schema_ref("WebhookCreated") } },
                    },
                    "400": error("url or types is missing or invalid, or the URL's host is not allowed (source names the field)."),
                    "409": error("The organization has as many webhooks as it may have."),
                    "413": error("The body is larger than the limit."),
                    "415": error("The body is not application/json."),
                })),
            },
        },
        "/api/v1/webhooks/{id}": {
            "parameters": [path_id("id", "The webhook.")],
            "get": {
                "operationId": "getWebhook",
                "summary": "A webhook and the state of its delivery.",
                "tags": ["webhooks"],
                "responses": responses(json!({
                    "200": json_response("The webhook.", schema_ref("Webhook")),
                    "400": error("The id is not a UUID."),
                    "404": error("No such webhook in the organization."),
                })),
            },
            "delete": {
                "operationId": "deleteWebhook",
                "summary": "Delete a webhook and its delivery log.",
                "tags": ["webhooks"],
                "responses": responses(json!({
                    "204": { "description": "Deleted." },
                    "400": error("The id is not a UUID."),
                    "404": error("No such webhook in the organization."),
                })),
            },
        },
        "/api/v1/webhooks/{id}/deliveries": {
            "parameters": [path_id("id", "The webhook.")],
            "get": {
                "operationId": "listWebhookDeliveries",
                "summary": "A webhook's delivery attempts, newest first.",
                "tags": ["webhooks"],
                "parameters": [
                    query("after", "The `next` of the previous page, as it was returned.", super::events::cursor()),
                    query("size", &format!("Attempts per page (default {DEFAULT_PAGE_SIZE})."),
                        json!({ "type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE, "default": DEFAULT_PAGE_SIZE })),
                ],
                "responses": responses(json!({
                    "200": json_response("A page of attempts.", closed_object(json!({
                        "data": { "type": "array", "items": schema_ref("WebhookDelivery") },
                        "next": { "type": ["string", "null"], "description": "Where the next (older) page starts; null after the oldest." },
                    }))),
                    "400": error("A malformed id, cursor or size, or an unknown parameter."),
                    "404": error("No such webhook in the organization."),
                })),
            },
        },
    })
}

fn webhook_properties() -> Value {
    json!({
        "id": uuid(),
        "url": { "type": "string", "maxLength": MAX_URL_CHARS },
        "types": {
            "type": "array",
            "items": string_enum(&names(EventType::ALL, EventType::as_str)),
            "description": "The event types delivered; empty: every type.",
        },
        "createdAt": date_time(),
        "status": string_enum(&names(WebhookStatus::ALL, WebhookStatus::as_str)),
        "disabledAt": nullable_string(Some("date-time")),
        "disabledReason": nullable_string(None),
        "failingSince": nullable_string(Some("date-time")),
        "lastDeliveredSequence": {
            "type": "integer",
            "minimum": 0,
            "description": "The sequence of the last event delivered (or given up on).",
        },
    })
}

/// The webhook schemas.
pub(super) fn schemas() -> Value {
    let mut created = webhook_properties();
    created["secret"] = json!({
        "type": "string",
        "pattern": "^whsec_[0-9a-f]{64}$",
        "description": "The signing secret of Equip-Signature; shown only in this answer.",
    });
    json!({
        "Webhook": closed_object(webhook_properties()),
        "WebhookCreated": closed_object(created),
        "WebhookCreate": {
            "type": "object",
            "required": ["url"],
            "additionalProperties": false,
            "properties": {
                "url": { "type": "string", "maxLength": MAX_URL_CHARS, "description": "https (or http) URL; no credentials, no fragment." },
                "types": {
                    "type": ["array", "null"],
                    "items": string_enum(&names(EventType::ALL, EventType::as_str)),
                    "description": "Event types to deliver; empty, null or absent: every type.",
                },
            },
        },
        "WebhookDelivery": closed_object(json!({
            "attemptedAt": date_time(),
            "eventId": uuid(),
            "sequence": { "type": "integer", "minimum": 1 },
            "statusCode": { "type": ["integer", "null"], "description": "The receiver's status; null on a time-out or connection error." },
            "latencyMs": { "type": "integer", "minimum": 0 },
            "error": nullable_string(None),
            "outcome": string_enum(&names(AttemptOutcome::ALL, AttemptOutcome::as_str)),
        })),
    })
}
