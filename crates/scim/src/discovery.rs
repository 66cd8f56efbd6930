//! Discovery resources (RFC 7643 §5–§7, RFC 7644 §4): `/ServiceProviderConfig`,
//! `/ResourceTypes`, `/Schemas`, describing exactly what equip supports.

use serde_json::{json, Value};

use crate::schemas;
use crate::user_schema::{AttrDef, CORE, EXTENSION};

/// ServiceProviderConfig schema URN.
pub const SPC_SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
/// ResourceType schema URN.
pub const RESOURCE_TYPE_SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
/// Schema schema URN.
pub const SCHEMA_SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:Schema";

fn base(base_url: &str) -> String {
    format!("{}/scim/v2", base_url.trim_end_matches('/'))
}

/// `/ServiceProviderConfig`.
#[must_use]
pub fn service_provider_config(base_url: &str) -> Value {
    json!({
        "schemas": [SPC_SCHEMA],
        "documentationUri": "https://github.com/equip/equip/blob/main/docs/scim.md",
        "patch": {"supported": true},
        "bulk": {
            "supported": true,
            "maxOperations": crate::bulk::MAX_OPERATIONS,
            "maxPayloadSize": crate::bulk::MAX_PAYLOAD_SIZE
        },
        "filter": {"supported": true, "maxResults": equip_domain::person_query::MAX_PAGE_SIZE},
        "changePassword": {"supported": false},
        "sort": {"supported": true},
        "etag": {"supported": true},
        "authenticationSchemes": [{
            "type": "httpbasic",
            "name": "API key",
            "description": "Authorization: ApiKey <key>, a key of the organization with the scim scope",
            "primary": true
        }],
        "meta": {
            "resourceType": "ServiceProviderConfig",
            "location": format!("{}/ServiceProviderConfig", base(base_url)),
        }
    })
}

/// The User resource type.
#[must_use]
pub fn user_resource_type(base_url: &str) -> Value {
    json!({
        "schemas": [RESOURCE_TYPE_SCHEMA],
        "id": "User",
        "name": "User",
        "endpoint": "/Users",
        "description": "People who receive equipment",
        "schema": schemas::USER,
        "schemaExtensions": [{"schema": schemas::EQUIP_USER_EXTENSION, "required": false}],
        "meta": {
            "resourceType": "ResourceType",
            "location": format!("{}/ResourceTypes/User", base(base_url)),
        }
    })
}

fn attr_json(a: &AttrDef) -> Value {
    let mut v = json!({
        "name": a.name,
        "type": a.ty,
        "multiValued": a.multi,
        "description": a.description,
        "required": a.required,
        "mutability": a.mutability,
        "returned": a.returned,
    });
    if a.ty == "string" || a.ty == "reference" {
        v["caseExact"] = json!(a.case_exact);
        v["uniqueness"] = json!(a.uniqueness);
    }
    if a.ty == "reference" {
        v["referenceTypes"] = json!(["uri"]);
    }
    if !a.sub.is_empty() {
        v["subAttributes"] = Value::Array(a.sub.iter().map(attr_json).collect());
    }
    v
}

/// The two schemas: core User (the attributes equip supports) and the equip extension.
#[must_use]
pub fn schemas(base_url: &str) -> Vec<Value> {
    let core: Vec<Value> = CORE
        .iter()
        .filter(|a| !matches!(a.name, "id" | "meta"))
        .map(attr_json)
        .collect();
    vec![
        json!({
            "schemas": [SCHEMA_SCHEMA],
            "id": schemas::USER,
            "name": "User",
            "description": "User Account",
            "attributes": core,
            "meta": {
                "resourceType": "Schema",
                "location": format!("{}/Schemas/{}", base(base_url), schemas::USER),
            }
        }),
        json!({
            "schemas": [SCHEMA_SCHEMA],
            "id": schemas::EQUIP_USER_EXTENSION,
            "name": "EquipUser",
            "description": "equip's User extension",
            "attributes": EXTENSION.iter().map(attr_json).collect::<Vec<_>>(),
            "meta": {
                "resourceType": "Schema",
                "location": format!("{}/Schemas/{}", base(base_url), schemas::EQUIP_USER_EXTENSION),
            }
        }),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_describe_core_and_extension() {
        let s = schemas("http://x");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0]["id"], schemas::USER);
        assert!(s[0]["attributes"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x["name"] == "userName")));
        assert_eq!(s[1]["id"], schemas::EQUIP_USER_EXTENSION);
        assert_eq!(
            user_resource_type("http://x")["schemaExtensions"][0]["schema"],
            schemas::EQUIP_USER_EXTENSION
        );
        assert_eq!(
            service_provider_config("http://x")["patch"]["supported"],
            true
        );
    }
}
