#![allow(clippy::unwrap_used, clippy::expect_used)]
use std::collections::BTreeSet;

use super::*;
use equip_domain::inventory::{DeployReason, DeployStatus};
use equip_domain::text::{LONG_TEXT_MAX, SHORT_TEXT_MAX};
use serde_json::json;

/// `(path, METHOD)` pairs.
type Operations = BTreeSet<(String, String)>;

fn documented() -> Operations {
    let doc = document();
    let mut out = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            if method != "parameters" {
                out.insert((path.clone(), method.to_ascii_uppercase()));
            }
        }
    }
    out
}

fn routed() -> Operations {
    let mut out = BTreeSet::new();
    for (path, allow) in crate::routes::table() {
        if path.starts_with("/scim/") {
            continue; // SCIM describes itself (/scim/v2/Schemas …).
        }
        for method in allow.split(',') {
            out.insert((path.to_owned(), method.trim().to_owned()));
        }
    }
    out
}

#[test]
fn the_document_names_exactly_the_routed_paths_and_methods() {
    let (documented, routed) = (documented(), routed());
    let undocumented: Vec<_> = routed.difference(&documented).collect();
    let unrouted: Vec<_> = documented.difference(&routed).collect();
    assert!(
        undocumented.is_empty() && unrouted.is_empty(),
        "routed but not in the OpenAPI document: {undocumented:?}; \
         documented but not routed: {unrouted:?} (crates/http/src/openapi.rs)"
    );
    assert!(routed.len() >= 14, "{routed:?}");
}

#[test]
fn docs_openapi_json_is_the_served_document() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/openapi.json");
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        on_disk == document_text(),
        "docs/openapi.json differs from the document equip serves; regenerate it with\n  \
         cargo run -q -p equip-server -- openapi > docs/openapi.json"
    );
}

fn refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => out.push(r),
                    _ => refs(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

#[test]
fn the_document_is_well_formed() {
    let doc = document();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "0.1.0");
    let mut all = Vec::new();
    refs(&doc, &mut all);
    assert!(all.len() > 40);
    for r in all {
        let pointer = r.strip_prefix('#').expect("local reference");
        assert!(doc.pointer(pointer).is_some(), "{r} does not resolve");
    }
    let mut ids = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let path_params = |parameters: &Value| -> BTreeSet<String> {
            parameters
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "path")
                .map(|p| p["name"].as_str().unwrap().to_owned())
                .collect()
        };
        let in_path: BTreeSet<String> = path
            .split('/')
            .filter_map(|s| Some(s.strip_prefix('{')?.strip_suffix('}')?.to_owned()))
            .collect();
        for (method, op) in item.as_object().unwrap() {
            if method == "parameters" {
                continue;
            }
            // Declared on the path (for all its operations) or on the operation.
            let mut declared = path_params(&item["parameters"]);
            declared.extend(path_params(&op["parameters"]));
            assert_eq!(declared, in_path, "path parameters of {method} {path}");
            let id = op["operationId"].as_str().unwrap();
            assert!(ids.insert(id.to_owned()), "operationId {id} twice");
            assert!(op["responses"].as_object().is_some_and(|r| !r.is_empty()));
        }
    }
}

#[test]
fn text_limits_come_from_the_domain() {
    let doc = document();
    let create = &doc["components"]["schemas"]["InventoryItemCreate"]["properties"];
    let update = &doc["components"]["schemas"]["InventoryItemPatch"]["properties"];
    for props in [create, update] {
        assert_eq!(props["description"]["maxLength"], LONG_TEXT_MAX, "{props}");
    }
    assert_eq!(create["serialNumber"]["maxLength"], SHORT_TEXT_MAX);
    assert_eq!(create["procurementMethod"]["maxLength"], SHORT_TEXT_MAX);
}

#[test]
fn enums_come_from_the_domain() {
    let doc = document();
    let statuses =
        &doc["components"]["schemas"]["InventoryItem"]["properties"]["deployStatus"]["enum"];
    assert_eq!(statuses.as_array().unwrap().len(), DeployStatus::ALL.len());
    let reasons =
        &doc["components"]["schemas"]["InventoryItem"]["properties"]["deployReason"]["enum"];
    // Every reason, and null.
    assert_eq!(
        reasons.as_array().unwrap().len(),
        DeployReason::ALL.len() + 1
    );
}

#[test]
fn the_listing_documents_exactly_the_parameters_the_route_reads() {
    use equip_api_types::inventory_query::from_query;
    let doc = document();
    let mut documented = Vec::new();
    for path in ["/api/v1/inventory", "/api/inventory"] {
        let params = doc["paths"][path]["get"]["parameters"].as_array().unwrap();
        let names: Vec<&str> = params.iter().map(|p| p["name"].as_str().unwrap()).collect();
        // The route reads each documented parameter; a list one may repeat,
        // a single one may not.
        for p in params {
            let name = p["name"].as_str().unwrap();
            assert_eq!(p["in"], "query", "{name}");
            assert!(from_query(&format!("{name}=x")).is_ok(), "{path}: {name}");
            let twice = from_query(&format!("{name}=x&{name}=y"));
            assert_eq!(
                twice.is_ok(),
                p["schema"]["type"] == "array",
                "{path}: {name}"
            );
        }
        assert_eq!(names.len(), 16, "{path}");
        documented.push(names);
    }
    assert_eq!(
        documented[0], documented[1],
        "the alias takes the same parameters"
    );
    // And nothing else.
    let e = from_query("deployStatus=AVAILABLE").unwrap_err();
    assert_eq!(e.source(), "deployStatus");
}

#[test]
fn shared_responses_follow_what_each_route_needs() {
    let doc = document();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if method == "parameters" {
                continue;
            }
            let needs = crate::routes::needs(path, &method.to_ascii_uppercase().parse().unwrap());
            let responses = op["responses"].as_object().unwrap();
            let shared = |status: &str| {
                responses
                    .get(status)
                    .is_some_and(|r| r.get("$ref").is_some())
            };
            match needs {
                Some(crate::gate::Needs::NoKey) => {
                    assert_eq!(op["security"], json!([]), "{method} {path}");
                    assert!(!shared("401") && !shared("403"), "{method} {path}");
                }
                Some(crate::gate::Needs::AnyKey) => {
                    assert!(op.get("security").is_none(), "{method} {path}");
                    assert!(
                        shared("401") && !responses.contains_key("403"),
                        "{method} {path}"
                    );
                }
                _ => {
                    assert!(op.get("security").is_none(), "{method} {path}");
                    for (status, _) in SHARED_RESPONSES {
                        assert!(
                            responses.contains_key(status),
                            "{status} of {method} {path}"
                        );
                    }
                }
            }
        }
    }
    let own_key = &doc["paths"]["/api/v1/api-key"]["get"]["responses"];
    assert!(own_key.get("403").is_none(), "{own_key}");
}

#[test]
fn event_and_webhook_enums_and_limits_come_from_the_domain() {
    use equip_domain::api_key::Scope;
    use equip_domain::event::{ActorType, EventType, SubjectType};
    use equip_domain::reminder::DeliveryStatus;
    use equip_domain::webhook::{AttemptOutcome, WebhookStatus, MAX_URL_CHARS};
    let doc = document();
    let schemas = &doc["components"]["schemas"];
    let values = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect()
    };
    let all = |names: Vec<&str>| -> Vec<String> { names.into_iter().map(str::to_owned).collect() };
    let event_types = all(EventType::ALL.iter().map(|t| t.as_str()).collect());
    assert_eq!(
        values(&schemas["Event"]["properties"]["type"]["enum"]),
        event_types
    );
    assert_eq!(
        values(&schemas["Webhook"]["properties"]["types"]["items"]["enum"]),
        event_types
    );
    assert_eq!(
        values(&schemas["WebhookCreate"]["properties"]["types"]["items"]["enum"]),
        event_types
    );
    assert_eq!(
        values(&schemas["Event"]["properties"]["actor"]["properties"]["type"]["enum"]),
        all(ActorType::ALL.iter().map(|t| t.as_str()).collect())
    );
    assert_eq!(
        values(&schemas["Event"]["properties"]["subject"]["properties"]["type"]["enum"]),
        all(SubjectType::ALL.iter().map(|t| t.as_str()).collect())
    );
    assert_eq!(
        values(&schemas["Webhook"]["properties"]["status"]["enum"]),
        all(WebhookStatus::ALL.iter().map(|t| t.as_str()).collect())
    );
    assert_eq!(
        values(&schemas["WebhookDelivery"]["properties"]["outcome"]["enum"]),
        all(AttemptOutcome::ALL.iter().map(|t| t.as_str()).collect())
    );
    assert_eq!(
        values(&schemas["ApiKey"]["properties"]["scopes"]["items"]["enum"]),
        all(Scope::ALL.iter().map(|t| t.as_str()).collect())
    );
    assert_eq!(
        values(&schemas["Reminder"]["properties"]["status"]["enum"]),
        all(DeliveryStatus::ALL.iter().map(|t| t.as_str()).collect())
    );
    assert_eq!(
        schemas["WebhookCreate"]["properties"]["url"]["maxLength"],
        MAX_URL_CHARS
    );
    let remind = &doc["paths"]["/api/v1/new-joiners/{personId}/remind"]["post"];
    assert_eq!(
        remind["requestBody"]["required"], false,
        "the body may be absent"
    );
    assert_eq!(
        remind["responses"]["413"]["description"],
        format!(
            "The body is larger than {} bytes.",
            crate::routes::new_joiners::REMIND_BODY_LIMIT
        )
    );
}

#[test]
fn request_bodies_refuse_unknown_members() {
    let doc = document();
    for name in ["InventoryLevelCreate", "ReminderRequest", "WebhookCreate"] {
        assert_eq!(
            doc["components"]["schemas"][name]["additionalProperties"], false,
            "{name}"
        );
    }
}
