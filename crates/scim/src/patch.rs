//! PATCH (RFC 7644 §3.5.2) applied to a User's JSON, accepting what identity
//! providers send:
//! - ops in any case (`Add`, `Replace`, `Remove` from Microsoft Entra ID);
//! - path-less `add` / `replace` whose value keys are attribute names, dotted
//!   (`"name.givenName"`), URN-prefixed, or the extension URN with an object;
//! - `add` to `emails[type eq "work"].value` with no such email creates it
//!   (the filter's `eq` conditions become the new element's attributes);
//! - Okta's path-less `{"op":"replace","value":{"active":false}}`;
//! - a value made absent (`null`, `""`, `remove` of `phoneNumbers[type eq
//!   "mobile"].value`) removes its element (RFC 7643 §2.5; Microsoft's
//!   SCIM_Null_Update_Test), `userName` staying the primary email;
//! - string booleans are left to the lenient User reader.
//!
//! Over 500 lines on purpose: the identity providers' PATCH shapes are
//! accepted by one algorithm over one JSON document; split, each part would
//! need the others to be read.
//!
//! Attributes equip does not know (other extensions, …) are
//! ignored, as on create, and so are the sub-attributes RFC 7643 defines that
//! equip does not store (`emails[type eq "work"].display`,
//! `addresses[type eq "other"].formatted`: Entra's default mapping of
//! `physicalDeliveryOfficeName`), in any case; `id`, `meta`, `groups` and
//! the extension's `status` and `effectivePackageId` are read-only
//! (`mutability` by path, ignored in a path-less value). The caller turns
//! the patched JSON back into a person, which re-checks every rule.

use equip_domain::text::{identifier_key, same_identifier};
use serde_json::{Map, Value};

use crate::filter::{parse_path, AttrPath, CompValue, CompareOp, Filter, PatchPath};
use crate::schemas;
use crate::user_schema::{
    is_rfc7643_sub_attribute, resolve, AttrDef, Resolved, Schema, USER_RESOURCE,
};

/// The PatchOp message URN.
pub const PATCH_OP: &str = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/// `op`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// add
    Add,
    /// replace
    Replace,
    /// remove
    Remove,
}

/// One operation.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchOperation {
    /// The op.
    pub kind: OpKind,
    /// The parsed path, if any.
    pub path: Option<PatchPath>,
    /// The value, if any.
    pub value: Option<Value>,
}

/// Why a PATCH fails; each maps to a `scimType`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The request is not a PatchOp message (`invalidSyntax`).
    #[error("{0}")]
    InvalidSyntax(String),
    /// A path does not parse or cannot be used (`invalidPath`).
    #[error("{0}")]
    InvalidPath(String),
    /// The path selects nothing where something is needed (`noTarget`).
    #[error("{0}")]
    NoTarget(String),
    /// A read-only attribute was targeted (`mutability`).
    #[error("{0}")]
    Mutability(String),
    /// A value is of the wrong shape (`invalidValue`).
    #[error("{0}")]
    InvalidValue(String),
}

/// A PATCH refused: 400 with the `scimType` of its kind, about `Operations`.
impl From<PatchError> for crate::error::ScimError {
    fn from(e: PatchError) -> Self {
        use crate::error::ScimType;
        let t = match e {
            PatchError::InvalidSyntax(_) => ScimType::InvalidSyntax,
            PatchError::InvalidPath(_) => ScimType::InvalidPath,
            PatchError::NoTarget(_) => ScimType::NoTarget,
            PatchError::Mutability(_) => ScimType::Mutability,
            PatchError::InvalidValue(_) => ScimType::InvalidValue,
        };
        Self::bad(t, "Operations", e.to_string())
    }
}

fn get_ci<'a>(obj: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    obj.iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
}

/// Reads a PatchOp request body.
///
/// # Errors
/// `InvalidSyntax` for a body without an `Operations` array or an unknown op;
/// `InvalidPath` for a path that does not parse.
pub fn parse_patch(body: &Value) -> Result<Vec<PatchOperation>, PatchError> {
    let obj = body
        .as_object()
        .ok_or_else(|| PatchError::InvalidSyntax("the body must be a PatchOp object".into()))?;
    if let Some(list) = get_ci(obj, "schemas").and_then(Value::as_array) {
        if !list
            .iter()
            .any(|s| s.as_str().is_some_and(|s| s.eq_ignore_ascii_case(PATCH_OP)))
        {
            return Err(PatchError::InvalidSyntax(format!(
                "schemas must contain {PATCH_OP}"
            )));
        }
    }
    let ops = get_ci(obj, "Operations")
        .and_then(Value::as_array)
        .ok_or_else(|| PatchError::InvalidSyntax("Operations (an array) is required".into()))?;
    ops.iter()
        .enumerate()
        .map(|(i, op)| {
            let o = op.as_object().ok_or_else(|| {
                PatchError::InvalidSyntax(format!("Operations[{i}] must be an object"))
            })?;
            let kind = match get_ci(o, "op")
                .and_then(Value::as_str)
                .map(str::to_ascii_lowercase)
                .as_deref()
            {
                Some("add") => OpKind::Add,
                Some("replace") => OpKind::Replace,
                Some("remove") => OpKind::Remove,
                other => {
                    return Err(PatchError::InvalidSyntax(format!(
                        "Operations[{i}].op must be add, replace or remove, not {other:?}"
                    )))
                }
            };
            let path = match get_ci(o, "path") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) if s.trim().is_empty() => None,
                Some(Value::String(s)) => Some(parse_path(s.trim()).map_err(|e| {
                    PatchError::InvalidPath(format!("Operations[{i}].path '{s}': {e}"))
                })?),
                Some(_) => {
                    return Err(PatchError::InvalidPath(format!(
                        "Operations[{i}].path must be a string"
                    )))
                }
            };
            let value = get_ci(o, "value").cloned();
            if kind != OpKind::Remove && value.is_none() {
                return Err(PatchError::InvalidValue(format!(
                    "Operations[{i}].value is required"
                )));
            }
            if kind == OpKind::Remove && path.is_none() {
                return Err(PatchError::NoTarget(format!(
                    "Operations[{i}]: remove needs a path"
                )));
            }
            Ok(PatchOperation { kind, path, value })
        })
        .collect()
}

/// Applies the operations to `doc` (a User's JSON object), in order.
///
/// # Errors
/// [`PatchError`] for the first operation that cannot be applied.
pub fn apply_patch(doc: &mut Value, ops: &[PatchOperation]) -> Result<(), PatchError> {
    let before = doc.clone();
    let Some(root) = doc.as_object_mut() else {
        return Err(PatchError::InvalidValue(
            "the resource is not an object".into(),
        ));
    };
    apply_operations(root, ops)?;
    drop_cleared_elements(&before, root);
    Ok(())
}

fn apply_operations(
    root: &mut Map<String, Value>,
    ops: &[PatchOperation],
) -> Result<(), PatchError> {
    for op in ops {
        match (&op.path, &op.value) {
            (Some(path), value) => apply_path(root, op.kind, path, value.as_ref())?,
            (None, Some(Value::Object(values))) => {
                for (key, v) in values {
                    apply_key(root, op.kind, key, v)?;
                }
            }
            (None, Some(Value::Array(items))) => {
                // Some clients wrap the object in an array.
                for item in items {
                    let Value::Object(values) = item else {
                        return Err(PatchError::InvalidValue(
                            "a path-less value must be an object of attributes".into(),
                        ));
                    };
                    for (key, v) in values {
                        apply_key(root, op.kind, key, v)?;
                    }
                }
            }
            (None, _) => {
                return Err(PatchError::InvalidValue(
                    "a path-less value must be an object of attributes".into(),
                ))
            }
        }
    }
    Ok(())
}

/// Whether a sub-attribute's value is absent: missing, `null`, or a string
/// of nothing but whitespace (empty strings count as absent, as in a body).
fn is_absent(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.trim().is_empty(),
        Some(_) => false,
    }
}

/// The address sub-attributes equip keeps that are the address itself
/// (not its `type` or `primary` label).
const ADDRESS_DATA: &[&str] = &[
    "streetAddress",
    "locality",
    "region",
    "postalCode",
    "country",
];

/// Whether an element of the multi-valued attribute `attr` holds nothing
/// once its labels are set aside: an email or phone number without a
/// `value`, an address without any of [`ADDRESS_DATA`].
fn is_emptied(attr: &str, item: &Value) -> bool {
    let get = |name: &str| item.as_object().and_then(|o| get_ci(o, name));
    if attr == "addresses" {
        ADDRESS_DATA.iter().all(|name| is_absent(get(name)))
    } else {
        is_absent(get("value"))
    }
}

/// RFC 7643 §2.5: a value made absent is unassigned, so an element whose
/// value this PATCH cleared (`replace emails[type eq "work"].value` with
/// `null` or `""`, `remove phoneNumbers[type eq "mobile"].value`) is removed
/// instead of refusing the request for a missing value. Only elements the
/// PATCH changed or added are looked at (an unchanged stored element stays
/// as it is). When an email is removed this way and no remaining email is
/// primary, `userName` (the primary email, docs/scim.md) decides: the
/// remaining email equal to it becomes primary, or, if there is none, it is
/// added as the primary email (a user left without emails gets it when
/// written, as every user sent without emails does).
fn drop_cleared_elements(before: &Value, root: &mut Map<String, Value>) {
    let mut emails_dropped = false;
    for attr in ["emails", "phoneNumbers", "addresses"] {
        let old: &[Value] = before
            .get(attr)
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice);
        let Some(Value::Array(items)) = root.get_mut(attr) else {
            continue;
        };
        let len = items.len();
        items.retain(|item| old.contains(item) || !is_emptied(attr, item));
        emails_dropped |= attr == "emails" && items.len() < len;
        if items.is_empty() {
            root.remove(attr);
        }
    }
    if emails_dropped {
        primary_from_user_name(root);
    }
}

/// After emails were removed: a primary email again, from `userName`, unless
/// one remains primary (or none remains: the user's `userName` becomes its
/// primary email when it is written).
fn primary_from_user_name(root: &mut Map<String, Value>) {
    let Some(user_name) = root
        .get("userName")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return;
    };
    let Some(Value::Array(emails)) = root.get_mut("emails") else {
        return;
    };
    if emails.iter().any(|e| is_true(e.get("primary"))) {
        return;
    }
    let same = emails.iter().position(|e| {
        e.get("value")
            .and_then(Value::as_str)
            .is_some_and(|v| same_identifier(v, &user_name))
    });
    match same {
        Some(i) => {
            if let Some(o) = emails[i].as_object_mut() {
                o.insert("primary".into(), Value::Bool(true));
            }
        }
        None => emails.push(serde_json::json!({"value": user_name, "primary": true})),
    }
}

/// A path-less value's key: an attribute name (dotted, URN-prefixed) or the
/// extension URN with an object of extension attributes.
fn apply_key(
    root: &mut Map<String, Value>,
    kind: OpKind,
    key: &str,
    v: &Value,
) -> Result<(), PatchError> {
    if ["schemas", "id", "meta"]
        .iter()
        .any(|k| key.eq_ignore_ascii_case(k))
    {
        return Ok(());
    }
    if key.eq_ignore_ascii_case(schemas::EQUIP_USER_EXTENSION) {
        let Value::Object(inner) = v else {
            return Err(PatchError::InvalidValue(format!("{key} must be an object")));
        };
        for (k, iv) in inner {
            let path = PatchPath {
                attr: AttrPath {
                    uri: Some(schemas::EQUIP_USER_EXTENSION.into()),
                    attr: k.clone(),
                    sub_attr: None,
                },
                filter: None,
                sub_attr: None,
            };
            if resolve(&path.attr)
                .is_some_and(|r| r.attr.is_some_and(|a| a.mutability == "readOnly"))
            {
                continue;
            }
            apply_path(root, kind, &path, Some(iv))?;
        }
        return Ok(());
    }
    match parse_path(key) {
        Ok(path) if path.filter.is_none() => {
            // Read-only attributes inside a path-less value are ignored.
            if resolve(&path.attr).is_some_and(|r| r.is_read_only()) {
                return Ok(());
            }
            apply_path(root, kind, &path, Some(v))
        }
        // Keys that are not attribute names: nothing equip stores.
        _ => Ok(()),
    }
}

fn container(root: &mut Map<String, Value>, schema: Schema) -> &mut Map<String, Value> {
    match schema {
        Schema::Core => root,
        Schema::Extension => {
            let entry = root
                .entry(schemas::EQUIP_USER_EXTENSION)
                .or_insert_with(|| Value::Object(Map::new()));
            if !entry.is_object() {
                *entry = Value::Object(Map::new());
            }
            match entry {
                Value::Object(m) => m,
                _ => unreachable!("made an object above"),
            }
        }
    }
}

/// Renames the keys of a complex value to the canonical sub-attribute names.
fn canon(def: &AttrDef, v: &Value) -> Value {
    match v {
        Value::Object(o) if !def.sub.is_empty() => Value::Object(
            o.iter()
                .map(|(k, x)| {
                    let name = def
                        .sub
                        .iter()
                        .find(|s| s.name.eq_ignore_ascii_case(k))
                        .map_or_else(|| k.clone(), |s| s.name.to_owned());
                    (name, x.clone())
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

fn is_true(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.trim().eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// At most one primary: when `keep` is primary, the others stop being primary.
fn single_primary(items: &mut [Value], keep: &[usize]) {
    if !keep
        .iter()
        .any(|i| is_true(items.get(*i).and_then(|x| x.get("primary"))))
    {
        return;
    }
    for (i, item) in items.iter_mut().enumerate() {
        if !keep.contains(&i) {
            if let Some(o) = item.as_object_mut() {
                if o.contains_key("primary") {
                    o.insert("primary".into(), Value::Bool(false));
                }
            }
        }
    }
}

fn apply_path(
    root: &mut Map<String, Value>,
    kind: OpKind,
    path: &PatchPath,
    value: Option<&Value>,
) -> Result<(), PatchError> {
    let Some(r) = resolve(&path.attr) else {
        return unresolved_path(&path.attr);
    };
    let Some(attr) = r.attr else {
        // The whole extension object.
        return match (kind, value) {
            (OpKind::Remove, _) => {
                root.remove(schemas::EQUIP_USER_EXTENSION);
                Ok(())
            }
            (_, Some(v)) => apply_key(root, kind, schemas::EQUIP_USER_EXTENSION, v),
            (_, None) => Ok(()),
        };
    };
    if r.is_read_only() {
        return Err(PatchError::Mutability(format!(
            "{} is read-only",
            path.attr
        )));
    }
    let target = container(root, r.schema);
    if let Some(filter) = &path.filter {
        if !attr.multi {
            return Err(PatchError::InvalidPath(format!(
                "a value filter needs a multi-valued attribute; {} is not",
                attr.name
            )));
        }
        let sub = match &path.sub_attr {
            None => None,
            Some(s) => match attr.sub.iter().find(|d| d.name.eq_ignore_ascii_case(s)) {
                Some(d) => Some(d),
                // A sub-attribute RFC 7643 defines that equip does not store
                // (`emails[…].display`, `addresses[…].formatted`): accepted,
                // and nothing changes (no element is created for it either).
                None if r.schema == Schema::Core && is_rfc7643_sub_attribute(attr.name, s) => {
                    return Ok(())
                }
                None => {
                    return Err(PatchError::InvalidPath(format!(
                        "{} has no sub-attribute {s}",
                        attr.name
                    )))
                }
            },
        };
        return apply_filtered(target, kind, attr, filter, sub, value);
    }
    match (r.sub, kind) {
        (None, OpKind::Remove) => {
            target.remove(attr.name);
        }
        (None, _) => {
            let Some(v) = value else { return Ok(()) };
            if attr.multi {
                let new: Vec<Value> = match v {
                    Value::Array(items) => items.iter().map(|x| canon(attr, x)).collect(),
                    Value::Null => Vec::new(),
                    single => vec![canon(attr, single)],
                };
                let mut items = match (kind, target.remove(attr.name)) {
                    (OpKind::Add, Some(Value::Array(old))) => old,
                    _ => Vec::new(),
                };
                let mut added = Vec::new();
                for n in new {
                    // An element with the value of an existing one (compared
                    // case-insensitively) updates it instead of repeating it.
                    let same = |x: &Value| match (x.get("value"), n.get("value")) {
                        (Some(Value::String(a)), Some(Value::String(b))) => same_identifier(a, b),
                        (Some(a), Some(b)) => a == b,
                        _ => false,
                    };
                    if let Some(i) = items.iter().position(same) {
                        if let (Some(o), Value::Object(given)) = (items[i].as_object_mut(), n) {
                            for (k, x) in given {
                                o.insert(k, x);
                            }
                        }
                        added.push(i);
                    } else if !items.contains(&n) {
                        items.push(n);
                        added.push(items.len() - 1);
                    }
                }
                single_primary(&mut items, &added);
                if !items.is_empty() {
                    target.insert(attr.name.to_owned(), Value::Array(items));
                }
            } else if !attr.sub.is_empty() {
                // Complex: the given sub-attributes replace or add.
                let Value::Object(_) = v else {
                    if v.is_null() {
                        target.remove(attr.name);
                        return Ok(());
                    }
                    return Err(PatchError::InvalidValue(format!(
                        "{} must be an object",
                        attr.name
                    )));
                };
                let entry = target
                    .entry(attr.name)
                    .or_insert_with(|| Value::Object(Map::new()));
                if !entry.is_object() {
                    *entry = Value::Object(Map::new());
                }
                if let (Some(e), Value::Object(given)) = (entry.as_object_mut(), canon(attr, v)) {
                    for (k, x) in given {
                        e.insert(k, x);
                    }
                }
            } else if v.is_null() {
                target.remove(attr.name);
            } else {
                target.insert(attr.name.to_owned(), v.clone());
            }
        }
        (Some(sub), kind) => match target.get_mut(attr.name) {
            Some(Value::Array(items)) => {
                for item in items.iter_mut() {
                    if let Some(o) = item.as_object_mut() {
                        set_sub(o, sub.name, kind, value);
                    }
                }
            }
            Some(Value::Object(o)) => set_sub(o, sub.name, kind, value),
            _ if kind == OpKind::Remove => {}
            _ => {
                if attr.multi {
                    let mut o = Map::new();
                    set_sub(&mut o, sub.name, kind, value);
                    target.insert(attr.name.to_owned(), Value::Array(vec![Value::Object(o)]));
                } else {
                    let mut o = Map::new();
                    set_sub(&mut o, sub.name, kind, value);
                    target.insert(attr.name.to_owned(), Value::Object(o));
                }
            }
        },
    }
    Ok(())
}

/// A path that names nothing equip stores: an unknown attribute or another
/// extension is ignored, as on create, and so is a sub-attribute RFC 7643
/// defines that equip does not store (`emails.display`); a sub-attribute of
/// a known attribute that does not have it (`displayName.x`,
/// `name.nonsense`) is `invalidPath`.
fn unresolved_path(attr_path: &AttrPath) -> Result<(), PatchError> {
    match USER_RESOURCE.lacking_sub_attribute(attr_path) {
        Some((
            Resolved {
                schema,
                attr: Some(attr),
                ..
            },
            sub,
        )) if !(schema == Schema::Core && is_rfc7643_sub_attribute(attr.name, sub)) => Err(
            PatchError::InvalidPath(format!("{} has no sub-attribute {sub}", attr.name)),
        ),
        _ => Ok(()),
    }
}

fn set_sub(o: &mut Map<String, Value>, name: &str, kind: OpKind, value: Option<&Value>) {
    match (kind, value) {
        (OpKind::Remove, _) | (_, None | Some(Value::Null)) => {
            o.remove(name);
        }
        (_, Some(v)) => {
            o.insert(name.to_owned(), v.clone());
        }
    }
}

fn apply_filtered(
    target: &mut Map<String, Value>,
    kind: OpKind,
    attr: &AttrDef,
    filter: &Filter,
    sub: Option<&AttrDef>,
    value: Option<&Value>,
) -> Result<(), PatchError> {
    // Setting the selected elements (or their sub-attribute) to `null` or ""
    // makes them absent (RFC 7643 §2.5): a remove, which is no error when
    // nothing matches, so clearing what is not there changes nothing.
    let kind = if kind != OpKind::Remove && is_absent(value) {
        OpKind::Remove
    } else {
        kind
    };
    let mut items = match target.remove(attr.name) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    let matched: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, item)| element_matches(filter, item))
        .map(|(i, _)| i)
        .collect();
    let result = (|| {
        match kind {
            OpKind::Remove => {
                if let Some(sub) = sub {
                    for i in &matched {
                        if let Some(o) = items[*i].as_object_mut() {
                            o.remove(sub.name);
                        }
                    }
                } else {
                    let mut i = 0;
                    items.retain(|_| {
                        let keep = !matched.contains(&i);
                        i += 1;
                        keep
                    });
                }
            }
            OpKind::Add | OpKind::Replace if matched.is_empty() => {
                if kind == OpKind::Replace {
                    return Err(PatchError::NoTarget(format!(
                        "no {} element matches the filter",
                        attr.name
                    )));
                }
                // Add creates the element: the filter's eq conditions plus the value.
                let mut o = Map::new();
                if !eq_conditions(filter, &mut o) {
                    return Err(PatchError::NoTarget(format!(
                        "no {} element matches the filter, and it is not a conjunction of eq conditions to create one from",
                        attr.name
                    )));
                }
                let o = match canon(attr, &Value::Object(o)) {
                    Value::Object(o) => o,
                    _ => Map::new(),
                };
                let mut o = o;
                merge_into(&mut o, attr, sub, value)?;
                items.push(Value::Object(o));
                let last = items.len() - 1;
                single_primary(&mut items, &[last]);
            }
            OpKind::Add | OpKind::Replace => {
                for i in &matched {
                    if let Some(o) = items[*i].as_object_mut() {
                        merge_into(o, attr, sub, value)?;
                    }
                }
                single_primary(&mut items, &matched);
            }
        }
        Ok(())
    })();
    if !items.is_empty() {
        target.insert(attr.name.to_owned(), Value::Array(items));
    }
    result
}

fn merge_into(
    o: &mut Map<String, Value>,
    attr: &AttrDef,
    sub: Option<&AttrDef>,
    value: Option<&Value>,
) -> Result<(), PatchError> {
    match (sub, value) {
        (Some(sub), v) => {
            set_sub(o, sub.name, OpKind::Replace, v);
            Ok(())
        }
        (None, Some(v @ Value::Object(_))) => {
            if let Value::Object(given) = canon(attr, v) {
                for (k, x) in given {
                    o.insert(k, x);
                }
            }
            Ok(())
        }
        (None, _) => Err(PatchError::InvalidValue(format!(
            "the value for a {} element must be an object",
            attr.name
        ))),
    }
}

/// Collects `a eq v` conditions joined by `and` into `out`; false when the
/// filter is anything else.
fn eq_conditions(f: &Filter, out: &mut Map<String, Value>) -> bool {
    match f {
        Filter::And(a, b) => eq_conditions(a, out) && eq_conditions(b, out),
        Filter::Compare(p, CompareOp::Eq, v) if p.sub_attr.is_none() && p.uri.is_none() => {
            out.insert(p.attr.clone(), comp_json(v));
            true
        }
        _ => false,
    }
}

fn comp_json(v: &CompValue) -> Value {
    match v {
        CompValue::Str(s) => Value::String(s.clone()),
        CompValue::Number(n) => serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number),
        CompValue::Bool(b) => Value::Bool(*b),
        CompValue::Null => Value::Null,
    }
}

/// Evaluates a value filter on one element of a multi-valued attribute.
/// Strings compare case-insensitively (the sub-attributes equip keeps in
/// multi-valued attributes are all caseExact false).
fn element_matches(f: &Filter, item: &Value) -> bool {
    match f {
        Filter::And(a, b) => element_matches(a, item) && element_matches(b, item),
        Filter::Or(a, b) => element_matches(a, item) || element_matches(b, item),
        Filter::Not(a) => !element_matches(a, item),
        Filter::ValuePath(..) => false,
        Filter::Present(p) => {
            field(item, &p.attr).is_some_and(|v| !v.is_null() && v != &Value::String(String::new()))
        }
        Filter::Compare(p, op, want) => {
            let got = field(item, &p.attr);
            compare_json(got, *op, want)
        }
    }
}

fn field<'a>(item: &'a Value, name: &str) -> Option<&'a Value> {
    item.as_object().and_then(|o| get_ci(o, name))
}

fn compare_json(got: Option<&Value>, op: CompareOp, want: &CompValue) -> bool {
    use std::cmp::Ordering;
    let ordering = match (got, want) {
        (None | Some(Value::Null), CompValue::Null) => Some(Ordering::Equal),
        (None | Some(Value::Null), _) => return op == CompareOp::Ne,
        (Some(Value::String(a)), CompValue::Str(b)) => {
            // One comparison everywhere: the domain's identifier key.
            let (a, b) = (identifier_key(a), identifier_key(b));
            match op {
                CompareOp::Co => return a.contains(&b),
                CompareOp::Sw => return a.starts_with(&b),
                CompareOp::Ew => return a.ends_with(&b),
                _ => Some(a.cmp(&b)),
            }
        }
        (Some(Value::Bool(a)), CompValue::Bool(b)) => Some(a.cmp(b)),
        (Some(Value::String(a)), CompValue::Bool(b)) => {
            let a = a.trim().eq_ignore_ascii_case("true");
            Some(a.cmp(b))
        }
        (Some(Value::Number(a)), CompValue::Number(b)) => a.as_f64().and_then(|a| a.partial_cmp(b)),
        _ => None,
    };
    ordering.map_or(op == CompareOp::Ne, |o| op.holds(o))
}

#[cfg(test)]
mod tests;
