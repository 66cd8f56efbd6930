use super::*;
use equip_domain::group::PersonGroup;
use equip_domain::ids::GroupId;
use serde_json::json;

fn org() -> OrganizationId {
    OrganizationId::parse("0b3c6a8e-1d5f-4a8e-9a0c-2f1e3d4c5b6a").unwrap()
}

fn pid() -> PersonId {
    PersonId::parse("6f1c2f4e-8d1b-4a53-9a43-3c1c8a0f4b11").unwrap()
}

fn full_user() -> Value {
    json!({
        "schemas": [schemas::USER, schemas::EQUIP_USER_EXTENSION],
        "externalId": "00u1abcd",
        "userName": "joao.silva@acme.example",
        "password": "hunter2-very-secret",
        "name": {"givenName": "João", "familyName": "Silva", "formatted": "João Silva"},
        "displayName": "João Silva",
        "emails": [
            {"value": "joao.silva@acme.example", "type": "work", "primary": true},
            {"value": "joao@home.example", "type": "home", "primary": "False"}
        ],
        "phoneNumbers": [{"value": "+55 11 91234-5678", "type": "mobile", "primary": "true"}],
        "addresses": [{
            "type": "home", "primary": true, "country": "BR",
            "streetAddress": "Rua Augusta, 1500\nApto 42", "postalCode": "01304-001",
            "region": "SP", "locality": "São Paulo", "formatted": "ignored"
        }],
        "active": true,
        "locale": "pt-BR",
        "urn:ietf:params:scim:schemas:extension:equip:1.0:User": {
            "packageId": "9d8c7b6a-5f4e-4d3c-8b2a-1a0f9e8d7c6b",
            "startDate": "2031-02-03",
            "status": "ACTIVE",
            "skipUserActivation": "True",
            "cpfNumber": "529.982.247-25"
        }
    })
}

fn parse(v: Value) -> ScimUser {
    serde_json::from_value(v).unwrap()
}

#[test]
fn extension_key_matches_the_schema_constant() {
    let v = json!({ schemas::EQUIP_USER_EXTENSION: {"cpfNumber": "1"} });
    assert!(parse(v).extension.is_some());
}

#[test]
fn incoming_user_becomes_a_person() {
    let now = Utc::now();
    let p = parse(full_user()).into_person(org(), pid(), now).unwrap();
    assert_eq!(p.id, pid());
    assert_eq!(p.organization_id, org());
    assert_eq!(p.user_name, "joao.silva@acme.example");
    assert_eq!(p.external_id.as_deref(), Some("00u1abcd"));
    assert_eq!(p.given_name.as_deref(), Some("João"));
    assert_eq!(p.family_name.as_deref(), Some("Silva"));
    assert_eq!(p.display_name.as_deref(), Some("João Silva"));
    assert_eq!(p.emails.len(), 2);
    assert!(p.emails[0].primary && !p.emails[1].primary);
    assert_eq!(p.emails[1].kind.as_deref(), Some("home"));
    assert!(p.phone_numbers[0].primary);
    assert_eq!(
        p.addresses[0].street_address.as_deref(),
        Some("Rua Augusta, 1500\nApto 42")
    );
    assert_eq!(p.addresses[0].country.as_deref(), Some("BR"));
    assert!(p.active);
    assert_eq!(
        p.package_id.unwrap().to_string(),
        "9d8c7b6a-5f4e-4d3c-8b2a-1a0f9e8d7c6b"
    );
    assert_eq!(p.start_date, NaiveDate::from_ymd_opt(2031, 2, 3));
    assert_eq!(p.status, PersonStatus::Active);
    assert_eq!(p.skip_user_activation, Some(true));
    assert_eq!(p.cpf_number.as_deref(), Some("529.982.247-25"));
    assert_eq!((p.created_at, p.updated_at, p.version), (now, now, 1));
    assert!(p.validate().is_ok());
    assert!(
        !format!("{p:?}").contains("hunter2"),
        "password is never kept"
    );
}

#[test]
fn entra_string_booleans_are_accepted_in_any_case() {
    for (raw, expected) in [
        ("False", false),
        ("false", false),
        ("FALSE", false),
        ("True", true),
        (" true ", true),
    ] {
        let u = parse(json!({"userName": "a@b.example", "active": raw}));
        assert_eq!(u.active, Some(expected), "{raw}");
    }
    let p = parse(json!({"userName": "a@b.example", "active": "False"}))
        .into_person(org(), pid(), Utc::now())
        .unwrap();
    assert!(!p.active);
    let u = parse(json!({"userName": "a@b.example", "active": null}));
    assert_eq!(u.active, None);
    assert!(serde_json::from_value::<ScimUser>(json!({"active": "maybe"})).is_err());
    assert!(serde_json::from_value::<ScimUser>(json!({"active": 1})).is_err());
}

#[test]
fn active_defaults_to_true_and_status_to_active() {
    let p = parse(json!({"userName": "a@b.example", "emails": [{"value": "a@b.example"}]}))
        .into_person(org(), pid(), Utc::now())
        .unwrap();
    assert!(p.active);
    assert_eq!(p.status, PersonStatus::Active);
    assert!(!p.emails[0].primary);
    assert!(p.validate().is_ok(), "a single email counts as primary");
}

#[test]
fn bad_attributes_are_named() {
    let cases = [
        (json!({"emails": []}), "userName"),
        (json!({"userName": "  "}), "userName"),
        (
            json!({"userName": "a@b.example", "emails": [{"type": "work"}]}),
            "emails[0].value",
        ),
        (
            json!({"userName": "a@b.example", "phoneNumbers": [{"value": ""}]}),
            "phoneNumbers[0].value",
        ),
        (
            json!({"userName": "a@b.example", schemas::EQUIP_USER_EXTENSION: {"packageId": "nope"}}),
            "packageId",
        ),
        (
            json!({"userName": "a@b.example", schemas::EQUIP_USER_EXTENSION: {"startDate": "03/02/2031"}}),
            "startDate",
        ),
        (
            json!({"userName": "a@b.example", schemas::EQUIP_USER_EXTENSION: {"status": "GONE"}}),
            "status",
        ),
    ];
    for (body, attribute) in cases {
        let err = parse(body.clone())
            .into_person(org(), pid(), Utc::now())
            .unwrap_err();
        assert_eq!(err.attribute(), attribute, "{body}");
        assert!(err.to_string().starts_with(attribute));
    }
}

#[test]
fn empty_strings_and_nulls_count_as_absent() {
    let p = parse(json!({
        "userName": "a@b.example",
        "externalId": "",
        "emails": null,
        "addresses": null,
        schemas::EQUIP_USER_EXTENSION: {"packageId": "", "startDate": null, "cpfNumber": " "}
    }))
    .into_person(org(), pid(), Utc::now())
    .unwrap();
    assert_eq!(p.external_id, None);
    assert_eq!(p.package_id, None);
    assert_eq!(p.start_date, None);
    assert_eq!(p.cpf_number, None);
    assert!(p.emails.is_empty() && p.addresses.is_empty());
}

#[test]
fn start_date_accepts_a_timestamp_too() {
    let p = parse(json!({"userName": "a@b.example",
        schemas::EQUIP_USER_EXTENSION: {"startDate": "2031-02-03T00:00:00Z"}}))
    .into_person(org(), pid(), Utc::now())
    .unwrap();
    assert_eq!(p.start_date, NaiveDate::from_ymd_opt(2031, 2, 3));
}

#[test]
fn outgoing_user_has_meta_schemas_and_extension() {
    let mut p = parse(full_user())
        .into_person(org(), pid(), Utc::now())
        .unwrap();
    p.version = 7;
    let v = from_person(&p, &Belonging::default(), "https://equip.example.com/");
    assert_eq!(
        v["schemas"],
        json!([schemas::USER, schemas::EQUIP_USER_EXTENSION])
    );
    assert_eq!(v["id"], pid().to_string());
    assert_eq!(v["userName"], "joao.silva@acme.example");
    assert_eq!(
        v["name"],
        json!({"givenName": "João", "familyName": "Silva", "formatted": "João Silva"}),
        "name.formatted is stored and shown"
    );
    assert_eq!(v["emails"][1]["primary"], false);
    assert_eq!(v["emails"][0]["type"], "work");
    assert_eq!(
        v["addresses"][0]["streetAddress"],
        "Rua Augusta, 1500\nApto 42"
    );
    assert_eq!(v["active"], true);
    assert_eq!(v["meta"]["resourceType"], "User");
    assert_eq!(
        v["meta"]["location"],
        format!("https://equip.example.com/scim/v2/Users/{}", pid())
    );
    assert_eq!(v["meta"]["version"], "W/\"7\"");
    assert!(v["meta"]["created"].as_str().unwrap().ends_with('Z'));
    let ext = &v[schemas::EQUIP_USER_EXTENSION];
    assert_eq!(ext["packageId"], "9d8c7b6a-5f4e-4d3c-8b2a-1a0f9e8d7c6b");
    assert_eq!(ext["startDate"], "2031-02-03");
    assert_eq!(ext["status"], "ACTIVE");
    assert_eq!(ext["skipUserActivation"], true);
    assert_eq!(ext["cpfNumber"], "529.982.247-25");
    assert!(v.get("password").is_none());
}

#[test]
fn json_text_and_value_agree() {
    let p = parse(full_user())
        .into_person(org(), pid(), Utc::now())
        .unwrap();
    let text: Value =
        serde_json::from_str(&person_json(&p, &Belonging::default(), "http://x")).unwrap();
    assert_eq!(text, from_person(&p, &Belonging::default(), "http://x"));
}

#[test]
fn absent_optionals_are_omitted() {
    let p = parse(
        json!({"userName": "a@b.example", "emails": [{"value": "a@b.example", "primary": true}]}),
    )
    .into_person(org(), pid(), Utc::now())
    .unwrap();
    let v = from_person(&p, &Belonging::default(), "http://localhost:8080");
    let obj = v.as_object().unwrap();
    for absent in [
        "externalId",
        "name",
        "displayName",
        "phoneNumbers",
        "addresses",
    ] {
        assert!(!obj.contains_key(absent), "{absent}");
    }
    let ext = v[schemas::EQUIP_USER_EXTENSION].as_object().unwrap();
    assert_eq!(ext.keys().collect::<Vec<_>>(), vec!["status"]);
    assert!(v["emails"][0].get("type").is_none());
}

#[test]
fn round_trip_keeps_the_person() {
    let now = Utc::now();
    let original = parse(full_user()).into_person(org(), pid(), now).unwrap();
    let shown = from_person(
        &original,
        &Belonging::default(),
        "https://equip.example.com",
    );
    let mut back = parse(shown).into_person(org(), pid(), now).unwrap();
    // meta is the server's: what comes back carries the caller's time and version.
    back.version = original.version;
    assert_eq!(back, original);
}

#[test]
fn groups_and_effective_package_are_shown_read_only() {
    let p = parse(full_user())
        .into_person(org(), pid(), Utc::now())
        .unwrap();
    let gid = GroupId::parse("1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5b").unwrap();
    let kit = PackageId::parse("2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b").unwrap();
    let belonging = Belonging {
        groups: vec![PersonGroup {
            group_id: gid,
            display_name: "Engineering".into(),
            package_id: Some(kit),
            precedence: 1,
        }],
        effective_package: Some(kit),
    };
    let v = from_person(&p, &belonging, "https://equip.example.com");
    assert_eq!(
        v["groups"],
        json!([{
            "value": gid.to_string(),
            "$ref": format!("https://equip.example.com/scim/v2/Groups/{gid}"),
            "display": "Engineering",
            "type": "direct"
        }])
    );
    let ext = &v[schemas::EQUIP_USER_EXTENSION];
    assert_eq!(ext["effectivePackageId"], kit.to_string());
    assert_eq!(ext["packageId"], "9d8c7b6a-5f4e-4d3c-8b2a-1a0f9e8d7c6b");
    let text: Value =
        serde_json::from_str(&person_json(&p, &belonging, "https://equip.example.com")).unwrap();
    assert_eq!(text, v);
    // Sent back (PUT of what GET showed), they are read past: the person is the same.
    let back = parse(v).into_person(org(), pid(), p.created_at).unwrap();
    assert_eq!(back.package_id, p.package_id);
    // Without groups, neither is shown.
    let v = from_person(&p, &Belonging::default(), "http://x");
    assert!(v.get("groups").is_none());
    assert!(v[schemas::EQUIP_USER_EXTENSION]
        .get("effectivePackageId")
        .is_none());
}

#[test]
fn the_entity_tag_follows_groups_and_the_effective_package() {
    let user: ScimUser = serde_json::from_value(full_user()).unwrap();
    let person = user.into_person(org(), pid(), Utc::now()).unwrap();
    let none = Belonging::default();
    assert_eq!(
        user_tag(&person, &none),
        format!("W/\"{}\"", person.version)
    );
    let group = PersonGroup {
        group_id: GroupId::parse("11111111-2222-4333-8444-555555555555").unwrap(),
        display_name: "Engineering".into(),
        package_id: None,
        precedence: 0,
    };
    let one = Belonging {
        groups: vec![group.clone()],
        effective_package: None,
    };
    let tag = user_tag(&person, &one);
    assert!(
        tag.starts_with(&format!("W/\"{}.", person.version)),
        "{tag}"
    );
    assert_eq!(tag, user_tag(&person, &one), "stable");
    let mut renamed = one.clone();
    renamed.groups[0].display_name = "Platform".into();
    assert_ne!(tag, user_tag(&person, &renamed));
    let mut packaged = one.clone();
    packaged.effective_package = Some(PackageId::new());
    assert_ne!(tag, user_tag(&person, &packaged));
    // The rendered meta.version is the tag.
    assert_eq!(
        from_person(&person, &one, "http://x")["meta"]["version"],
        tag
    );
}

/// `v` with every object key in upper case, at every level.
fn upper_keys(v: Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, v)| (k.to_uppercase(), upper_keys(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(upper_keys).collect()),
        other => other,
    }
}

#[test]
fn attribute_names_are_read_in_any_case_at_every_level() {
    let as_sent = ScimUser::from_body(full_user()).unwrap();
    assert_eq!(as_sent, parse(full_user()));
    let shouted = ScimUser::from_body(upper_keys(full_user())).unwrap();
    assert_eq!(shouted, as_sent);
    let v = json!({"userName": "a@b.example", "Active": "False",
        "emails": [{"Value": "a@b.example", "Primary": true}]});
    let u = ScimUser::from_body(v).unwrap();
    assert_eq!(u.active, Some(false));
    assert_eq!(u.emails[0].primary, Some(true));
    assert_eq!(u.emails[0].value.as_deref(), Some("a@b.example"));
}

#[test]
fn an_attribute_in_two_spellings_is_refused_naming_it() {
    let e = ScimUser::from_body(json!({"active": true, "ACTIVE": false})).unwrap_err();
    assert_eq!(e.attribute(), Some("active"));
    let e = ScimUser::from_body(json!({"emails": [{"value": "a@b", "Value": "c@d"}]})).unwrap_err();
    assert_eq!(e.attribute(), Some("emails[0].value"));
    // Unknown attributes are ignored, whatever their spellings.
    assert!(ScimUser::from_body(json!({"favoriteColor": "red", "FavoriteColor": "blue"})).is_ok());
}

#[test]
fn a_value_of_the_wrong_type_is_an_error_without_an_attribute() {
    let e = ScimUser::from_body(json!({"Emails": "a@b.example"})).unwrap_err();
    assert_eq!(e.attribute(), None);
    assert!(e.to_string().contains("invalid type"), "{e}");
}
