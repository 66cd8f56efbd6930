//! The event operations and schemas of the OpenAPI document (the feed and
//! the histories; docs/events.md), merged into it by `super::document`.

use equip_domain::event::{ActorType, EventType, SubjectType};
use equip_domain::event_feed::{DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE};
use serde_json::{json, Value};

use super::{
    closed_object, date_time, error, json_response, names, path_id, query, responses, schema_ref,
    string_enum, uuid,
};

/// A cursor as pages give them (clients pass them back as they are).
pub(super) fn cursor() -> Value {
    json!({ "type": "string", "pattern": "^ev1\\.[0-9]{1,18}$" })
}

/// A feed cursor as pages give them: bound to the organization and to the
/// event at its position (docs/events.md, "Cursors and restores").
fn feed_cursor() -> Value {
    json!({ "type": "string", "pattern": FEED_CURSOR_PATTERN })
}

const FEED_CURSOR_PATTERN: &str = "^ev2\\.[0-9a-f]{16}\\.[0-9]{1,18}(\\.[0-9a-f]{32})?$";

fn size() -> Value {
    query(
        "size",
        &format!("Events per page (default {DEFAULT_PAGE_SIZE})."),
        json!({ "type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE, "default": DEFAULT_PAGE_SIZE }),
    )
}

fn history(operation: &str, what: &str) -> Value {
    json!({
        "parameters": [path_id("id", what)],
        "get": {
            "operationId": operation,
            "summary": format!("The events of {what}, newest first."),
            "tags": ["events"],
            "parameters": [
                query("after", "The `next` of the previous (newer) page, as it was returned.", cursor()),
                size(),
            ],
            "responses": responses(json!({
                "200": json_response("A page of events.", closed_object(json!({
                    "data": { "type": "array", "items": schema_ref("Event") },
                    "next": { "type": ["string", "null"], "description": "Where the next (older) page starts; null after the oldest." },
                }))),
                "400": error("A malformed id, cursor or size, or an unknown parameter."),
                "404": error("No such subject in the organization."),
            })),
        },
    })
}

/// The event paths.
pub(super) fn paths() -> Value {
    json!({
        "/api/v1/events": {
            "get": {
                "operationId": "listEvents",
                "summary": "The organization's feed of changes, oldest first.",
                "description": "Follow `next`: a client that always passes the last `next` it got sees every \
                    committed event exactly once, in sequence order, whatever writers do meanwhile. At the end \
                    of the feed a page is empty and `next` stays; poll with it. Events are kept for the \
                    server's retention (90 days by default); a cursor before the oldest kept event is refused. A cursor is \
                    bound to its organization (another organization's is refused) and names the event at its \
                    position: after the database was restored from a backup, a cursor from beyond the restore \
                    point is refused with 410 and the client must resynchronize.",
                "tags": ["events"],
                "parameters": [
                    query("after", "The `next` of the previous page, as it was returned; absent: from the oldest event kept.", feed_cursor()),
                    query("types", "Only these event types, comma-separated (the parameter may repeat).", json!({ "type": "string" })),
                    query("subjectId", "Only the events of this subject.", uuid()),
                    size(),
                ],
                "responses": responses(json!({
                    "200": json_response("A page of events.", closed_object(json!({
                        "data": { "type": "array", "items": schema_ref("Event") },
                        "next": { "type": "string", "pattern": FEED_CURSOR_PATTERN, "description": "Where the next page starts." },
                    }))),
                    "400": error("A malformed or expired cursor, another organization's cursor, an unknown type, a bad size or subjectId, or an unknown parameter (source names it)."),
                    "410": error("The cursor is from another timeline of the events (the database was restored to an earlier state) or of the earlier form `ev1.`: resynchronize, then follow the feed again without `after`."),
                })),
            },
        },
        "/api/v1/inventory/{id}/history": history("getInventoryItemHistory", "The inventory item."),
        "/api/v1/people/{id}/history": history("getPersonHistory", "The person (also once offboarded)."),
    })
}

/// The event schemas.
pub(super) fn schemas() -> Value {
    json!({
        "Event": {
            "type": "object",
            "required": ["id", "sequence", "type", "occurredAt", "actor", "subject"],
            "additionalProperties": false,
            "properties": {
                "id": uuid(),
                "sequence": { "type": "integer", "minimum": 1, "description": "Position in the organization's feed: increases in commit order, without gaps." },
                "type": string_enum(&names(EventType::ALL, EventType::as_str)),
                "occurredAt": date_time(),
                "actor": {
                    "type": "object",
                    "required": ["type"],
                    "additionalProperties": false,
                    "properties": {
                        "type": string_enum(&names(ActorType::ALL, ActorType::as_str)),
                        "id": { "type": "string", "format": "uuid", "description": "The API key's id (API_KEY only)." },
                    },
                },
                "subject": closed_object(json!({
                    "type": string_enum(&names(SubjectType::ALL, SubjectType::as_str)),
                    "id": uuid(),
                })),
                "changes": {
                    "type": "object",
                    "description": "The changed fields by name (nested ones by dotted path, as name.givenName; references such as assignedTo whole), each with its value before and after (null when absent); a creation lists every field from null. Absent when the event changes no field.",
                    "additionalProperties": closed_object(json!({ "from": {}, "to": {} })),
                },
            },
        },
    })
}
