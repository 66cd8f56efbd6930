use super::*;

#[test]
fn unavailable_and_archived_need_a_reason() {
    for s in [DeployStatus::Unavailable, DeployStatus::Archived] {
        assert!(check_deploy_reason(s, None).is_err());
        assert!(check_deploy_reason(s, Some(DeployReason::RequiresRepair)).is_ok());
    }
}

#[test]
fn deployed_and_available_carry_no_reason() {
    for s in [DeployStatus::Deployed, DeployStatus::Available] {
        assert!(check_deploy_reason(s, None).is_ok());
        assert!(check_deploy_reason(s, Some(DeployReason::Other)).is_err());
    }
}

#[test]
fn other_statuses_take_a_reason_or_none() {
    for s in [DeployStatus::AwaitingArrival, DeployStatus::OnHold] {
        assert!(check_deploy_reason(s, None).is_ok());
        assert!(check_deploy_reason(s, Some(DeployReason::InTransit)).is_ok());
    }
}

#[test]
fn archived_is_final() {
    assert!(check_transition(DeployStatus::Archived, DeployStatus::Available).is_err());
    assert!(check_transition(DeployStatus::Archived, DeployStatus::Archived).is_ok());
    assert!(check_transition(DeployStatus::Available, DeployStatus::Archived).is_ok());
}

#[test]
fn wire_names_parse_case_insensitively_and_reject_unknown() {
    assert_eq!(
        DeployStatus::parse("deployed").unwrap(),
        DeployStatus::Deployed
    );
    assert_eq!(DeployReason::ALL.len(), 35);
    assert_eq!(Condition::parse("USED_POOR").unwrap(), Condition::UsedPoor);
    assert_eq!(Condition::New.rank(), 0);
    assert!(Condition::UsedGood.rank() < Condition::UsedFair.rank());
    assert_eq!(Condition::Unusable.rank(), 6);
    assert!(DeployStatus::parse("GIFTED").is_err());
    let json = serde_json::to_string(&DeployReason::LockedMdm).unwrap();
    assert_eq!(json, "\"LOCKED_MDM\"");
    assert!(serde_json::from_str::<DeployReason>("\"NOPE\"").is_err());
}

#[test]
fn deployed_item_needs_a_person() {
    let now = Utc::now();
    let mut item = InventoryItem {
        id: InventoryItemId::new(),
        organization_id: OrganizationId::new(),
        sku_id: SkuId::new(),
        serial_number: Some("C02XYZ".into()),
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
            assignee: Assignee::Warehouse(WarehouseId::new()),
            assigned_at: None,
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
    assert!(
        matches!(item.validate(), Err(DomainError::Invalid { field, .. }) if field == "assignedTo")
    );
    item.assignment = Some(Assignment {
        assignee: Assignee::Person(PersonId::new()),
        assigned_at: Some(now),
    });
    assert!(item.validate().is_ok());
    let tag = Tag {
        id: TagId::new(),
        label: "loaner".into(),
    };
    item.tags = vec![tag.clone(), tag];
    assert!(matches!(item.validate(), Err(DomainError::Invalid { field, .. }) if field == "tags"));
    item.tags.clear();
    let field = |item: &InventoryItem| match item.validate() {
        Err(DomainError::Invalid { field, .. }) => field,
        other => panic!("expected Invalid, got {other:?}"),
    };
    item.description = Some("d".repeat(LONG_TEXT_MAX + 1));
    assert_eq!(field(&item), "description");
    item.description = Some("d".repeat(LONG_TEXT_MAX));
    item.serial_number = Some("s".repeat(SHORT_TEXT_MAX + 1));
    assert_eq!(field(&item), "serialNumber");
    item.serial_number = None;
    item.imei = vec!["1".repeat(SHORT_TEXT_MAX + 1)];
    assert_eq!(field(&item), "imei");
    item.imei.clear();
    item.procurement_method = Some("p".repeat(SHORT_TEXT_MAX + 1));
    assert_eq!(field(&item), "procurementMethod");
    item.procurement_method = None;
    item.tags = vec![Tag {
        id: TagId::new(),
        label: "t".repeat(SHORT_TEXT_MAX + 1),
    }];
    assert_eq!(field(&item), "tags");
    item.tags.clear();
    assert!(item.validate().is_ok());
}
