#![allow(clippy::unwrap_used)]
use super::*;
use equip_domain::person_query::MAX_PAGE_SIZE;

#[test]
fn list_text_matches_the_value_form() {
    let text: Value =
        serde_json::from_str(&list_response_text(7, 3, &["{\"id\":\"a\"}".to_owned()]))
            .unwrap_or(Value::Null);
    assert_eq!(text, list_response(7, 3, vec![json!({"id": "a"})]));
    let empty: Value = serde_json::from_str(&list_response_text(0, 1, &[])).unwrap_or(Value::Null);
    assert_eq!(empty, list_response(0, 1, vec![]));
}

#[test]
fn entra_and_okta_filters_translate() {
    let f = parse_person_filter(r#"userName eq "a@b.example""#).unwrap();
    assert_eq!(
        f,
        PersonFilter::compare(
            PersonField::UserName,
            CompareOp::Eq,
            FilterValue::Text("a@b.example".into())
        )
    );
    let f = parse_person_filter(r#"externalId eq "0f1e""#).unwrap();
    assert!(matches!(
        f,
        PersonFilter::Leaf(PersonLeaf::Field(Condition::Compare(
            PersonField::ExternalId,
            ..
        )))
    ));
    let f = parse_person_filter(r#"emails[type eq "work"].value eq "a@b.example""#).unwrap();
    assert!(matches!(
        f,
        PersonFilter::Leaf(PersonLeaf::AnyEmail(EmailFilter::And(..)))
    ));
    let f = parse_person_filter(r#"Emails.Value Eq "a@b.example""#).unwrap();
    assert!(matches!(
        f,
        PersonFilter::Leaf(PersonLeaf::AnyEmail(EmailFilter::Leaf(Condition::Compare(
            EmailField::Value,
            ..
        ))))
    ));
}

#[test]
fn unsupported_attributes_and_types_are_invalid_filters() {
    for bad in [
        r#"roles.value eq "x""#,
        r#"x509Certificates pr"#,
        r#"phoneNumbers.value eq "1""#,
        r#"active gt true"#,
        r#"active eq "yes""#,
        r#"userName eq 1"#,
        r#"meta.created gt "yesterday""#,
        r#"addresses[country eq "BR"]"#,
        r#"userName eq"#,
    ] {
        assert!(
            matches!(parse_person_filter(bad), Err(ListError::Filter(_))),
            "{bad}"
        );
    }
}

#[test]
fn paging_inputs_follow_rfc_7644() {
    let q = ListInputs {
        start_index: Some("0".into()),
        count: Some("500".into()),
        ..ListInputs::default()
    }
    .query(MAX_PAGE_SIZE)
    .unwrap();
    assert_eq!((q.start_index, q.count), (1, 50));
    // A deployment's cap (`--scim-max-results`), never past the limit.
    let hundred = ListInputs {
        count: Some("100".into()),
        ..ListInputs::default()
    };
    assert_eq!(hundred.query(100).unwrap().count, 100);
    assert_eq!(hundred.query(80).unwrap().count, 80);
    // What the cap cut off is told (Okta asks for 100 at a cap of 50).
    assert_eq!(hundred.count_over(50), Some(100));
    assert_eq!(hundred.count_over(100), None);
    assert_eq!(ListInputs::default().count_over(50), None);
    assert_eq!(ListInputs::default().query(5000).unwrap().count, 1000);
    let q = ListInputs {
        count: Some("-3".into()),
        ..ListInputs::default()
    }
    .query(MAX_PAGE_SIZE)
    .unwrap();
    assert_eq!(q.count, 0);
    assert!(ListInputs {
        count: Some("ten".into()),
        ..ListInputs::default()
    }
    .query(MAX_PAGE_SIZE)
    .is_err());
    let q = ListInputs::from_search_body(&json!({
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
        "filter": "userName sw \"a\"", "startIndex": 2, "count": 10,
        "attributes": ["userName", "emails"], "sortBy": "userName", "sortOrder": "descending"
    }))
    .unwrap();
    assert_eq!(q.attributes.as_deref(), Some("userName,emails"));
    let query = q.query(MAX_PAGE_SIZE).unwrap();
    assert_eq!((query.start_index, query.count), (2, 10));
    assert_eq!(query.sort, Some(PersonField::UserName));
    assert_eq!(query.order, SortOrder::Descending);
}

#[test]
fn people_sort_by_the_extensions_start_date_but_not_by_package() {
    let sorted = |by: &str| {
        ListInputs {
            sort_by: Some(by.into()),
            ..ListInputs::default()
        }
        .query(MAX_PAGE_SIZE)
    };
    for by in [
        "urn:ietf:params:scim:schemas:extension:equip:1.0:User:startDate",
        "URN:IETF:PARAMS:SCIM:SCHEMAS:EXTENSION:EQUIP:1.0:USER:StartDate",
    ] {
        assert_eq!(
            sorted(by).map(|q| q.sort).ok(),
            Some(Some(PersonField::StartDate)),
            "{by}"
        );
    }
    assert!(sorted("urn:ietf:params:scim:schemas:extension:equip:1.0:User:packageId").is_err());
}
