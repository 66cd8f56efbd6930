//! `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5) applied to a
//! resource's JSON. `schemas` and the attributes returned always (`id`, and a
//! User's `userName`) are always returned; names are matched
//! case-insensitively, with or without the schema URN; names equip does not
//! know are ignored. [`returns`] tells beforehand whether an attribute will be
//! in the answer, so that what it would cost to read (a group's members) is
//! read only then.

use serde_json::{Map, Value};

use crate::resource_schema::{Resolved, ResourceSchema, Schema};
use crate::user_schema::USER_RESOURCE;

fn names(resource: &ResourceSchema, list: Option<&str>) -> Vec<Resolved> {
    list.unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .filter_map(|n| resource.resolve_str(n))
        .collect()
}

/// The container object of a resolved attribute (top level, or the extension object).
fn container<'a>(
    resource: &ResourceSchema,
    obj: &'a mut Map<String, Value>,
    schema: Schema,
) -> Option<&'a mut Map<String, Value>> {
    match schema {
        Schema::Core => Some(obj),
        Schema::Extension => obj
            .get_mut(resource.extension_urn)
            .and_then(Value::as_object_mut),
    }
}

fn copy(
    resource: &ResourceSchema,
    from: &Map<String, Value>,
    to: &mut Map<String, Value>,
    r: &Resolved,
) {
    let (src, dst) = match r.schema {
        Schema::Core => (Some(from), to),
        Schema::Extension => {
            let src = from.get(resource.extension_urn).and_then(Value::as_object);
            let Some(src) = src else { return };
            let dst = to
                .entry(resource.extension_urn)
                .or_insert_with(|| Value::Object(Map::new()));
            let Some(dst) = dst.as_object_mut() else {
                return;
            };
            if r.attr.is_none() {
                *dst = src.clone();
                return;
            }
            (Some(src), dst)
        }
    };
    let (Some(src), Some(attr)) = (src, r.attr) else {
        return;
    };
    let Some(value) = src.get(attr.name) else {
        return;
    };
    match (r.sub, value) {
        (None, v) => {
            dst.insert(attr.name.to_owned(), v.clone());
        }
        (Some(sub), Value::Object(o)) => {
            if let Some(sv) = o.get(sub.name) {
                let entry = dst
                    .entry(attr.name)
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(e) = entry.as_object_mut() {
                    e.insert(sub.name.to_owned(), sv.clone());
                }
            }
        }
        (Some(sub), Value::Array(items)) => {
            let picked: Vec<Value> = items
                .iter()
                .map(|i| {
                    let mut m = Map::new();
                    if let Some(sv) = i.get(sub.name) {
                        m.insert(sub.name.to_owned(), sv.clone());
                    }
                    Value::Object(m)
                })
                .collect();
            dst.insert(attr.name.to_owned(), Value::Array(picked));
        }
        _ => {}
    }
}

/// Applies the two lists to `resource` (a User's JSON object). `attributes`
/// wins when both are given (RFC 7644 allows only one).
#[must_use]
pub fn project(resource: Value, attributes: Option<&str>, excluded: Option<&str>) -> Value {
    project_resource(&USER_RESOURCE, resource, attributes, excluded)
}

/// Whether the core attribute `attr` (canonical name) of `resource` is in an
/// answer projected with these lists (as [`project_resource`] projects it):
/// `attributes` names it or one of its sub-attributes, or, without
/// `attributes`, `excludedAttributes` does not name it whole.
#[must_use]
pub fn returns(
    resource: &ResourceSchema,
    attributes: Option<&str>,
    excluded: Option<&str>,
    attr: &str,
) -> bool {
    let names_it =
        |r: &Resolved| r.schema == Schema::Core && r.attr.is_some_and(|a| a.name == attr);
    if resource.always_returned().any(|a| a == attr) {
        return true;
    }
    let wanted = names(resource, attributes);
    if !wanted.is_empty() {
        return wanted.iter().any(names_it);
    }
    !names(resource, excluded)
        .iter()
        .any(|r| names_it(r) && r.sub.is_none())
}

/// Applies the two lists to `value`, a JSON object of the resource type
/// `resource`. `attributes` wins when both are given (RFC 7644 allows only
/// one).
#[must_use]
pub fn project_resource(
    resource: &ResourceSchema,
    value: Value,
    attributes: Option<&str>,
    excluded: Option<&str>,
) -> Value {
    let Value::Object(full) = value else {
        return value;
    };
    let wanted = names(resource, attributes);
    if !wanted.is_empty() {
        let mut out = Map::new();
        for key in resource.always_returned() {
            if let Some(v) = full.get(key) {
                out.insert(key.to_owned(), v.clone());
            }
        }
        for r in &wanted {
            copy(resource, &full, &mut out, r);
        }
        return Value::Object(out);
    }
    let mut out = full;
    for r in names(resource, excluded) {
        let Some(attr) = r.attr else {
            out.remove(resource.extension_urn);
            continue;
        };
        if r.schema == Schema::Core && resource.always_returned().any(|a| a == attr.name) {
            continue;
        }
        let Some(c) = container(resource, &mut out, r.schema) else {
            continue;
        };
        match r.sub {
            None => {
                c.remove(attr.name);
            }
            Some(sub) => match c.get_mut(attr.name) {
                Some(Value::Object(o)) => {
                    o.remove(sub.name);
                }
                Some(Value::Array(items)) => {
                    for i in items.iter_mut() {
                        if let Some(o) = i.as_object_mut() {
                            o.remove(sub.name);
                        }
                    }
                }
                _ => {}
            },
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group_schema::GROUP_RESOURCE;
    use crate::schemas;
    use serde_json::json;

    fn user() -> Value {
        json!({
            "schemas": [schemas::USER, schemas::EQUIP_USER_EXTENSION],
            "id": "1", "userName": "a@b.example", "externalId": "x",
            "name": {"givenName": "Ada", "familyName": "L"},
            "emails": [{"value": "a@b.example", "type": "work", "primary": true}],
            "active": true, "meta": {"version": "W/\"1\""},
            schemas::EQUIP_USER_EXTENSION: {"status": "ACTIVE", "packageId": "p"}
        })
    }

    #[test]
    fn attributes_keep_the_always_returned_ones() {
        let v = project(user(), Some("name.givenName, EMAILS.value, urn:ietf:params:scim:schemas:extension:equip:1.0:User:packageId"), None);
        assert_eq!(
            v,
            json!({
                "schemas": [schemas::USER, schemas::EQUIP_USER_EXTENSION],
                "id": "1", "userName": "a@b.example",
                "name": {"givenName": "Ada"},
                "emails": [{"value": "a@b.example"}],
                schemas::EQUIP_USER_EXTENSION: {"packageId": "p"}
            })
        );
    }

    #[test]
    fn excluded_attributes_never_drop_required_ones() {
        let v = project(user(), None, Some("userName,id,emails,name.familyName,meta,urn:ietf:params:scim:schemas:extension:equip:1.0:User"));
        let o = v.as_object().unwrap_or_else(|| unreachable!());
        assert!(o.contains_key("userName") && o.contains_key("id"));
        assert!(!o.contains_key("emails") && !o.contains_key("meta"));
        assert!(!o.contains_key(schemas::EQUIP_USER_EXTENSION));
        assert_eq!(v["name"], json!({"givenName": "Ada"}));
    }

    fn group() -> Value {
        json!({
            "schemas": [schemas::GROUP, schemas::EQUIP_GROUP_EXTENSION],
            "id": "g", "displayName": "Engineering",
            "members": [{"value": "u", "display": "a@b.example", "type": "User"}],
            schemas::EQUIP_GROUP_EXTENSION: {"precedence": 1}
        })
    }

    #[test]
    fn members_are_returned_only_when_the_lists_keep_them() {
        let r = |a: Option<&str>, e: Option<&str>| returns(&GROUP_RESOURCE, a, e, "members");
        assert!(r(None, None));
        assert!(!r(None, Some("members")));
        assert!(!r(None, Some("displayName, MEMBERS")));
        assert!(r(None, Some("members.display")));
        assert!(r(None, Some("displayName")));
        assert!(r(Some("members"), None));
        assert!(r(Some("members.value"), Some("members")));
        assert!(!r(Some("displayName"), None));
        // A list of names equip does not know selects nothing: everything is returned.
        assert!(r(Some("nickName"), None));
        // What `returns` says is what the projection does.
        for (a, e) in [
            (None, Some("members")),
            (Some("displayName"), None),
            (Some("members.value"), None),
            (None, None),
        ] {
            let v = project_resource(&GROUP_RESOURCE, group(), a, e);
            assert_eq!(v.get("members").is_some(), r(a, e), "{a:?} {e:?}");
            assert_eq!(v["id"], "g");
        }
        let v = project_resource(
            &GROUP_RESOURCE,
            group(),
            Some("urn:ietf:params:scim:schemas:extension:equip:1.0:Group:precedence"),
            None,
        );
        assert_eq!(
            v,
            json!({
                "schemas": [schemas::GROUP, schemas::EQUIP_GROUP_EXTENSION],
                "id": "g",
                schemas::EQUIP_GROUP_EXTENSION: {"precedence": 1}
            })
        );
    }
}
