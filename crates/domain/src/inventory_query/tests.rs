//! Validation of the listing's parameters and the counting decision.

use super::*;

fn parse(f: impl FnOnce(&mut RawInventoryQuery)) -> Result<InventoryQuery, DomainError> {
    let mut raw = RawInventoryQuery::default();
    f(&mut raw);
    InventoryQuery::parse(&raw)
}

fn field_of(r: Result<InventoryQuery, DomainError>) -> String {
    match r {
        Err(DomainError::Invalid { field, .. }) => field,
        other => panic!("expected Invalid, got {other:?}"),
    }
}

#[test]
fn defaults() {
    let q = parse(|_| {}).unwrap();
    assert_eq!((q.page().get(), q.size()), (1, 100));
    assert_eq!(
        (q.sort(), q.direction()),
        (SortKey::CreatedAt, SortDirection::Desc)
    );
    assert_eq!(q.offset(), 0);
    assert!(q.filter().is_countable_by_status_and_category());
    let page = InventoryPage {
        items: vec![],
        total_records: 201,
    };
    assert_eq!(page.total_pages(100), 3);
    assert_eq!(InventoryPage::empty().total_pages(100), 0);
}

#[test]
fn a_parameter_given_empty_is_malformed_not_absent() {
    assert_eq!(
        field_of(parse(|r| r.person_id = Some("".into()))),
        "personId"
    );
    assert_eq!(
        field_of(parse(|r| r.warehouse_id = Some(" ".into()))),
        "warehouseId"
    );
    assert_eq!(
        field_of(parse(|r| r.office_id = Some("".into()))),
        "officeId"
    );
    assert_eq!(field_of(parse(|r| r.sort_by = Some("".into()))), "sortBy");
    assert_eq!(
        field_of(parse(|r| r.sort_direction = Some("".into()))),
        "sortDirection"
    );
    assert_eq!(
        field_of(parse(|r| r.updated_at_from = Some("".into()))),
        "updatedAtFrom"
    );
    assert_eq!(
        field_of(parse(|r| r.updated_at_to = Some(" ".into()))),
        "updatedAtTo"
    );
    assert_eq!(
        field_of(parse(|r| r.categories = vec![String::new()])),
        "categories"
    );
    assert_eq!(field_of(parse(|r| r.sku_ids = vec!["".into()])), "skuIds");
    assert_eq!(
        field_of(parse(|r| r.deploy_statuses = vec!["AVAILABLE,".into()])),
        "deployStatuses"
    );
    assert_eq!(
        field_of(parse(|r| r.serial_numbers = vec!["A".into(), " ".into()])),
        "serialNumber"
    );
    // Free text: empty means no filter.
    assert!(parse(|r| r.search_string = Some(String::new())).is_ok());
}

#[test]
fn page_and_size_bounds() {
    assert_eq!(field_of(parse(|r| r.page = Some("0".into()))), "page");
    assert_eq!(field_of(parse(|r| r.page = Some("-1".into()))), "page");
    assert_eq!(field_of(parse(|r| r.page = Some("x".into()))), "page");
    assert_eq!(field_of(parse(|r| r.page = Some("".into()))), "page");
    assert_eq!(field_of(parse(|r| r.size = Some("0".into()))), "size");
    assert_eq!(field_of(parse(|r| r.size = Some("1001".into()))), "size");
    let q = parse(|r| {
        r.page = Some("5000".into());
        r.size = Some("1000".into());
    })
    .unwrap();
    assert_eq!(q.offset(), 4_999_000);
}

#[test]
fn deprecated_statuses_are_named() {
    for v in ["GIFTED", "locked", "OUT_FOR_REPAIR"] {
        let err = parse(|r| r.deploy_statuses = vec![format!("AVAILABLE,{v}")]).unwrap_err();
        assert!(err.to_string().contains(&v.to_ascii_uppercase()), "{err}");
    }
    assert_eq!(
        field_of(parse(|r| r.deploy_statuses = vec!["NOPE".into()])),
        "deployStatuses"
    );
}

#[test]
fn statuses_repeat_or_comma_separate_and_voided_matches_nothing() {
    let q = parse(|r| r.deploy_statuses = vec!["deployed,AVAILABLE".into(), "DEPLOYED".into()])
        .unwrap();
    assert_eq!(
        q.filter().deploy_statuses,
        vec![DeployStatus::Deployed, DeployStatus::Available]
    );
    let q = parse(|r| r.deploy_statuses = vec!["VOIDED".into()]).unwrap();
    assert!(q.filter().matches_nothing);
    let q = parse(|r| r.deploy_statuses = vec!["VOIDED,ARCHIVED".into()]).unwrap();
    assert!(!q.filter().matches_nothing);
    assert_eq!(q.filter().deploy_statuses, vec![DeployStatus::Archived]);
}

#[test]
fn person_and_email_exclude_each_other() {
    let id = PersonId::new().to_string();
    assert_eq!(
        field_of(parse(|r| {
            r.person_id = Some(id.clone());
            r.assigned_email = Some("a@b.c".into());
        })),
        "assignedEmail"
    );
    let q = parse(|r| r.assigned_email = Some("Ada@Example.COM".into())).unwrap();
    assert_eq!(
        q.filter().person,
        Some(AssigneeFilter::Email("ada@example.com".into()))
    );
    assert_eq!(
        field_of(parse(|r| r.person_id = Some("nope".into()))),
        "personId"
    );
    assert_eq!(
        field_of(parse(|r| r.warehouse_id = Some("nope".into()))),
        "warehouseId"
    );
    assert_eq!(
        field_of(parse(|r| r.office_id = Some("1".into()))),
        "officeId"
    );
    assert_eq!(field_of(parse(|r| r.sku_ids = vec!["x".into()])), "skuIds");
}

#[test]
fn times_are_utc_without_offset() {
    let q = parse(|r| {
        r.updated_at_from = Some("2026-01-01T00:00:00".into());
        r.updated_at_to = Some("2026-02-01T10:20:30.123Z".into());
    })
    .unwrap();
    assert!(q.filter().updated_from.is_some() && q.filter().updated_to.is_some());
    assert_eq!(
        field_of(parse(
            |r| r.updated_at_from = Some("2026-01-01T00:00:00+02:00".into())
        )),
        "updatedAtFrom"
    );
    assert_eq!(
        field_of(parse(|r| r.updated_at_to = Some("2026-01-01".into()))),
        "updatedAtTo"
    );
    assert_eq!(
        field_of(parse(|r| {
            r.updated_at_from = Some("2026-03-01T00:00:00".into());
            r.updated_at_to = Some("2026-02-01T00:00:00".into());
        })),
        "updatedAtFrom"
    );
}

#[test]
fn sort_keys_and_directions() {
    for key in SortKey::ALL {
        let q = parse(|r| r.sort_by = Some(key.as_str().to_ascii_uppercase())).unwrap();
        assert_eq!(q.sort(), *key);
        assert_eq!(
            q.direction(),
            SortDirection::Asc,
            "explicit sortBy defaults to ASC"
        );
    }
    assert_eq!(
        field_of(parse(|r| r.sort_by = Some("price".into()))),
        "sortBy"
    );
    assert_eq!(
        field_of(parse(|r| r.sort_direction = Some("up".into()))),
        "sortDirection"
    );
    let q = parse(|r| r.sort_direction = Some("asc".into())).unwrap();
    assert_eq!(q.direction(), SortDirection::Asc);
}

#[test]
fn search_and_lists_are_lowercased_and_bounded() {
    let q = parse(|r| {
        r.search_string = Some("  C02XY ".into());
        r.categories = vec!["LAPTOP, Phone".into()];
        r.serial_numbers = vec!["ABC".into()];
    })
    .unwrap();
    assert_eq!(q.filter().search.as_deref(), Some("c02xy"));
    assert_eq!(q.filter().categories, vec!["laptop", "phone"]);
    assert_eq!(q.filter().serial_numbers, vec!["abc"]);
    assert!(!q.filter().is_countable_by_status_and_category());
    assert_eq!(
        field_of(parse(|r| r.search_string = Some("x".repeat(201)))),
        "searchString"
    );
    assert_eq!(
        field_of(parse(
            |r| r.vendor_skus = vec![",".repeat(10) + &"a,".repeat(501)]
        )),
        "vendorSku"
    );
}

#[test]
fn only_statuses_and_categories_are_countable_from_the_maintained_counts() {
    let countable = |f: &InventoryFilter| f.is_countable_by_status_and_category();
    let base = InventoryFilter {
        categories: vec!["laptop".into()],
        deploy_statuses: vec![DeployStatus::Available],
        ..InventoryFilter::default()
    };
    assert!(countable(&InventoryFilter::default()));
    assert!(countable(&base));
    let others: [fn(&mut InventoryFilter); 10] = [
        |f| f.person = Some(AssigneeFilter::Email("a@b.c".into())),
        |f| f.person = Some(AssigneeFilter::Person(PersonId::new())),
        |f| f.warehouse_id = Some(WarehouseId::new()),
        |f| f.office_id = Some(OfficeId::new()),
        |f| f.sku_ids = vec![SkuId::new()],
        |f| f.search = Some("mac".into()),
        |f| f.updated_from = Some(NaiveDateTime::default()),
        |f| f.updated_to = Some(NaiveDateTime::default()),
        |f| f.serial_numbers = vec!["c02".into()],
        |f| f.vendor_skus = vec!["mk1".into()],
    ];
    for (n, set) in others.iter().enumerate() {
        let mut f = base.clone();
        set(&mut f);
        assert!(
            !countable(&f),
            "filter {n} counted from the status/category counts"
        );
    }
}
