#![allow(clippy::unwrap_used)]
use super::*;
use serde_json::json;

fn request(ops: Value) -> Value {
    json!({"schemas": [schemas::BULK_REQUEST], "Operations": ops})
}

fn refused(body: Value) -> BulkRequestError {
    BulkRequest::parse(body).unwrap_err()
}

#[test]
fn parses_every_method_case_insensitively() {
    let req = BulkRequest::parse(json!({
        "schemas": [schemas::BULK_REQUEST],
        "failOnErrors": 2,
        "operations": [
            {"method": "post", "bulkId": "a", "path": "/Users", "data": {"userName": "x"}},
            {"Method": "Put", "path": "/Users/bulkId:a", "version": "W/\"1\"", "data": {}},
            {"method": "PATCH", "path": "/Users/1", "data": {"Operations": []}},
            {"method": "delete", "path": "/Users/1"}
        ]
    }))
    .unwrap();
    assert_eq!(req.fail_on_errors, Some(2));
    let methods: Vec<_> = req.operations.iter().map(|o| o.method).collect();
    assert_eq!(
        methods,
        [
            BulkMethod::Post,
            BulkMethod::Put,
            BulkMethod::Patch,
            BulkMethod::Delete
        ]
    );
    assert_eq!(req.operations[1].version.as_deref(), Some("W/\"1\""));
    assert!(req.operations[3].data.is_none());
}

#[test]
fn refuses_malformed_requests_before_any_work() {
    assert!(matches!(
        refused(json!({"Operations": []})),
        BulkRequestError::InvalidSyntax(m) if m.contains("schemas")
    ));
    assert!(matches!(
        refused(json!({"schemas": [schemas::BULK_REQUEST]})),
        BulkRequestError::InvalidSyntax(m) if m.contains("Operations")
    ));
    assert!(matches!(
        refused(request(json!([{"method": "GET", "path": "/Users"}]))),
        BulkRequestError::InvalidSyntax(m) if m.contains("GET")
    ));
    assert!(matches!(
        refused(request(json!([{"method": "POST", "path": "/Users", "data": {}}]))),
        BulkRequestError::InvalidSyntax(m) if m.contains("bulkId is required")
    ));
    assert!(matches!(
        refused(request(json!([{"method": "PUT", "path": "/Users/1"}]))),
        BulkRequestError::InvalidSyntax(m) if m.contains("data is required")
    ));
    assert!(matches!(
        refused(request(json!([{"method": "DELETE"}]))),
        BulkRequestError::InvalidSyntax(m) if m.contains("path is required")
    ));
    let dup = json!([
        {"method": "POST", "bulkId": "a", "path": "/Users", "data": {}},
        {"method": "POST", "bulkId": "a", "path": "/Users", "data": {}}
    ]);
    assert!(matches!(
        refused(request(dup)),
        BulkRequestError::InvalidValue(m) if m.contains("used twice")
    ));
    for bad in [json!(0), json!(-1), json!("1"), json!(1.5)] {
        let mut body = request(json!([]));
        body["failOnErrors"] = bad;
        assert!(matches!(refused(body), BulkRequestError::InvalidValue(_)));
    }
}

#[test]
fn more_than_max_operations_is_413() {
    let ops: Vec<Value> = (0..=MAX_OPERATIONS)
        .map(|i| json!({"method": "DELETE", "path": format!("/Users/{i}")}))
        .collect();
    let err = refused(request(Value::Array(ops)));
    assert_eq!(
        err,
        BulkRequestError::TooManyOperations {
            count: MAX_OPERATIONS + 1,
            max: MAX_OPERATIONS
        }
    );
    assert_eq!(err.status(), (413, None));
    let ops: Vec<Value> = (0..MAX_OPERATIONS)
        .map(|i| json!({"method": "DELETE", "path": format!("/Users/{i}")}))
        .collect();
    assert!(BulkRequest::parse(request(Value::Array(ops))).is_ok());
}

#[test]
fn targets_are_users_groups_or_one_of_them() {
    assert_eq!(BulkTarget::parse("/Users"), Some(BulkTarget::Users));
    assert_eq!(BulkTarget::parse("users/"), Some(BulkTarget::Users));
    assert_eq!(
        BulkTarget::parse("/Users/abc"),
        Some(BulkTarget::User("abc"))
    );
    assert_eq!(
        BulkTarget::parse("/Users/abc/"),
        Some(BulkTarget::User("abc"))
    );
    assert_eq!(BulkTarget::parse("/Groups"), Some(BulkTarget::Groups));
    assert_eq!(BulkTarget::parse("groups/"), Some(BulkTarget::Groups));
    assert_eq!(
        BulkTarget::parse("/GROUPS/bulkId:g"),
        Some(BulkTarget::Group("bulkId:g"))
    );
    for bad in [
        "/Groupsx",
        "/Groups/a/b",
        "/Users/a/b",
        "/Usersx",
        "/",
        "",
        "/Üsers",
        "Userü",
    ] {
        assert_eq!(BulkTarget::parse(bad), None, "{bad}");
    }
}

#[test]
fn resolves_references_in_paths_filters_and_values() {
    let mut ids = BulkIds::default();
    ids.record("qwerty", "2819c223".into());
    assert_eq!(
        ids.resolve_str("/Users/bulkId:qwerty").unwrap(),
        "/Users/2819c223"
    );
    assert_eq!(
        ids.resolve_str("members[value eq \"bulkId:qwerty\"]")
            .unwrap(),
        "members[value eq \"2819c223\"]"
    );
    let mut patch = json!({"Operations": [
        {"op": "add", "path": "manager", "value": {"value": "bulkId:qwerty"}},
        {"op": "add", "value": ["bulkId:qwerty", 1, null]}
    ]});
    ids.resolve_value(&mut patch).unwrap();
    assert_eq!(patch["Operations"][0]["value"]["value"], "2819c223");
    assert_eq!(patch["Operations"][1]["value"][0], "2819c223");
    assert_eq!(
        ids.resolve_str("/Users/bulkId:later"),
        Err(UnresolvedBulkId("later".into()))
    );
    assert_eq!(ids.resolve_str("no reference").unwrap(), "no reference");
}

#[test]
fn resolves_references_in_the_members_of_a_group() {
    let mut ids = BulkIds::default();
    ids.record("u1", "6f1c2f4e".into());
    ids.record("u2", "0a9b8c7d".into());
    let mut group = json!({
        "displayName": "Engineering",
        "members": [{"value": "bulkId:u1"}, {"value": "bulkId:u2", "display": "x"}]
    });
    ids.resolve_value(&mut group).unwrap();
    assert_eq!(group["members"][0]["value"], "6f1c2f4e");
    assert_eq!(group["members"][1]["value"], "0a9b8c7d");
    let mut patch = json!({"Operations": [
        {"op": "add", "path": "members", "value": [[{"value": "bulkId:u1"}], {"value": "bulkId:u2"}]}
    ]});
    ids.resolve_value(&mut patch).unwrap();
    assert_eq!(patch["Operations"][0]["value"][0][0]["value"], "6f1c2f4e");
    assert_eq!(patch["Operations"][0]["value"][1]["value"], "0a9b8c7d");
    let mut unresolved = json!({"members": [{"value": "bulkId:u3"}]});
    assert_eq!(
        ids.resolve_value(&mut unresolved),
        Err(UnresolvedBulkId("u3".into()))
    );
}

#[test]
fn response_lists_each_result_with_string_status() {
    let mut w = BulkResponseWriter::new();
    w.push(&BulkOperationResult {
        method: "POST",
        bulk_id: Some("a".into()),
        location: Some("https://h/scim/v2/Users/1".into()),
        version: Some("W/\"1\"".into()),
        status: "201".into(),
        response: None,
    });
    w.push(&BulkOperationResult {
        method: "POST",
        bulk_id: Some("b".into()),
        location: None,
        version: None,
        status: "409".into(),
        response: Some(ScimErrorBody::new(409, Some(ScimType::Uniqueness), "taken")),
    });
    assert_eq!((w.len(), w.errors()), (2, 1));
    let body: Value = serde_json::from_str(&w.finish()).unwrap();
    assert_eq!(
        body,
        json!({
            "schemas": [schemas::BULK_RESPONSE],
            "Operations": [
                {"method": "POST", "bulkId": "a", "location": "https://h/scim/v2/Users/1",
                 "version": "W/\"1\"", "status": "201"},
                {"method": "POST", "bulkId": "b", "status": "409",
                 "response": {"schemas": [schemas::ERROR], "status": "409",
                              "scimType": "uniqueness", "detail": "taken"}}
            ]
        })
    );
    let empty: Value = serde_json::from_str(&BulkResponseWriter::new().finish()).unwrap();
    assert_eq!(empty["Operations"], json!([]));
}
