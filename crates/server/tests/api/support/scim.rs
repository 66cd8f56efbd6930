//! Helpers of the SCIM black-box tests: requests with the SCIM media type,
//! users as identity providers send them, and data the Users endpoints refer to
//! (packages, items deployed to a person).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use actix_web::test::TestRequest;
use chrono::Utc;
use equip_domain::catalog::Package;
use equip_domain::ids::{InventoryItemId, OrganizationId, PackageId, SkuId};
use equip_domain::import::ImportBatch;
use equip_domain::inventory::{
    Assignee, AssigneeType, Assignment, Condition, DeployStatus, InventoryItem, SuppliedBy,
};
use equip_domain::services::import;
use equip_persistence::Store;
use serde_json::{json, Value};

use super::Client;

/// The SCIM media type.
pub const SCIM: &str = "application/scim+json";
/// The equip extension URN.
pub const EXT: &str = "urn:ietf:params:scim:schemas:extension:equip:1.0:User";
/// The PatchOp URN.
pub const PATCH_OP: &str = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

fn scim_body(req: TestRequest, body: &Value) -> TestRequest {
    req.insert_header(("Content-Type", SCIM))
        .set_payload(body.to_string())
}

impl Client {
    /// POST `body` as `application/scim+json`.
    pub fn scim_post(&self, path: &str, body: &Value) -> TestRequest {
        scim_body(self.with(TestRequest::post().uri(path)), body)
    }

    /// PUT `body` as `application/scim+json`.
    pub fn scim_put(&self, path: &str, body: &Value) -> TestRequest {
        scim_body(self.with(TestRequest::put().uri(path)), body)
    }

    /// PATCH `body` as `application/scim+json`.
    pub fn scim_patch(&self, path: &str, body: &Value) -> TestRequest {
        scim_body(self.with(TestRequest::patch().uri(path)), body)
    }
}

/// A user the way Okta creates one (with a password, which equip drops).
pub fn okta_user(user_name: &str) -> Value {
    json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "userName": user_name,
        "name": {"givenName": "Ada", "familyName": "Lovelace"},
        "emails": [{"primary": true, "value": user_name, "type": "work"}],
        "displayName": "Ada Lovelace",
        "locale": "en-US",
        "externalId": "00u1okta",
        "groups": [],
        "password": "1mz050nq",
        "active": true
    })
}

/// A user the way Microsoft Entra ID creates one.
pub fn entra_user(user_name: &str, external_id: &str) -> Value {
    json!({
        "schemas": [
            "urn:ietf:params:scim:schemas:core:2.0:User",
            "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
        ],
        "externalId": external_id,
        "userName": user_name,
        "active": true,
        "displayName": "Grace Hopper",
        "emails": [{"primary": true, "type": "work", "value": user_name}],
        "meta": {"resourceType": "User"},
        "name": {"formatted": "Grace Hopper", "familyName": "Hopper", "givenName": "Grace"},
        "roles": [],
        "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {"department": "R&D"}
    })
}

/// Stores a package of `org`.
pub fn package(store: &Store, org: OrganizationId, slug: &str) -> PackageId {
    let p = Package {
        id: PackageId::new(),
        organization_id: org,
        slug: slug.into(),
        name: format!("Package {slug}"),
        items: Vec::new(),
    };
    let id = p.id;
    let batch = ImportBatch {
        packages: vec![p],
        ..ImportBatch::default()
    };
    import::run_import(store, org, &batch, &mut |_| {}).unwrap();
    id
}

/// Stores an item of `sku` DEPLOYED to the person `person` (a UUID string).
pub fn deployed_item(
    store: &Store,
    org: OrganizationId,
    sku: SkuId,
    person: &str,
) -> InventoryItemId {
    let now = Utc::now();
    let item = InventoryItem {
        id: InventoryItemId::new(),
        organization_id: org,
        sku_id: sku,
        serial_number: Some(format!("SN-{}", &person[..8])),
        imei: vec![],
        deploy_status: DeployStatus::Deployed,
        deploy_reason: None,
        condition: Condition::New,
        renewal_date: None,
        renewal_date_updated_by: None,
        billing_start_date: None,
        billing_end_date: None,
        procurement_method: None,
        assignment: Some(Assignment {
            assignee: Assignee::new(AssigneeType::Person, uuid::Uuid::parse_str(person).unwrap()),
            assigned_at: Some(now),
        }),
        tags: vec![],
        pricing: None,
        description: None,
        erp_invoice_id: None,
        hold_start_date: None,
        unlock_date: None,
        itad_requested: None,
        device_program: None,
        supplied_by: SuppliedBy::Organization,
        return_order: None,
        created_at: now,
        updated_at: now,
    };
    let id = item.id;
    let batch = ImportBatch {
        inventory: vec![item],
        ..ImportBatch::default()
    };
    import::run_import(store, org, &batch, &mut |_| {}).unwrap();
    id
}
