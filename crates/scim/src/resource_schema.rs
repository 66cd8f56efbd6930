//! What the attribute tables of a SCIM resource type are made of: one
//! attribute definition ([`AttrDef`], RFC 7643 §7), a resource's core and
//! extension tables ([`ResourceSchema`]), and the resolution of attribute
//! paths against them (case-insensitive, with or without the schema URN)
//! that filters, PATCH paths and `attributes` / `excludedAttributes` use.
//! The tables themselves are in [`crate::user_schema`] and
//! [`crate::group_schema`].

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
}

fn find(list: &'static [AttrDef], name: &str) -> Option<&'static AttrDef> {
    list.iter().find(|a| a.name.eq_ignore_ascii_case(name))
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
