//! PATCH paths (`equip_scim::filter::parse_path`) and their use by
//! `equip_scim::patch`: the first byte picks the operation and the shape of
//! its value, the rest is the path. A path that parses prints back to itself
//! (as a fixpoint); the operation, applied to a full user, either fails with a
//! `PatchError` or leaves a JSON object; nothing panics.
#![no_main]

use equip_scim::filter::parse_path;
use equip_scim::patch::{apply_patch, parse_patch};
use equip_scim::user::ScimUser;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

fn user() -> Value {
    json!({
        "schemas": [
            "urn:ietf:params:scim:schemas:core:2.0:User",
            "urn:ietf:params:scim:schemas:extension:equip:1.0:User"
        ],
        "id": "6f1c2f4e-8d1b-4a53-9a43-3c1c8a0f4b11",
        "userName": "ada@example.com",
        "name": {"givenName": "Ada", "familyName": "Lovelace"},
        "emails": [
            {"value": "ada@example.com", "type": "work", "primary": true},
            {"value": "ada@home.example", "type": "home", "primary": false}
        ],
        "phoneNumbers": [{"value": "+44 20 7946 0000", "type": "work", "primary": true}],
        "addresses": [{"type": "home", "streetAddress": "1 Analytical St", "country": "GB", "primary": true}],
        "active": true,
        "meta": {"resourceType": "User", "version": "W/\"1\""},
        "urn:ietf:params:scim:schemas:extension:equip:1.0:User": {
            "packageId": "9d8c7b6a-5f4e-4d3c-8b2a-1a0f9e8d7c6b",
            "cpfNumber": "52998224725"
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(path) = std::str::from_utf8(rest) else {
        return;
    };
    if let Ok(parsed) = parse_path(path) {
        let printed = parsed.to_string();
        let again = parse_path(&printed)
            .unwrap_or_else(|e| panic!("{path:?} printed as {printed:?}, which fails: {e}"));
        assert_eq!(again, parsed, "{path:?} printed as {printed:?}");
        assert_eq!(again.to_string(), printed, "printing is not a fixpoint");
    }
    let op = ["add", "replace", "remove", "Add"][usize::from(selector & 3)];
    let value = match selector >> 2 & 7 {
        0 => json!("x@example.com"),
        1 => json!(true),
        2 => json!({"value": "y@example.com", "type": "work", "primary": true, "givenName": "Y"}),
        3 => json!([{"value": "z@example.com", "primary": true}, {"type": "other"}]),
        4 => Value::Null,
        5 => json!(42),
        6 => json!([]),
        _ => json!({}),
    };
    let body = json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        "Operations": [{"op": op, "path": path, "value": value}]
    });
    let Ok(ops) = parse_patch(&body) else {
        return;
    };
    let mut doc = user();
    if apply_patch(&mut doc, &ops).is_ok() {
        assert!(doc.is_object(), "a patch replaced the user with {doc}");
        // What the handler does next: read the patched JSON as a user.
        let _ = serde_json::from_value::<ScimUser>(doc);
    }
});
