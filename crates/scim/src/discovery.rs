//! Discovery resources (RFC 7643 §5–§7, RFC 7644 §4): `/ServiceProviderConfig`,
//! `/ResourceTypes`, `/Schemas`, describing exactly what equip supports.

use serde_json::{json, Value};

use crate::resource_schema::{AttrDef, ResourceSchema};
use crate::schemas;
use crate::{group_schema, user_schema};

/// ServiceProviderConfig schema URN.
pub const SPC_SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
/// ResourceType schema URN.
pub const RESOURCE_TYPE_SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
/// Schema schema URN.
pub const SCHEMA_SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:Schema";

/// Where equip's SCIM service is described.
const DOCUMENTATION_URI: &str = "https://github.com/equip/equip/blob/main/docs/scim.md";

fn base(base_url: &str) -> String {
    format!("{}/scim/v2", base_url.trim_end_matches('/'))
}

/// `/ServiceProviderConfig`; `max_results` is the largest page a list or
/// search of Users or Groups returns (`equip serve --scim-max-results`).
///
/// The authentication scheme is what the gate accepts on `/scim/v2`: an API
/// key holding the `scim` scope, as a bearer token (`Authorization: Bearer
/// <key>`, RFC 6750, what identity providers send) or as equip's own
/// `Authorization: ApiKey <key>`. HTTP Basic is not accepted, so not listed.
#[must_use]
pub fn service_provider_config(base_url: &str, max_results: u32) -> Value {
    json!({
        "schemas": [SPC_SCHEMA],
        "documentationUri": DOCUMENTATION_URI,
        "patch": {"supported": true},
        "bulk": {
            "supported": true,
            "maxOperations": crate::bulk::MAX_OPERATIONS,
            "maxPayloadSize": crate::bulk::MAX_PAYLOAD_SIZE
        },
        "filter": {"supported": true, "maxResults": max_results},
        "changePassword": {"supported": false},
        "sort": {"supported": true},
        "etag": {"supported": true},
        "authenticationSchemes": [{
            "type": "oauthbearertoken",
            "name": "API key as a bearer token",
            "description": "An equip API key of the organization holding the scim scope, sent as \
                            Authorization: Bearer <key>; the same key is also accepted as \
                            Authorization: ApiKey <key>",
            "specUri": "https://www.rfc-editor.org/rfc/rfc6750",
            "documentationUri": DOCUMENTATION_URI,
            "primary": true
        }],
        "meta": {
            "resourceType": "ServiceProviderConfig",
            "location": format!("{}/ServiceProviderConfig", base(base_url)),
        }
    })
}

/// Every resource type: User and Group.
#[must_use]
pub fn resource_types(base_url: &str) -> Vec<Value> {
    vec![user_resource_type(base_url), group_resource_type(base_url)]
}

/// The Group resource type.
#[must_use]
pub fn group_resource_type(base_url: &str) -> Value {
    json!({
        "schemas": [RESOURCE_TYPE_SCHEMA],
        "id": "Group",
        "name": "Group",
        "endpoint": "/Groups",
        "description": "Groups of users, and the equipment package their members receive",
        "schema": schemas::GROUP,
        "schemaExtensions": [{"schema": schemas::EQUIP_GROUP_EXTENSION, "required": false}],
        "meta": {
            "resourceType": "ResourceType",
            "location": format!("{}/ResourceTypes/Group", base(base_url)),
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
    if matches!(a.ty, "string" | "reference" | "binary") {
        v["caseExact"] = json!(a.case_exact);
        v["uniqueness"] = json!(a.uniqueness);
    }
    if a.ty == "reference" {
        v["referenceTypes"] = if a.reference_types.is_empty() {
            json!(["uri"])
        } else {
            json!(a.reference_types)
        };
    }
    if !a.canonical_values.is_empty() {
        v["canonicalValues"] = json!(a.canonical_values);
    }
    if !a.sub.is_empty() {
        v["subAttributes"] = Value::Array(a.sub.iter().map(attr_json).collect());
    }
    v
}

fn schema_json(
    base_url: &str,
    id: &str,
    name: &str,
    description: &str,
    attributes: Vec<Value>,
) -> Value {
    json!({
        "schemas": [SCHEMA_SCHEMA],
        "id": id,
        "name": name,
        "description": description,
        "attributes": attributes,
        "meta": {
            "resourceType": "Schema",
            "location": format!("{}/Schemas/{id}", base(base_url)),
        }
    })
}

/// A resource's core attributes as its schema lists them (without the
/// common `id` and `meta`, RFC 7643 §3.1).
fn core_attributes(resource: &ResourceSchema) -> Vec<Value> {
    resource
        .core
        .iter()
        .filter(|a| !matches!(a.name, "id" | "meta"))
        .map(attr_json)
        .collect()
}

/// The four schemas: core User (the attributes equip supports), the equip
/// User extension, core Group and the equip Group extension.
#[must_use]
pub fn schemas(base_url: &str) -> Vec<Value> {
    let (user, group) = (&user_schema::USER_RESOURCE, &group_schema::GROUP_RESOURCE);
    vec![
        schema_json(
            base_url,
            schemas::USER,
            "User",
            "User Account",
            core_attributes(user),
        ),
        schema_json(
            base_url,
            schemas::EQUIP_USER_EXTENSION,
            "EquipUser",
            "equip's User extension",
            user.extension.iter().map(attr_json).collect(),
        ),
        schema_json(
            base_url,
            schemas::GROUP,
            "Group",
            "Group",
            core_attributes(group),
        ),
        schema_json(
            base_url,
            schemas::EQUIP_GROUP_EXTENSION,
            "EquipGroup",
            "equip's Group extension",
            group.extension.iter().map(attr_json).collect(),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_describe_core_and_extension() {
        let s = schemas("http://x");
        assert_eq!(s.len(), 4);
        assert_eq!(s[0]["id"], schemas::USER);
        let attr = |schema: &Value, name: &str| {
            schema["attributes"]
                .as_array()
                .and_then(|a| a.iter().find(|x| x["name"] == name).cloned())
                .unwrap_or(Value::Null)
        };
        assert_eq!(attr(&s[0], "userName")["required"], true);
        assert_eq!(attr(&s[0], "groups")["mutability"], "readOnly");
        assert_eq!(
            attr(&s[0], "groups")["subAttributes"][1]["referenceTypes"],
            json!(["Group"])
        );
        assert_eq!(s[1]["id"], schemas::EQUIP_USER_EXTENSION);
        assert_eq!(attr(&s[1], "effectivePackageId")["mutability"], "readOnly");
        assert_eq!(s[2]["id"], schemas::GROUP);
        assert_eq!(attr(&s[2], "displayName")["required"], true);
        assert_eq!(attr(&s[2], "members")["multiValued"], true);
        assert_eq!(
            attr(&s[2], "members")["subAttributes"][3]["canonicalValues"],
            json!(["User"])
        );
        assert_eq!(
            s[2]["meta"]["location"],
            format!("http://x/scim/v2/Schemas/{}", schemas::GROUP)
        );
        assert_eq!(s[3]["id"], schemas::EQUIP_GROUP_EXTENSION);
        assert_eq!(attr(&s[3], "precedence")["type"], "integer");
        assert_eq!(
            user_resource_type("http://x")["schemaExtensions"][0]["schema"],
            schemas::EQUIP_USER_EXTENSION
        );
        let types = resource_types("http://x");
        assert_eq!(types[1]["endpoint"], "/Groups");
        assert_eq!(
            types[1]["schemaExtensions"],
            json!([{"schema": schemas::EQUIP_GROUP_EXTENSION, "required": false}])
        );
        let spc = service_provider_config("http://x", 100);
        assert_eq!(spc["patch"]["supported"], true);
        assert_eq!(spc["filter"]["maxResults"], 100);
        // What the gate accepts: a bearer token, not HTTP Basic.
        assert_eq!(spc["authenticationSchemes"][0]["type"], "oauthbearertoken");
        assert_eq!(
            spc["authenticationSchemes"].as_array().map(Vec::len),
            Some(1)
        );
    }
}
