#![allow(clippy::unwrap_used)]
use super::*;
use serde_json::json;

fn user() -> Value {
    json!({
        "schemas": [schemas::USER, schemas::EQUIP_USER_EXTENSION],
        "id": "1",
        "userName": "ada@example.com",
        "name": {"givenName": "Ada", "familyName": "Lovelace", "formatted": "Ada Lovelace"},
        "emails": [{"value": "ada@example.com", "type": "work", "primary": true}],
        "active": true,
        "meta": {"version": "W/\"1\""},
        schemas::EQUIP_USER_EXTENSION: {"status": "ACTIVE"}
    })
}

fn patch(doc: &mut Value, body: Value) -> Result<(), PatchError> {
    let ops = parse_patch(&body)?;
    apply_patch(doc, &ops)
}

#[test]
fn okta_pathless_deactivation() {
    let mut u = user();
    patch(&mut u, json!({"schemas": [PATCH_OP], "Operations": [{"op": "replace", "value": {"active": false}}]})).unwrap();
    assert_eq!(u["active"], false);
}

#[test]
fn entra_capitalized_ops_dotted_and_urn_keys() {
    let mut u = user();
    patch(
        &mut u,
        json!({"schemas": [PATCH_OP], "Operations": [
            {"op": "Replace", "value": {
                "name.givenName": "Augusta",
                "urn:ietf:params:scim:schemas:core:2.0:User:displayName": "Augusta Ada",
                "urn:ietf:params:scim:schemas:extension:equip:1.0:User:cpfNumber": "529.982.247-25",
                "active": "False"
            }},
            {"op": "Add", "path": "emails[type eq \"home\"].value", "value": "ada@home.example"},
            {"op": "Replace", "path": "name.familyName", "value": "King"}
        ]}),
    )
    .unwrap();
    assert_eq!(u["name"]["givenName"], "Augusta");
    assert_eq!(u["name"]["familyName"], "King");
    assert_eq!(u["displayName"], "Augusta Ada");
    assert_eq!(u["active"], "False");
    assert_eq!(
        u[schemas::EQUIP_USER_EXTENSION]["cpfNumber"],
        "529.982.247-25"
    );
    assert_eq!(
        u["emails"][1],
        json!({"type": "home", "value": "ada@home.example"})
    );
}

#[test]
fn rfc7643_sub_attributes_equip_does_not_store_are_accepted_and_ignored() {
    let mut u = user();
    patch(
        &mut u,
        json!({"schemas": [PATCH_OP], "Operations": [
            {"op": "Add", "path": "addresses[type eq \"other\"].Formatted", "value": "Building 5"},
            {"op": "Add", "path": "addresses[type eq \"work\"].formatted", "value": "1 Main St"},
            {"op": "Add", "path": "emails[type eq \"work\"].display", "value": "Ada"},
            {"op": "Replace", "path": "EMAILS[TYPE eq \"work\"].DISPLAY", "value": "Ada"},
            {"op": "Add", "path": "phoneNumbers[type eq \"work\"].display", "value": "x"},
            {"op": "Remove", "path": "emails[type eq \"work\"].display"},
            {"op": "Replace", "path": "active", "value": false}
        ]}),
    )
    .unwrap();
    let mut expected = user();
    expected["active"] = json!(false);
    assert_eq!(u, expected, "nothing stored for the ignored sub-attributes");
    // Stored sub-attributes in any case still apply, and create the element.
    patch(
        &mut u,
        json!({"Operations": [
            {"op": "Add", "path": "addresses[type eq \"work\"].StreetAddress", "value": "1 Main St"}
        ]}),
    )
    .unwrap();
    assert_eq!(
        u["addresses"],
        json!([{"type": "work", "streetAddress": "1 Main St"}])
    );
    // A sub-attribute RFC 7643 does not define is still an invalid path.
    assert!(matches!(
        patch(
            &mut u,
            json!({"Operations": [
                {"op": "Add", "path": "emails[type eq \"work\"].color", "value": "red"}
            ]})
        ),
        Err(PatchError::InvalidPath(_))
    ));
}

#[test]
fn filtered_replace_and_remove() {
    let mut u = user();
    patch(
        &mut u,
        json!({"Operations": [
            {"op": "replace", "path": "emails[type eq \"work\"].value", "value": "ada@new.example"},
            {"op": "replace", "path": "userName", "value": "ada@new.example"}
        ]}),
    )
    .unwrap();
    assert_eq!(u["emails"][0]["value"], "ada@new.example");
    assert_eq!(u["emails"][0]["primary"], true);
    let err = patch(
        &mut u,
        json!({"Operations": [
            {"op": "replace", "path": "emails[type eq \"other\"].value", "value": "x@y.example"}
        ]}),
    )
    .unwrap_err();
    assert!(matches!(err, PatchError::NoTarget(_)));
    patch(
        &mut u,
        json!({"Operations": [{"op": "remove", "path": "emails[type eq \"work\"]"}]}),
    )
    .unwrap();
    assert!(u.get("emails").is_none());
}

#[test]
fn add_appends_to_multi_valued_and_keeps_one_primary() {
    let mut u = user();
    patch(&mut u, json!({"Operations": [
        {"op": "add", "path": "emails", "value": [{"value": "b@example.com", "type": "other", "primary": true}]}
    ]})).unwrap();
    assert_eq!(u["emails"].as_array().unwrap().len(), 2);
    assert_eq!(u["emails"][0]["primary"], false);
    assert_eq!(u["emails"][1]["primary"], true);
}

#[test]
fn read_only_unknown_and_bad_requests() {
    let mut u = user();
    assert!(matches!(
        patch(
            &mut u,
            json!({"Operations": [{"op": "replace", "path": "id", "value": "2"}]})
        ),
        Err(PatchError::Mutability(_))
    ));
    assert!(matches!(
        patch(
            &mut u,
            json!({"Operations": [{"op": "replace", "path": "meta.version", "value": "2"}]})
        ),
        Err(PatchError::Mutability(_))
    ));
    assert!(matches!(
        patch(&mut u, json!({"Operations": [{"op": "remove"}]})),
        Err(PatchError::NoTarget(_))
    ));
    assert!(matches!(
        patch(&mut u, json!({"Operations": [{"op": "move", "path": "x"}]})),
        Err(PatchError::InvalidSyntax(_))
    ));
    assert!(matches!(
        patch(
            &mut u,
            json!({"Operations": [{"op": "add", "path": "emails[type eq", "value": 1}]})
        ),
        Err(PatchError::InvalidPath(_))
    ));
    assert!(matches!(
        patch(&mut u, json!({"ops": []})),
        Err(PatchError::InvalidSyntax(_))
    ));
    // Unknown attributes and other extensions are ignored; id in a path-less value too.
    patch(&mut u, json!({"Operations": [
        {"op": "add", "path": "favoriteColor", "value": "x"},
        {"op": "add", "path": "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", "value": "R&D"},
        {"op": "replace", "value": {"id": "1", "userName": "ada@example.com"}}
    ]})).unwrap();
    assert_eq!(u, user());
}

#[test]
fn remove_sub_attribute_and_extension_attribute() {
    let mut u = user();
    patch(&mut u, json!({"Operations": [
        {"op": "remove", "path": "name.familyName"},
        {"op": "add", "path": "urn:ietf:params:scim:schemas:extension:equip:1.0:User:startDate", "value": "2031-01-02"}
    ]})).unwrap();
    assert!(u["name"].get("familyName").is_none());
    assert_eq!(u[schemas::EQUIP_USER_EXTENSION]["startDate"], "2031-01-02");
}

#[test]
fn groups_and_effective_package_are_read_only() {
    for path in [
        "groups",
        "groups[value eq \"g\"]",
        "groups.display",
        "urn:ietf:params:scim:schemas:extension:equip:1.0:User:effectivePackageId",
    ] {
        for op in ["add", "replace", "remove"] {
            let mut u = user();
            let err = patch(
                &mut u,
                json!({"Operations": [{"op": op, "path": path, "value": [{"value": "g"}]}]}),
            );
            assert!(
                matches!(err, Err(PatchError::Mutability(_))),
                "{op} {path}: {err:?}"
            );
        }
    }
    // In a path-less value they are ignored, and the rest applies.
    let mut u = user();
    patch(
        &mut u,
        json!({"Operations": [{"op": "replace", "value": {
            "groups": [{"value": "g"}],
            "displayName": "Ada",
            schemas::EQUIP_USER_EXTENSION: {"effectivePackageId": "p", "startDate": "2031-01-02"}
        }}]}),
    )
    .unwrap();
    assert!(u.get("groups").is_none());
    assert_eq!(u["displayName"], "Ada");
    assert!(u[schemas::EQUIP_USER_EXTENSION]
        .get("effectivePackageId")
        .is_none());
    assert_eq!(u[schemas::EQUIP_USER_EXTENSION]["startDate"], "2031-01-02");
}

#[test]
fn a_sub_attribute_an_attribute_does_not_have_is_an_invalid_path() {
    for path in [
        "displayName.x",
        "userName.foo",
        "name.nonsense",
        "active.value",
        "urn:ietf:params:scim:schemas:extension:equip:1.0:User:startDate.day",
    ] {
        let mut u = user();
        let r = patch(
            &mut u,
            json!({"Operations": [{"op": "replace", "path": path, "value": "x"}]}),
        );
        assert!(
            matches!(r, Err(PatchError::InvalidPath(_))),
            "{path}: {r:?}"
        );
        assert_eq!(u, user(), "{path}");
    }
    // One RFC 7643 defines and equip does not store is accepted and ignored.
    let mut u = user();
    patch(
        &mut u,
        json!({"Operations": [{"op": "replace", "path": "addresses.formatted", "value": "B"}]}),
    )
    .unwrap();
    assert_eq!(u, user());
}

#[test]
fn a_cleared_value_removes_its_element_and_user_name_stays_the_primary_email() {
    let mut u = user();
    u["emails"] = json!([
        {"value": "ada@example.com", "type": "work", "primary": true},
        {"value": "ada@home.example", "type": "home", "primary": false}
    ]);
    u["phoneNumbers"] = json!([{"value": "+1", "type": "mobile"}, {"value": "+2", "type": "work"}]);
    // A stored address without data is left alone unless the PATCH touches it.
    u["addresses"] = json!([{"type": "other"}, {"type": "work", "locality": "Berlin"}]);
    patch(
        &mut u,
        json!({"Operations": [
            {"op": "replace", "path": "phoneNumbers[type eq \"mobile\"].value", "value": null},
            {"op": "replace", "path": "emails[type eq \"work\"].value", "value": ""},
            {"op": "remove", "path": "addresses[type eq \"work\"].locality"},
            {"op": "replace", "path": "phoneNumbers[type eq \"fax\"].value", "value": null}
        ]}),
    )
    .unwrap();
    assert_eq!(u["phoneNumbers"], json!([{"value": "+2", "type": "work"}]));
    assert_eq!(u["addresses"], json!([{"type": "other"}]));
    assert_eq!(
        u["emails"],
        json!([
            {"value": "ada@home.example", "type": "home", "primary": false},
            {"value": "ada@example.com", "primary": true}
        ])
    );
    // The last phone cleared: the attribute is gone.
    patch(
        &mut u,
        json!({"Operations": [{"op": "remove", "path": "phoneNumbers[type eq \"work\"].value"}]}),
    )
    .unwrap();
    assert!(u.get("phoneNumbers").is_none());
}
