//! `GET /api/v1/api-key` (the key a request carries) in the OpenAPI
//! document, merged into it by `super::document`.

use equip_domain::api_key::Scope;
use serde_json::{json, Value};

use super::{
    closed_object, date_time, json_response, names, nullable_string, responses, schema_ref,
    string_enum, uuid,
};

/// The path.
pub(super) fn paths() -> Value {
    let mut answers = responses(json!({
        "200": json_response("The key the request carries.", schema_ref("ApiKey")),
    }));
    // Any valid key may ask, whatever its scopes: never 403.
    if let Some(answers) = answers.as_object_mut() {
        answers.remove("403");
    }
    json!({
        "/api/v1/api-key": {
            "get": {
                "operationId": "getOwnApiKey",
                "summary": "The API key this request carries: its organization and scopes (extension).",
                "description": "Any valid key may call it, whatever its scopes, also a key without any: \
                    it answers only about the key itself. Never the key or its hash. Clients use it to \
                    learn which organization a key acts for and what it may do.",
                "tags": ["api-key"],
                "responses": answers,
            },
        },
    })
}

/// The schema.
pub(super) fn schemas() -> Value {
    json!({
        "ApiKey": closed_object(json!({
            "id": { "type": "string", "format": "uuid", "description": "The key's id (as `equip key create` prints it; `equip key revoke` takes it)." },
            "prefix": { "type": "string", "pattern": "^[0-9a-f]{16}$", "description": "The key's public lookup prefix: the 16 hex characters after `equip_`." },
            "label": nullable_string(None),
            "organizationId": uuid(),
            "scopes": {
                "type": "array",
                "uniqueItems": true,
                "description": "What the key may do, in a fixed order; empty for a key without scopes.",
                "items": string_enum(&names(Scope::ALL, Scope::as_str)),
            },
            "createdAt": date_time(),
        })),
    })
}
