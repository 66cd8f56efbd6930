use super::*;
use chrono::Utc;
use equip_domain::ids::GroupId;
use equip_domain::ids::OrganizationId;
use serde_json::json;

const ADA: &str = "6f1c2f4e-8d1b-4a53-9a43-3c1c8a0f4b11";
const BOB: &str = "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d";
const KIT: &str = "9d8c7b6a-5f4e-4d3c-8b2a-1a0f9e8d7c6b";

fn read(v: Value) -> Result<(GroupFields, BTreeSet<PersonId>), ScimGroupError> {
    serde_json::from_value::<ScimGroup>(v).unwrap().into_parts()
}

fn pid(raw: &str) -> PersonId {
    PersonId::parse(raw).unwrap()
}

#[test]
fn a_full_group_is_read_with_its_members_and_extension() {
    let (fields, members) = read(json!({
        "schemas": [schemas::GROUP, schemas::EQUIP_GROUP_EXTENSION],
        "id": "ignored",
        "externalId": " 00g1 ",
        "displayName": "Engineering",
        "members": [
            {"value": ADA, "display": "ada@example.com", "$ref": "x", "type": "User"},
            {"Value": BOB},
            {"value": ADA}
        ],
        schemas::EQUIP_GROUP_EXTENSION: {"packageId": KIT, "precedence": "-3"}
    }))
    .unwrap();
    assert_eq!(
        fields,
        GroupFields {
            external_id: Some(" 00g1 ".into()),
            display_name: "Engineering".into(),
            package_id: Some(PackageId::parse(KIT).unwrap()),
            precedence: -3,
        }
    );
    assert_eq!(members, [pid(ADA), pid(BOB)].into());
}

#[test]
fn absent_members_and_extension_are_none_and_default() {
    let (fields, members) = read(json!({"displayName": "Sales", "members": null})).unwrap();
    assert!(members.is_empty());
    assert_eq!((fields.package_id, fields.precedence), (None, 0));
    assert_eq!(fields.external_id, None);
    let (_, members) = read(json!({"displayName": "Sales", "externalId": ""})).unwrap();
    assert!(members.is_empty());
}

#[test]
fn bad_attributes_are_named() {
    let err = read(json!({"displayName": "  "})).unwrap_err();
    assert_eq!(err.attribute(), "displayName");
    let err = read(json!({"displayName": "x", "members": [{"value": "not-a-uuid"}]})).unwrap_err();
    assert_eq!(err.attribute(), "members");
    assert!(err.to_string().contains("not-a-uuid"), "{err}");
    let err = read(json!({"displayName": "x", "members": [{"display": "a"}]})).unwrap_err();
    assert_eq!(err.attribute(), "members[0].value");
    let err =
        read(json!({"displayName": "x", schemas::EQUIP_GROUP_EXTENSION: {"packageId": "kit"}}))
            .unwrap_err();
    assert_eq!(err.attribute(), "packageId");
    for bad in [
        json!(1.5),
        json!("high"),
        json!(4_294_967_296_i64),
        json!(true),
    ] {
        let err =
            read(json!({"displayName": "x", schemas::EQUIP_GROUP_EXTENSION: {"precedence": bad}}))
                .unwrap_err();
        assert_eq!(err.attribute(), "precedence", "{bad}");
    }
}

fn group() -> Group {
    let mut g = Group::new(
        GroupId::parse("1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5b").unwrap(),
        OrganizationId::new(),
        GroupFields {
            external_id: None,
            display_name: "Engineering".into(),
            package_id: None,
            precedence: 2,
        },
        Utc::now(),
    );
    g.version = 4;
    g
}

#[test]
fn an_outgoing_group_shows_members_only_when_read() {
    let g = group();
    let members = [Member {
        person_id: pid(ADA),
        user_name: "ada@example.com".into(),
    }];
    let v = from_group(&g, Some(&members), "https://equip.example.com/");
    assert_eq!(
        v,
        json!({
            "schemas": [schemas::GROUP, schemas::EQUIP_GROUP_EXTENSION],
            "id": g.id.to_string(),
            "displayName": "Engineering",
            "members": [{
                "value": ADA,
                "$ref": format!("https://equip.example.com/scim/v2/Users/{ADA}"),
                "display": "ada@example.com",
                "type": "User"
            }],
            "meta": {
                "resourceType": "Group",
                "created": timestamp(g.created_at),
                "lastModified": timestamp(g.updated_at),
                "location": format!("https://equip.example.com/scim/v2/Groups/{}", g.id),
                "version": "W/\"4\""
            },
            schemas::EQUIP_GROUP_EXTENSION: {"precedence": 2}
        })
    );
    assert!(from_group(&g, None, "http://x").get("members").is_none());
    // Read and empty: shown as such, not omitted.
    assert_eq!(from_group(&g, Some(&[]), "http://x")["members"], json!([]));
    assert_eq!(
        group_json(&g, Some(&[]), "http://x")
            .matches(r#""members":[]"#)
            .count(),
        1
    );
    let text: Value = serde_json::from_str(&group_json(&g, Some(&members), "http://x")).unwrap();
    assert_eq!(text, from_group(&g, Some(&members), "http://x"));
}

#[test]
fn a_group_shown_reads_back_to_the_same_fields_and_members() {
    let mut g = group();
    g.external_id = Some("00g1".into());
    g.package_id = Some(PackageId::parse(KIT).unwrap());
    let members = [
        Member {
            person_id: pid(BOB),
            user_name: "bob@example.com".into(),
        },
        Member {
            person_id: pid(ADA),
            user_name: "ada@example.com".into(),
        },
    ];
    let (fields, ids) = read(from_group(&g, Some(&members), "http://x")).unwrap();
    assert_eq!(fields, g.fields());
    assert_eq!(ids, [pid(ADA), pid(BOB)].into());
}

#[test]
fn attribute_names_are_read_in_any_case_at_every_level() {
    let (fields, members) = ScimGroup::from_body(json!({
        "DISPLAYNAME": "Engineering",
        "Members": [{"Value": ADA}, {"VALUE": BOB}],
        "urn:ietf:params:scim:schemas:extension:equip:1.0:group": {"PackageId": KIT, "Precedence": 2}
    }))
    .unwrap()
    .into_parts()
    .unwrap();
    assert_eq!(fields.display_name, "Engineering");
    assert_eq!(members, [pid(ADA), pid(BOB)].into_iter().collect());
    assert_eq!(fields.precedence, 2);
    assert!(fields.package_id.is_some());
    let e = ScimGroup::from_body(json!({"displayName": "a", "DisplayName": "b"})).unwrap_err();
    assert_eq!(e.attribute(), Some("displayName"));
}
