#![allow(clippy::unwrap_used, clippy::expect_used)]

use chrono::{NaiveDate, TimeZone, Utc};
use serde_json::{json, Value};

use equip_domain::inventory::{
    AssigneeType, Condition, DeployReason, DeployStatus, DeviceProgramStatus, RenewalDateUpdatedBy,
    RetrievalKind, RetrievalStatus, ReturnStatus, SuppliedBy,
};
use equip_domain::location::WarehouseOwner;
use equip_domain::person::PersonStatus;
use equip_domain::services::admin::create_organization;
use equip_domain::services::import::{run_import, ImportFailure};
use equip_domain::testing::InMemoryStore;

use super::*;

const SAMPLE: &str = include_str!("../../../../docs/sample-import.json");

fn org() -> OrganizationId {
    OrganizationId::parse("0b3c6a8e-1d5f-4a8e-9a0c-2f1e3d4c5b6a").unwrap()
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap()
}

fn sample() -> Value {
    serde_json::from_str(SAMPLE).unwrap()
}

/// Converts a modified sample and returns the error.
fn error_of(doc: &Value) -> ImportError {
    parse_document(&doc.to_string(), org(), now()).unwrap_err()
}

fn assert_error(doc: &Value, entry: &str, message_start: &str) {
    let err = error_of(doc);
    assert_eq!(err.entry, entry, "{err}");
    assert!(
        err.message.starts_with(message_start),
        "{entry}: message was '{}', expected it to start with '{message_start}'",
        err.message
    );
}

#[test]
fn the_sample_converts_completely() {
    let batch = parse_document(SAMPLE, org(), now()).unwrap();
    assert_eq!(batch.warehouses.len(), 3);
    assert_eq!(batch.offices.len(), 2);
    assert_eq!(batch.skus.len(), 3);
    assert_eq!(batch.packages.len(), 2);
    assert_eq!(batch.people.len(), 3);
    assert_eq!(batch.inventory.len(), 8);
    assert_eq!(batch.inventory_levels.len(), 2);

    assert_eq!(
        batch.warehouses[0].owner,
        WarehouseOwner::Organization(org())
    );
    assert_eq!(batch.warehouses[1].address, None);
    assert_eq!(batch.warehouses[2].owner, WarehouseOwner::Shared);
    let addr = batch.warehouses[0].address.as_ref().unwrap();
    assert_eq!(addr.postal_code.as_deref(), Some("12101"));
    assert_eq!(addr.country_code.as_deref(), Some("DE"));

    let joao = &batch.people[1];
    assert_eq!(joao.cpf_number.as_deref(), Some("529.982.247-25"));
    assert!(joao.active, "\"True\" as a string");
    assert_eq!(joao.status, PersonStatus::Active);
    assert!(batch.people[2].is_new_joiner(now().date_naive()));

    let item = &batch.inventory[0];
    assert_eq!(item.id.to_string(), "f6000000-0000-4000-8000-000000000001");
    assert_eq!(item.deploy_status, DeployStatus::Deployed);
    assert_eq!(item.deploy_reason, None);
    assert_eq!(item.condition, Condition::New);
    assert_eq!(item.renewal_date, NaiveDate::from_ymd_opt(2027, 2, 1));
    assert_eq!(
        item.renewal_date_updated_by,
        Some(RenewalDateUpdatedBy::OrganizationCategoryLevel)
    );
    assert_eq!(item.billing_end_date, NaiveDate::from_ymd_opt(2027, 1, 31));
    assert_eq!(
        item.procurement_method.as_deref(),
        Some("Rental (36 months)")
    );
    let a = item.assignment.unwrap();
    assert_eq!(a.assignee.kind(), AssigneeType::Person);
    assert_eq!(
        a.assigned_at,
        Some(Utc.with_ymd_and_hms(2024, 1, 29, 9, 15, 0).unwrap())
    );
    assert_eq!(item.tags.len(), 2);
    assert_eq!(item.pricing.as_ref().unwrap().discounted_price, 2159.1);
    assert_eq!(item.erp_invoice_id.as_deref(), Some("INV-2024-000318"));
    assert_eq!(
        item.device_program.as_ref().unwrap().assignment_status,
        DeviceProgramStatus::Assigned
    );
    assert_eq!(item.supplied_by, SuppliedBy::Operator);
    assert_eq!(
        item.created_at,
        Utc.with_ymd_and_hms(2024, 1, 25, 14, 2, 11).unwrap()
    );

    let phone = &batch.inventory[1];
    assert_eq!(phone.imei.len(), 2);
    assert_eq!(phone.supplied_by, SuppliedBy::Organization);
    assert_eq!(phone.updated_at, now(), "updatedAt defaults to now");
    assert_eq!(
        phone.created_at,
        Utc.with_ymd_and_hms(2023, 9, 5, 12, 0, 0).unwrap(),
        "a timestamp without offset is UTC"
    );
    let ro = phone.return_order.as_ref().unwrap();
    assert_eq!(ro.status, ReturnStatus::ReturnKitSent);
    let r = ro.retrieval.as_ref().unwrap();
    assert_eq!(r.status, RetrievalStatus::Shipped);
    assert!(matches!(
        &r.kind,
        RetrievalKind::ReturnKit { outbound_tracking_code: Some(c), .. } if c == "1Z999AA10123456791"
    ));

    let held = &batch.inventory[4];
    assert_eq!(held.deploy_reason, Some(DeployReason::PendingHoldRelease));
    assert_eq!(held.itad_requested, Some(true));
    assert_eq!(held.unlock_date, NaiveDate::from_ymd_opt(2026, 12, 1));
    assert!(matches!(
        held.return_order
            .as_ref()
            .unwrap()
            .retrieval
            .as_ref()
            .unwrap()
            .kind,
        RetrievalKind::Physical
    ));
    assert!(held
        .device_program
        .as_ref()
        .unwrap()
        .last_sync_timestamp
        .is_none());
    assert!(matches!(
        batch.inventory[5]
            .return_order
            .as_ref()
            .unwrap()
            .retrieval
            .as_ref()
            .unwrap()
            .kind,
        RetrievalKind::InboundLabel { .. }
    ));
    assert_eq!(
        batch.inventory[6].assignment.unwrap().assignee.kind(),
        AssigneeType::Office
    );

    assert!(batch.inventory_levels[0].is_active());
    assert_eq!(batch.inventory_levels[1].deactivated_at, Some(now()));
}

#[test]
fn the_sample_uses_every_item_field_and_kind() {
    let doc = sample();
    let mut seen = std::collections::BTreeSet::new();
    for item in doc["inventory"].as_array().unwrap() {
        seen.extend(item.as_object().unwrap().keys().cloned());
    }
    // Every field the item has (the wire shape is the source), so a new field
    // fails here until the sample shows it.
    for field in equip_api_types::item::FIELDS {
        assert!(seen.contains(field), "sample lacks inventory field {field}");
    }
    for kind in [
        "warehouses",
        "offices",
        "skus",
        "packages",
        "people",
        "inventory",
        "inventoryLevels",
        "groups",
    ] {
        assert!(!doc[kind].as_array().unwrap().is_empty(), "{kind}");
    }
}

#[test]
fn the_sample_imports_twice_into_the_in_memory_store() {
    let store = InMemoryStore::default();
    let org = create_organization(&store, "Acme", now()).unwrap();
    let batch = parse_document(SAMPLE, org.id, now()).unwrap();
    let mut calls = 0;
    let summary = run_import(&store, org.id, &batch, &mut |_| calls += 1).unwrap();
    assert_eq!(summary.inventory, 8);
    assert_eq!(summary.people, 3);
    assert_eq!(summary.groups, 2);
    let again = run_import(&store, org.id, &batch, &mut |_| {}).unwrap();
    assert_eq!(again, summary, "an upsert of the same ids");
    assert_eq!(store.state().inventory.len(), 8);
}

#[test]
fn domain_rules_name_the_entry() {
    let store = InMemoryStore::default();
    let org = create_organization(&store, "Acme", now()).unwrap();

    let mut doc = sample();
    doc["inventory"][3]
        .as_object_mut()
        .unwrap()
        .remove("deployReason");
    let batch = parse_document(&doc.to_string(), org.id, now()).unwrap();
    let err = run_import(&store, org.id, &batch, &mut |_| {}).unwrap_err();
    assert!(
        matches!(&err, ImportFailure::Entry(e) if e.entry == "inventory[3].deployReason"),
        "{err}"
    );

    let mut doc = sample();
    doc["people"][1][equip_scim::schemas::EQUIP_USER_EXTENSION]
        .as_object_mut()
        .unwrap()
        .remove("cpfNumber");
    let batch = parse_document(&doc.to_string(), org.id, now()).unwrap();
    let err = run_import(&store, org.id, &batch, &mut |_| {}).unwrap_err();
    assert!(
        matches!(&err, ImportFailure::Entry(e) if e.entry == "people[1].cpfNumber"),
        "{err}"
    );
    assert!(store.state().inventory.is_empty(), "nothing was written");
}

#[test]
fn a_bad_enum_value_is_named_with_entry_and_field() {
    let mut doc = sample();
    doc["inventory"][7]["deployStatus"] = json!("GIFTED");
    assert_error(&doc, "inventory[7].deployStatus", "unknown value 'GIFTED'");

    let mut doc = sample();
    doc["inventory"][2]["condition"] = json!("MINT");
    assert_error(&doc, "inventory[2].condition", "unknown value 'MINT'");

    let mut doc = sample();
    doc["inventory"][0]["suppliedBy"] = json!("VENDOR");
    assert_error(&doc, "inventory[0].suppliedBy", "unknown value 'VENDOR'");

    let mut doc = sample();
    doc["inventory"][1]["returnOrder"]["retrievalMethod"]["status"] = json!("LOST");
    assert_error(
        &doc,
        "inventory[1].returnOrder.retrievalMethod.status",
        "unknown value 'LOST'",
    );

    let mut doc = sample();
    doc["inventory"][1]["returnOrder"]["retrievalMethod"]["type"] = json!("DRONE");
    assert_error(
        &doc,
        "inventory[1].returnOrder.retrievalMethod.type",
        "unknown value 'DRONE'",
    );

    let mut doc = sample();
    doc["inventory"][0]["assignedTo"]["type"] = json!("ROBOT");
    assert_error(
        &doc,
        "inventory[0].assignedTo.type",
        "unknown value 'ROBOT'",
    );
}

#[test]
fn bad_ids_dates_and_timestamps_are_named() {
    let cases: [(&str, &[&str], Value, &str); 8] = [
        (
            "inventory[2].id",
            &["inventory", "2", "id"],
            json!("f6-nope"),
            "'f6-nope' is not a valid UUID",
        ),
        (
            "inventory[0].skuId",
            &["inventory", "0", "skuId"],
            json!(""),
            "'' is not a valid UUID",
        ),
        (
            "inventory[0].renewalDate",
            &["inventory", "0", "renewalDate"],
            json!("01/02/2027"),
            "'01/02/2027' is not a date",
        ),
        (
            "inventory[0].createdAt",
            &["inventory", "0", "createdAt"],
            json!("yesterday"),
            "'yesterday' is not a timestamp",
        ),
        (
            "inventory[0].deviceProgram.nextSyncTimestamp",
            &["inventory", "0", "deviceProgram", "nextSyncTimestamp"],
            json!("soon"),
            "'soon' is not a timestamp",
        ),
        (
            "packages[1].id",
            &["packages", "1", "id"],
            json!("pkg-2"),
            "'pkg-2' is not a valid UUID",
        ),
        (
            "inventoryLevels[0].warehouseId",
            &["inventoryLevels", "0", "warehouseId"],
            json!("w"),
            "'w' is not a valid UUID",
        ),
        (
            "people[0].packageId",
            &[
                "people",
                "0",
                equip_scim::schemas::EQUIP_USER_EXTENSION,
                "packageId",
            ],
            json!("engineering-mac"),
            "'engineering-mac' is not a valid UUID",
        ),
    ];
    for (entry, path, value, message) in cases {
        let mut doc = sample();
        let mut slot = &mut doc;
        for p in path {
            slot = match p.parse::<usize>() {
                Ok(i) => &mut slot[i],
                Err(_) => &mut slot[*p],
            };
        }
        *slot = value;
        assert_error(&doc, entry, message);
    }

    let mut doc = sample();
    doc["inventory"][1]["tags"] = json!([{"id": "t-1", "label": "x"}]);
    assert_error(&doc, "inventory[1].tags[0].id", "'t-1' is not a valid UUID");
}

#[test]
fn wrong_types_missing_and_unknown_fields_are_named() {
    let mut doc = sample();
    doc["inventory"][1]["imei"] = json!("353282112345670");
    assert_error(&doc, "inventory[1].imei", "invalid type: string");

    let mut doc = sample();
    doc["inventory"][0]["pricing"]["price"] = json!("cheap");
    assert_error(&doc, "inventory[0].pricing.price", "invalid type: string");

    let mut doc = sample();
    doc["inventory"][4]
        .as_object_mut()
        .unwrap()
        .remove("deployStatus");
    assert_error(&doc, "inventory[4].deployStatus", "required");

    let mut doc = sample();
    doc["inventory"][1]["returnOrder"]
        .as_object_mut()
        .unwrap()
        .remove("returnOrderItemId");
    assert_error(
        &doc,
        "inventory[1].returnOrder.returnOrderItemId",
        "required",
    );

    let mut doc = sample();
    doc["inventory"][5]["serialNo"] = json!("X");
    assert_error(&doc, "inventory[5].serialNo", "unknown field");

    let mut doc = sample();
    doc["inventory"][5]["returnOrder"]["retrievalMethod"]["outboundTrackingCode"] = json!("X1");
    assert_error(
        &doc,
        "inventory[5].returnOrder.retrievalMethod.outboundTrackingCode",
        "not a field of a INBOUND_LABEL retrieval",
    );

    let mut doc = sample();
    doc["inventory"][3] = json!("an item");
    assert_error(
        &doc,
        "inventory[3]",
        "invalid type: string \"an item\", expected an inventory item object",
    );

    let mut doc = sample();
    doc["warehouses"][0]["address"]["street3"] = json!("x");
    assert_error(&doc, "warehouses[0].address.street3", "unknown field");

    let mut doc = sample();
    doc["warehouses"][2]["shared"] = json!("yes");
    assert_error(&doc, "warehouses[2].shared", "invalid type");

    let mut doc = sample();
    doc["skus"][1].as_object_mut().unwrap().remove("vendorSku");
    assert_error(&doc, "skus[1].vendorSku", "required");

    let mut doc = sample();
    doc["offices"][0]["name"] = json!(42);
    assert_error(&doc, "offices[0].name", "invalid type: integer");

    let mut doc = sample();
    doc["inventoryLevels"][1]["minimumQuantity"] = json!("five");
    assert_error(&doc, "inventoryLevels[1].minimumQuantity", "invalid type");
}

#[test]
fn people_errors_are_named() {
    let mut doc = sample();
    doc["people"][1].as_object_mut().unwrap().remove("id");
    assert_error(&doc, "people[1].id", "required");

    let mut doc = sample();
    doc["people"][2]["emails"][0]["primary"] = json!("maybe");
    assert_error(
        &doc,
        "people[2].emails[0].primary",
        "expected true or false",
    );

    let mut doc = sample();
    doc["people"][0][equip_scim::schemas::EQUIP_USER_EXTENSION]["startDate"] = json!("soon");
    assert_error(&doc, "people[0].startDate", "'soon' is not a date");

    let mut doc = sample();
    doc["people"][0][equip_scim::schemas::EQUIP_USER_EXTENSION]["status"] = json!("GONE");
    assert_error(&doc, "people[0].status", "unknown status 'GONE'");
}

#[test]
fn an_unknown_member_of_a_person_is_refused_naming_the_entry() {
    // Like every other kind (SCIM itself ignores attributes it does not know):
    // a typo is not silently dropped.
    let mut doc = sample();
    doc["people"][1]["favoriteColor"] = json!("red");
    assert_error(&doc, "people[1].favoriteColor", "unknown field");

    let mut doc = sample();
    doc["people"][0]["password"] = json!("s3cret");
    assert_error(&doc, "people[0].password", "unknown field");

    let mut doc = sample();
    doc["people"][2]["emails"][0]["display"] = json!("Work");
    assert_error(&doc, "people[2].emails[0].display", "unknown field");

    let mut doc = sample();
    doc["people"][0]["name"]["initials"] = json!("Q");
    assert_error(&doc, "people[0].name.initials", "unknown field");

    // The core profile a SCIM user keeps is imported too.
    let mut doc = sample();
    doc["people"][0]["name"]["middleName"] = json!("Q");
    doc["people"][0]["title"] = json!("Engineer");
    doc["people"][0]["roles"] =
        json!([{"value": "admin", "display": "Admin", "type": "it", "primary": true}]);
    let batch = parse_document(&doc.to_string(), org(), now()).unwrap();
    let profile = &batch.people[0].profile;
    assert_eq!(profile.middle_name.as_deref(), Some("Q"));
    assert_eq!(profile.title.as_deref(), Some("Engineer"));
    assert_eq!(profile.roles[0].value, "admin");

    let mut doc = sample();
    doc["people"][0][equip_scim::schemas::EQUIP_USER_EXTENSION]["costCenter"] = json!("R&D");
    assert_error(
        &doc,
        &format!(
            "people[0].{}.costCenter",
            equip_scim::schemas::EQUIP_USER_EXTENSION
        ),
        "unknown field",
    );
}

#[test]
fn document_level_problems() {
    assert_error(
        &json!({"inventoryLevel": []}),
        "document",
        "not a valid import document: unknown field `inventoryLevel`",
    );
    assert_error(&json!([1, 2]), "document", "not a valid import document");
    assert_error(
        &json!({"skus": {"id": 1}}),
        "document",
        "not a valid import document",
    );
    let err = parse_document("{\"skus\": [\n{\"id\": 1,}\n]}", org(), now()).unwrap_err();
    assert_eq!(err.entry, "document");
    assert!(err.message.contains("line 2"), "{}", err.message);

    let with_bom = format!("\u{feff}{SAMPLE}");
    assert_eq!(
        parse_document(&with_bom, org(), now()).unwrap(),
        parse_document(SAMPLE, org(), now()).unwrap()
    );
    assert_eq!(
        entry_line(&with_bom, "skus[0]"),
        entry_line(SAMPLE, "skus[0]")
    );

    let empty = parse_document("{}", org(), now()).unwrap();
    assert!(empty.is_empty());
    let nulls = parse_document("{\"people\": null, \"inventory\": []}", org(), now()).unwrap();
    assert!(nulls.is_empty());
}

#[test]
fn entry_lines_point_into_the_file() {
    let line = entry_line(SAMPLE, "inventory[0].deployStatus").unwrap();
    let text_line = SAMPLE.lines().nth(line - 1).unwrap();
    assert!(text_line.trim_start().starts_with('{'), "{text_line}");
    let next = SAMPLE.lines().nth(line).unwrap();
    assert!(
        next.contains("f6000000-0000-4000-8000-000000000001"),
        "{next}"
    );
    assert_eq!(entry_line(SAMPLE, "document"), None);
    assert_eq!(entry_line(SAMPLE, "inventory[99]"), None);
}

#[test]
fn group_entries_convert_and_their_errors_are_named() {
    let batch = parse_document(SAMPLE, org(), now()).unwrap();
    let everyone = &batch.groups[1];
    assert_eq!(everyone.group.display_name, "Everyone");
    assert_eq!(
        (everyone.group.precedence, everyone.group.package_id),
        (0, None)
    );
    assert_eq!(everyone.members.len(), 3);
    assert_eq!(batch.groups[0].group.precedence, 10);

    let mut doc = sample();
    doc["groups"][0]["members"][1] = json!("not-a-uuid");
    assert_error(
        &doc,
        "groups[0].members[1]",
        "'not-a-uuid' is not a valid UUID",
    );

    let mut doc = sample();
    doc["groups"][1]["owner"] = json!("it");
    assert_error(&doc, "groups[1].owner", "unknown field");

    let mut doc = sample();
    doc["groups"][0]["precedence"] = json!("high");
    assert_error(&doc, "groups[0].precedence", "invalid type");

    let mut doc = sample();
    doc["groups"][0]
        .as_object_mut()
        .unwrap()
        .remove("displayName");
    assert_error(&doc, "groups[0].displayName", "required");
}
