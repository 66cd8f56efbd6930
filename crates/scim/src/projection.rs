//! `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5) applied to a
//! resource's JSON. `id`, `userName` and `schemas` are always returned; names
//! are matched case-insensitively, with or without the schema URN; names equip
//! does not know are ignored.

use serde_json::{Map, Value};

use crate::schemas;
use crate::user_schema::{resolve_str, Resolved, Schema};

const ALWAYS: [&str; 3] = ["schemas", "id", "userName"];

fn names(list: Option<&str>) -> Vec<Resolved> {
    list.unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .filter_map(resolve_str)
        .collect()
}

/// The container object of a resolved attribute (top level, or the extension object).
fn container(obj: &mut Map<String, Value>, schema: Schema) -> Option<&mut Map<String, Value>> {
    match schema {
        Schema::Core => Some(obj),
        Schema::Extension => obj
            .get_mut(schemas::EQUIP_USER_EXTENSION)
            .and_then(Value::as_object_mut),
    }
}

fn copy(from: &Map<String, Value>, to: &mut Map<String, Value>, r: &Resolved) {
    let (src, dst) = match r.schema {
        Schema::Core => (Some(from), to),
        Schema::Extension => {
            let src = from
                .get(schemas::EQUIP_USER_EXTENSION)
                .and_then(Value::as_object);
            let Some(src) = src else { return };
            let dst = to
                .entry(schemas::EQUIP_USER_EXTENSION)
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

/// Applies the two lists to `resource` (a JSON object). `attributes` wins when
/// both are given (RFC 7644 allows only one).
#[must_use]
pub fn project(resource: Value, attributes: Option<&str>, excluded: Option<&str>) -> Value {
    let Value::Object(full) = resource else {
        return resource;
    };
    let wanted = names(attributes);
    if !wanted.is_empty() {
        let mut out = Map::new();
        for key in ALWAYS {
            if let Some(v) = full.get(key) {
                out.insert(key.to_owned(), v.clone());
            }
        }
        for r in &wanted {
            copy(&full, &mut out, r);
        }
        return Value::Object(out);
    }
    let mut out = full;
    for r in names(excluded) {
        let Some(attr) = r.attr else {
            out.remove(schemas::EQUIP_USER_EXTENSION);
            continue;
        };
        if r.schema == Schema::Core && ALWAYS.contains(&attr.name) {
            continue;
        }
        let Some(c) = container(&mut out, r.schema) else {
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
}
