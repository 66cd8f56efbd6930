//! What the attribute tables of a SCIM resource type are made of: one
//! attribute definition ([`AttrDef`], RFC 7643 §7), a resource's core and
//! extension tables ([`ResourceSchema`]), and the resolution of attribute
//! paths against them (case-insensitive, with or without the schema URN)
//! that filters, PATCH paths and `attributes` / `excludedAttributes` use.
//! The same tables give incoming bodies their canonical attribute names
//! ([`ResourceSchema::canonical_names`]), so a POST or PUT reads `"Active"`
//! as `active` (RFC 7643 §2.1: attribute names are case-insensitive).
//! The tables themselves are in [`crate::user_schema`] and
//! [`crate::group_schema`].

use serde_json::{Map, Value};

use crate::filter::AttrPath;

/// One attribute definition (RFC 7643 §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttrDef {
    /// Canonical name.
    pub name: &'static str,
    /// `string`, `boolean`, `integer`, `complex`, `dateTime`, `reference`.
    pub ty: &'static str,
    /// Multi-valued.
    pub multi: bool,
    /// Required.
    pub required: bool,
    /// Case-exact comparison.
    pub case_exact: bool,
    /// `readOnly`, `readWrite`, `immutable`, `writeOnly`.
    pub mutability: &'static str,
    /// `always`, `default`, `never`.
    pub returned: &'static str,
    /// `none`, `server`.
    pub uniqueness: &'static str,
    /// Description.
    pub description: &'static str,
    /// Sub-attributes of a complex attribute.
    pub sub: &'static [AttrDef],
    /// What a `reference` names (`User`, `Group`); empty: a URI.
    pub reference_types: &'static [&'static str],
    /// The values the attribute takes (`canonicalValues`); empty: any.
    pub canonical_values: &'static [&'static str],
}

/// A read-write, optional, single-valued string attribute.
pub(crate) const fn s(name: &'static str, description: &'static str) -> AttrDef {
    AttrDef {
        name,
        ty: "string",
        multi: false,
        required: false,
        case_exact: false,
        mutability: "readWrite",
        returned: "default",
        uniqueness: "none",
        description,
        sub: &[],
        reference_types: &[],
        canonical_values: &[],
    }
}

/// A read-write, optional boolean attribute.
pub(crate) const fn b(name: &'static str, description: &'static str) -> AttrDef {
    AttrDef {
        ty: "boolean",
        ..s(name, description)
    }
}

/// The sub-attributes of `meta`, the same on every resource.
pub(crate) const META_SUB: &[AttrDef] = &[
    AttrDef {
        case_exact: true,
        mutability: "readOnly",
        ..s("resourceType", "The resource type: User or Group.")
    },
    AttrDef {
        ty: "dateTime",
        mutability: "readOnly",
        ..s("created", "Creation time.")
    },
    AttrDef {
        ty: "dateTime",
        mutability: "readOnly",
        ..s("lastModified", "Last change.")
    },
    AttrDef {
        ty: "reference",
        case_exact: true,
        mutability: "readOnly",
        ..s("location", "URI of the resource.")
    },
    AttrDef {
        case_exact: true,
        mutability: "readOnly",
        ..s(
            "version",
            "Weak entity tag of the resource, as the ETag header.",
        )
    },
];

/// Which schema of a resource an attribute belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// The core schema (and the common attributes `id`, `externalId`, `meta`).
    Core,
    /// equip's extension of the resource.
    Extension,
}

/// A resolved attribute path: canonical names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    /// The schema.
    pub schema: Schema,
    /// The attribute; `None` for the whole extension object.
    pub attr: Option<&'static AttrDef>,
    /// The sub-attribute.
    pub sub: Option<&'static AttrDef>,
}

impl Resolved {
    /// Whether the attribute or the sub-attribute is read-only.
    #[must_use]
    pub fn is_read_only(&self) -> bool {
        self.attr.is_some_and(|a| a.mutability == "readOnly")
            || self.sub.is_some_and(|s| s.mutability == "readOnly")
    }
}

/// The attributes of one resource type: its core schema and equip's
/// extension of it.
#[derive(Debug)]
pub struct ResourceSchema {
    /// The URN of the core schema.
    pub core_urn: &'static str,
    /// The URN of equip's extension (also the key of the extension object).
    pub extension_urn: &'static str,
    /// The core attributes (with `id`, `externalId`, `meta`).
    pub core: &'static [AttrDef],
    /// The extension's attributes.
    pub extension: &'static [AttrDef],
    /// Sub-attributes the RFC defines for core complex attributes that
    /// equip does not store (`emails.display`), by attribute: accepted and
    /// ignored, and spelled canonically in a body like the stored ones.
    pub unstored_sub: &'static [(&'static str, &'static [&'static str])],
}

fn find(list: &'static [AttrDef], name: &str) -> Option<&'static AttrDef> {
    list.iter().find(|a| a.name.eq_ignore_ascii_case(name))
}

/// An attribute named twice in one object of a body, in two spellings that
/// differ only in case (`"active"` and `"Active"`): which one the client
/// meant cannot be told.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{name} is given more than once (as {first:?} and {second:?}); attribute names are \
     case-insensitive"
)]
pub struct DuplicateAttribute {
    /// The attribute's path, canonical (`emails[0].primary`).
    pub name: String,
    /// The first spelling.
    pub first: String,
    /// The second spelling.
    pub second: String,
}

/// Why a resource body cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// An attribute is named twice ([`DuplicateAttribute`]).
    #[error(transparent)]
    Duplicate(#[from] DuplicateAttribute),
    /// An attribute's value has the wrong JSON type (a number where a
    /// string is read, an object where a list is…).
    #[error("{0}")]
    Shape(#[from] serde_json::Error),
}

impl BodyError {
    /// The attribute the error is about, when it is known.
    #[must_use]
    pub fn attribute(&self) -> Option<&str> {
        match self {
            Self::Duplicate(d) => Some(&d.name),
            Self::Shape(_) => None,
        }
    }
}

/// Renames the members of `object` that name one of `attrs` to the
/// attribute's canonical name, and those of its complex values after their
/// sub-attributes; `extension` (the extension URN and its attributes) only at
/// the top. Other members keep their names.
fn canonicalize(
    object: Map<String, Value>,
    attrs: &'static [AttrDef],
    unstored: &'static [&'static str],
    top: Option<&ResourceSchema>,
    at: &str,
) -> Result<Map<String, Value>, DuplicateAttribute> {
    let extension = top.map(|r| (r.extension_urn, r.extension));
    let mut out = Map::with_capacity(object.len());
    let mut spelled: Vec<(String, String)> = Vec::new();
    for (key, value) in object {
        let (name, value, known) = if extension.is_some() && key.eq_ignore_ascii_case("schemas") {
            ("schemas".to_owned(), value, true)
        } else if let Some((urn, ext)) = extension.filter(|(urn, _)| key.eq_ignore_ascii_case(urn))
        {
            let value = match value {
                Value::Object(o) => Value::Object(canonicalize(o, ext, &[], None, urn)?),
                other => other,
            };
            (urn.to_owned(), value, true)
        } else if let Some(attr) = find(attrs, &key) {
            let path = if at.is_empty() {
                attr.name.to_owned()
            } else {
                format!("{at}.{}", attr.name)
            };
            let unstored = top
                .and_then(|r| r.unstored_sub.iter().find(|(a, _)| *a == attr.name))
                .map_or(&[][..], |(_, subs)| *subs);
            let value = match value {
                Value::Object(o) if !attr.sub.is_empty() => {
                    Value::Object(canonicalize(o, attr.sub, unstored, None, &path)?)
                }
                Value::Array(items) if !attr.sub.is_empty() => Value::Array(
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(i, item)| match item {
                            Value::Object(o) => {
                                canonicalize(o, attr.sub, unstored, None, &format!("{path}[{i}]"))
                                    .map(Value::Object)
                            }
                            other => Ok(other),
                        })
                        .collect::<Result<_, _>>()?,
                ),
                other => other,
            };
            (attr.name.to_owned(), value, true)
        } else if let Some(name) = unstored.iter().find(|n| n.eq_ignore_ascii_case(&key)) {
            ((*name).to_owned(), value, true)
        } else {
            (key.clone(), value, false)
        };
        if !known {
            out.insert(name, value);
            continue;
        }
        if let Some((_, first)) = spelled.iter().find(|(n, _)| *n == name) {
            return Err(DuplicateAttribute {
                name: if at.is_empty() {
                    name
                } else {
                    format!("{at}.{name}")
                },
                first: first.clone(),
                second: key,
            });
        }
        spelled.push((name.clone(), key));
        out.insert(name, value);
    }
    Ok(out)
}

impl ResourceSchema {
    /// The core attributes returned whatever `attributes` and
    /// `excludedAttributes` say (`returned: always`), and `schemas`.
    pub fn always_returned(&self) -> impl Iterator<Item = &'static str> + '_ {
        std::iter::once("schemas").chain(
            self.core
                .iter()
                .filter(|a| a.returned == "always")
                .map(|a| a.name),
        )
    }

    /// Resolves a path to canonical attributes, case-insensitively. `None`
    /// when the attribute is not part of the resource (unknown attributes,
    /// other extensions).
    #[must_use]
    pub fn resolve(&self, path: &AttrPath) -> Option<Resolved> {
        let (schema, attr_name, sub_name) = match path.uri.as_deref() {
            None => (Schema::Core, path.attr.as_str(), path.sub_attr.as_deref()),
            Some(uri) if uri.eq_ignore_ascii_case(self.core_urn) => {
                (Schema::Core, path.attr.as_str(), path.sub_attr.as_deref())
            }
            Some(uri) if uri.eq_ignore_ascii_case(self.extension_urn) => (
                Schema::Extension,
                path.attr.as_str(),
                path.sub_attr.as_deref(),
            ),
            Some(uri) => {
                // A bare extension URN key splits as uri "…:1.0" + attr "User".
                let whole = format!("{uri}:{}", path.attr);
                if whole.eq_ignore_ascii_case(self.extension_urn) && path.sub_attr.is_none() {
                    return Some(Resolved {
                        schema: Schema::Extension,
                        attr: None,
                        sub: None,
                    });
                }
                return None;
            }
        };
        let list = match schema {
            Schema::Core => self.core,
            Schema::Extension => self.extension,
        };
        let attr = find(list, attr_name)?;
        let sub = match sub_name {
            None => None,
            Some(n) => Some(find(attr.sub, n)?),
        };
        Some(Resolved {
            schema,
            attr: Some(attr),
            sub,
        })
    }

    /// `body` with every attribute name the resource knows spelled as its
    /// table spells it, at every level: the core attributes and their
    /// sub-attributes (in single and multi-valued complex attributes), the
    /// extension URN and its attributes, and `schemas`. Names the resource
    /// does not know are left as they are (and ignored by the reader, as
    /// unknown attributes are). A body that is not an object is returned as
    /// it is.
    ///
    /// # Errors
    /// [`DuplicateAttribute`] when one object names an attribute twice in
    /// spellings that differ only in case.
    pub fn canonical_names(&self, body: Value) -> Result<Value, DuplicateAttribute> {
        match body {
            Value::Object(o) => Ok(Value::Object(canonicalize(
                o,
                self.core,
                &[],
                Some(self),
                "",
            )?)),
            other => Ok(other),
        }
    }

    /// When `path` names a sub-attribute (`displayName.x`, `name.nonsense`)
    /// of an attribute of this resource that has no such sub-attribute:
    /// that attribute, resolved, and the sub-attribute's name as written.
    /// `None` when the path resolves, or names no attribute of the resource
    /// at all (unknown attributes, other extensions).
    #[must_use]
    pub fn lacking_sub_attribute<'p>(&self, path: &'p AttrPath) -> Option<(Resolved, &'p str)> {
        let sub = path.sub_attr.as_deref()?;
        if self.resolve(path).is_some() {
            return None;
        }
        let parent = AttrPath {
            sub_attr: None,
            ..path.clone()
        };
        self.resolve(&parent)
            .filter(|r| r.attr.is_some())
            .map(|r| (r, sub))
    }

    /// Resolves a plain string path (`name.givenName`, a URN-prefixed name,
    /// or the extension URN itself).
    #[must_use]
    pub fn resolve_str(&self, raw: &str) -> Option<Resolved> {
        let raw = raw.trim();
        if raw.eq_ignore_ascii_case(self.extension_urn) {
            return Some(Resolved {
                schema: Schema::Extension,
                attr: None,
                sub: None,
            });
        }
        crate::filter::parse_path(raw)
            .ok()
            .filter(|p| p.filter.is_none())
            .and_then(|p| self.resolve(&p.attr))
    }
}
