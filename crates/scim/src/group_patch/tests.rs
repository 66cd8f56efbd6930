use super::*;
use crate::patch::{parse_patch, PATCH_OP};
use equip_domain::ids::{OrganizationId, PackageId};
use serde_json::json;
use std::collections::BTreeSet;

const GID: &str = "1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5b";
const ADA: &str = "6f1c2f4e-8d1b-4a53-9a43-3c1c8a0f4b11";
const BOB: &str = "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d";
const KIT: &str = "9d8c7b6a-5f4e-4d3c-8b2a-1a0f9e8d7c6b";
const EXT: &str = "urn:ietf:params:scim:schemas:extension:equip:1.0:Group";

fn group() -> Group {
    Group::new(
        GroupId::parse(GID).unwrap(),
        OrganizationId::new(),
        GroupFields {
            external_id: Some("00g1".into()),
            display_name: "Engineering".into(),
            package_id: Some(PackageId::parse(KIT).unwrap()),
            precedence: 5,
        },
        chrono::Utc::now(),
    )
}

fn patch(ops: Value) -> Result<GroupPatch, PatchError> {
    let ops = parse_patch(&json!({"schemas": [PATCH_OP], "Operations": ops}))?;
    interpret(&ops, &group())
}

fn pid(raw: &str) -> PersonId {
    PersonId::parse(raw).unwrap()
}

fn set(ids: &[&str]) -> BTreeSet<PersonId> {
    ids.iter().map(|i| pid(i)).collect()
}

fn added(ids: &[&str]) -> MembersChange {
    MembersChange::Delta {
        add: set(ids),
        remove: BTreeSet::new(),
    }
}

fn removed(ids: &[&str]) -> MembersChange {
    MembersChange::Delta {
        add: BTreeSet::new(),
        remove: set(ids),
    }
}

fn fields(change: impl FnOnce(&mut GroupFields)) -> Option<GroupFields> {
    let mut f = group().fields();
    change(&mut f);
    Some(f)
}

#[test]
fn okta_adds_members_by_path() {
    let p = patch(json!([{"op": "add", "path": "members", "value": [{"value": ADA}, {"value": BOB, "display": "bob"}]}]))
        .unwrap();
    assert_eq!(p.members, added(&[ADA, BOB]));
    assert_eq!(
        p.fields, None,
        "a member-only change leaves the fields alone"
    );
}

#[test]
fn okta_removes_a_member_by_filter() {
    let p =
        patch(json!([{"op": "remove", "path": format!("members[value eq \"{ADA}\"]")}])).unwrap();
    assert_eq!(p.members, removed(&[ADA]));
    let p = patch(json!([{"op": "remove", "path": format!("members[value eq \"{ADA}\" or value eq \"{BOB}\"]")}]))
        .unwrap();
    assert_eq!(p.members, removed(&[ADA, BOB]));
    // Anything but value eq would need the members read: refused.
    let err = patch(json!([{"op": "remove", "path": "members[display eq \"ada\"]"}])).unwrap_err();
    assert!(matches!(err, PatchError::InvalidPath(_)), "{err:?}");
    let err =
        patch(json!([{"op": "add", "path": format!("members[value eq \"{ADA}\"]"), "value": {}}]))
            .unwrap_err();
    assert!(matches!(err, PatchError::InvalidPath(_)), "{err:?}");
}

#[test]
fn okta_pathless_replace_ignores_its_own_id() {
    let p = patch(json!([{"op": "replace", "value": {"id": GID, "displayName": "New"}}])).unwrap();
    assert_eq!(p.fields, fields(|f| f.display_name = "New".into()));
    assert_eq!(p.members, MembersChange::Keep);
    // The id in upper case is still this group's.
    let p = patch(
        json!([{"op": "replace", "value": {"id": GID.to_uppercase(), "displayName": "New"}}]),
    )
    .unwrap();
    assert!(p.fields.is_some());
    // Another id is a change of a read-only attribute.
    let err =
        patch(json!([{"op": "replace", "value": {"id": ADA, "displayName": "New"}}])).unwrap_err();
    assert!(matches!(err, PatchError::Mutability(_)), "{err:?}");
}

#[test]
fn entra_adds_and_removes_members_with_capitalized_ops() {
    let p = patch(json!([{"op": "Add", "path": "members", "value": [{"value": ADA}]}])).unwrap();
    assert_eq!(p.members, added(&[ADA]));
    let p = patch(json!([{"op": "Remove", "path": "members", "value": [{"value": ADA}]}])).unwrap();
    assert_eq!(p.members, removed(&[ADA]));
}

#[test]
fn entra_replaces_display_name_and_external_id() {
    let p = patch(json!([{"op": "Replace", "path": "displayName", "value": "x"}])).unwrap();
    assert_eq!(p.fields, fields(|f| f.display_name = "x".into()));
    let p = patch(json!([{"op": "Replace", "path": "externalId", "value": "x"}])).unwrap();
    assert_eq!(p.fields, fields(|f| f.external_id = Some("x".into())));
    let p = patch(json!([{"op": "remove", "path": "externalId"}])).unwrap();
    assert_eq!(p.fields, fields(|f| f.external_id = None));
    // Setting what is already there is no change of fields.
    let p =
        patch(json!([{"op": "Replace", "path": "DISPLAYNAME", "value": "Engineering"}])).unwrap();
    assert_eq!(p.fields, None);
    let err = patch(json!([{"op": "remove", "path": "displayName"}])).unwrap_err();
    assert!(matches!(err, PatchError::InvalidValue(_)), "{err:?}");
    let err = patch(json!([{"op": "replace", "path": "displayName", "value": 7}])).unwrap_err();
    assert!(matches!(err, PatchError::InvalidValue(_)), "{err:?}");
}

#[test]
fn remove_of_members_without_value_removes_everyone_and_replace_replaces_all() {
    let p = patch(json!([{"op": "remove", "path": "members"}])).unwrap();
    assert_eq!(p.members, MembersChange::Replace(BTreeSet::new()));
    let p = patch(
        json!([{"op": "replace", "path": "members", "value": [{"value": ADA}, {"value": BOB}]}]),
    )
    .unwrap();
    assert_eq!(p.members, MembersChange::Replace(set(&[ADA, BOB])));
    let p = patch(json!([{"op": "replace", "path": "members", "value": []}])).unwrap();
    assert_eq!(p.members, MembersChange::Replace(BTreeSet::new()));
}

#[test]
fn pathless_values_with_members_add_or_replace() {
    let p = patch(json!([{"op": "add", "value": {"members": [{"value": ADA}]}}])).unwrap();
    assert_eq!(p.members, added(&[ADA]));
    let p = patch(
        json!([{"op": "replace", "value": {"members": [{"value": BOB}], "displayName": "Eng"}}]),
    )
    .unwrap();
    assert_eq!(p.members, MembersChange::Replace(set(&[BOB])));
    assert_eq!(p.fields, fields(|f| f.display_name = "Eng".into()));
    // Wrapped in an array, as some clients send it.
    let p = patch(json!([{"op": "add", "value": [{"members": [{"value": ADA}]}]}])).unwrap();
    assert_eq!(p.members, added(&[ADA]));
}

#[test]
fn operations_compose_in_order() {
    let p = patch(json!([
        {"op": "add", "path": "members", "value": [{"value": ADA}, {"value": BOB}]},
        {"op": "remove", "path": format!("members[value eq \"{BOB}\"]")},
        {"op": "replace", "path": "displayName", "value": "A"},
        {"op": "replace", "path": "displayName", "value": "B"}
    ]))
    .unwrap();
    assert_eq!(
        p.members,
        MembersChange::Delta {
            add: set(&[ADA]),
            remove: set(&[BOB])
        }
    );
    assert_eq!(p.fields, fields(|f| f.display_name = "B".into()));
    let p = patch(json!([
        {"op": "remove", "path": "members"},
        {"op": "add", "path": "members", "value": [{"value": ADA}]}
    ]))
    .unwrap();
    assert_eq!(p.members, MembersChange::Replace(set(&[ADA])));
}

#[test]
fn extension_attributes_by_path_by_urn_and_in_a_pathless_value() {
    let other = "2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b";
    let p = patch(json!([{"op": "replace", "path": format!("{EXT}:packageId"), "value": other}]))
        .unwrap();
    assert_eq!(
        p.fields,
        fields(|f| f.package_id = Some(PackageId::parse(other).unwrap()))
    );
    let p = patch(json!([{"op": "replace", "path": format!("{EXT}:precedence"), "value": -2}]))
        .unwrap();
    assert_eq!(p.fields, fields(|f| f.precedence = -2));
    let p = patch(json!([{"op": "remove", "path": format!("{EXT}:packageId")}])).unwrap();
    assert_eq!(p.fields, fields(|f| f.package_id = None));
    let p = patch(json!([{"op": "remove", "path": format!("{EXT}:precedence")}])).unwrap();
    assert_eq!(p.fields, fields(|f| f.precedence = 0));
    let p =
        patch(json!([{"op": "replace", "value": {EXT: {"packageId": null, "precedence": "3"}}}]))
            .unwrap();
    assert_eq!(
        p.fields,
        fields(|f| {
            f.package_id = None;
            f.precedence = 3;
        })
    );
    let p = patch(json!([{"op": "add", "path": EXT, "value": {"precedence": 9}}])).unwrap();
    assert_eq!(p.fields, fields(|f| f.precedence = 9));
    let p = patch(json!([{"op": "remove", "path": EXT}])).unwrap();
    assert_eq!(
        p.fields,
        fields(|f| {
            f.package_id = None;
            f.precedence = 0;
        })
    );
    let err = patch(json!([{"op": "replace", "path": format!("{EXT}:packageId"), "value": "kit"}]))
        .unwrap_err();
    assert!(
        matches!(&err, PatchError::InvalidValue(m) if m.contains("packageId")),
        "{err:?}"
    );
    let err =
        patch(json!([{"op": "replace", "path": format!("{EXT}:precedence"), "value": "high"}]))
            .unwrap_err();
    assert!(
        matches!(&err, PatchError::InvalidValue(m) if m.contains("precedence")),
        "{err:?}"
    );
}

#[test]
fn a_member_value_that_is_not_a_user_id_is_named() {
    for ops in [
        json!([{"op": "add", "path": "members", "value": [{"value": ADA}, {"value": "not-a-user"}]}]),
        json!([{"op": "remove", "path": "members[value eq \"not-a-user\"]"}]),
        json!([{"op": "replace", "value": {"members": [{"value": "not-a-user"}]}}]),
    ] {
        let err = patch(ops.clone()).unwrap_err();
        assert!(
            matches!(&err, PatchError::InvalidValue(m) if m.contains("'not-a-user'")),
            "{ops}: {err:?}"
        );
    }
    let err = patch(json!([{"op": "add", "path": "members", "value": [{"display": "ada"}]}]))
        .unwrap_err();
    assert!(matches!(err, PatchError::InvalidValue(_)), "{err:?}");
}

#[test]
fn read_only_attributes_and_unknown_ones() {
    for path in ["id", "meta", "meta.version", "members.display"] {
        let err = patch(json!([{"op": "replace", "path": path, "value": "x"}])).unwrap_err();
        assert!(matches!(err, PatchError::Mutability(_)), "{path}: {err:?}");
    }
    let err = patch(json!([{"op": "replace", "path": "members.value", "value": ADA}])).unwrap_err();
    assert!(matches!(err, PatchError::InvalidPath(_)), "{err:?}");
    let err =
        patch(json!([{"op": "replace", "path": "displayName[value eq \"x\"]", "value": "y"}]))
            .unwrap_err();
    assert!(matches!(err, PatchError::InvalidPath(_)), "{err:?}");
    // Unknown attributes, other extensions, read-only keys of a path-less value: ignored.
    let p = patch(json!([
        {"op": "replace", "path": "nickName", "value": "x"},
        {"op": "replace", "path": "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", "value": "x"},
        {"op": "replace", "value": {"meta": {"version": "W/\"9\""}, "schemas": [], "location": "x"}}
    ]))
    .unwrap();
    assert_eq!(
        p,
        GroupPatch {
            fields: None,
            members: MembersChange::Keep
        }
    );
}

#[test]
fn a_sub_attribute_an_attribute_does_not_have_is_an_invalid_path() {
    for path in ["displayName.x", "externalId.y", "members.colour"] {
        let r = patch(json!([{"op": "replace", "path": path, "value": "x"}]));
        assert!(
            matches!(r, Err(PatchError::InvalidPath(_))),
            "{path}: {r:?}"
        );
    }
    // Unknown attributes are still ignored.
    assert!(patch(json!([{"op": "replace", "path": "nickName.x", "value": "x"}])).is_ok());
}
