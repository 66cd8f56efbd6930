//! The attributes of equip's User resource (core schema subset and the equip
//! extension): one table that drives `/Schemas`, attribute-name resolution
//! (case-insensitive, with or without the schema URN) for filters, PATCH paths
//! and `attributes` / `excludedAttributes`.

use crate::filter::AttrPath;
use crate::schemas;

/// One attribute definition (RFC 7643 §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttrDef {
    /// Canonical name.
    pub name: &'static str,
    /// `string`, `boolean`, `complex`, `dateTime`, `reference`.
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
}

const fn s(name: &'static str, description: &'static str) -> AttrDef {
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
    }
}

const fn b(name: &'static str, description: &'static str) -> AttrDef {
    AttrDef {
        ty: "boolean",
        ..s(name, description)
    }
}

const MULTI_SUB: &[AttrDef] = &[
    s("value", "The value."),
    s("type", "A label: work, home, other, mobile…"),
    b("primary", "Whether this is the primary value; at most one."),
];

const NAME_SUB: &[AttrDef] = &[
    s("familyName", "Family name."),
    s("givenName", "Given name."),
];

const ADDRESS_SUB: &[AttrDef] = &[
    s("type", "home, work, other."),
    b("primary", "Whether this is the primary address."),
    s("streetAddress", "Street lines; may contain line breaks."),
    s("locality", "City."),
    s("region", "State or region."),
    s("postalCode", "Postal code."),
    s(
        "country",
        "ISO 3166-1 alpha-2 country code; BR requires cpfNumber.",
    ),
];

const META_SUB: &[AttrDef] = &[
    AttrDef {
        case_exact: true,
        mutability: "readOnly",
        ..s("resourceType", "Always User.")
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

/// Core User attributes equip supports (plus the common `id`, `externalId`, `meta`).
pub static CORE: &[AttrDef] = &[
    AttrDef {
        case_exact: true,
        mutability: "readOnly",
        returned: "always",
        uniqueness: "server",
        ..s("id", "Identifier assigned by equip.")
    },
    AttrDef {
        case_exact: true,
        ..s("externalId", "The identity provider's identifier.")
    },
    AttrDef {
        required: true,
        returned: "always",
        uniqueness: "server",
        ..s(
            "userName",
            "Login name; equals the primary email; unique per organization, case-insensitively.",
        )
    },
    AttrDef {
        ty: "complex",
        sub: NAME_SUB,
        ..s("name", "The person's name.")
    },
    s("displayName", "Name shown to people."),
    AttrDef {
        ty: "complex",
        multi: true,
        sub: MULTI_SUB,
        ..s(
            "emails",
            "Email addresses; the primary one equals userName.",
        )
    },
    AttrDef {
        ty: "complex",
        multi: true,
        sub: MULTI_SUB,
        ..s("phoneNumbers", "Phone numbers.")
    },
    AttrDef {
        ty: "complex",
        multi: true,
        sub: ADDRESS_SUB,
        ..s("addresses", "Postal addresses.")
    },
    b(
        "active",
        "Whether the identity provider has the user active.",
    ),
    AttrDef {
        mutability: "writeOnly",
        returned: "never",
        ..s(
            "password",
            "Accepted and discarded: equip stores no password.",
        )
    },
    AttrDef {
        ty: "complex",
        mutability: "readOnly",
        sub: META_SUB,
        ..s("meta", "Resource metadata.")
    },
];

/// Attributes of the equip extension.
pub static EXTENSION: &[AttrDef] = &[
    AttrDef {
        case_exact: true,
        ..s("packageId", "Equipment package (UUID) of the organization.")
    },
    s("startDate", "First working day, YYYY-MM-DD."),
    AttrDef {
        case_exact: true,
        mutability: "readOnly",
        ..s(
            "status",
            "ACTIVE, OFFBOARDING or OFFBOARDED; DELETE starts offboarding.",
        )
    },
    b(
        "skipUserActivation",
        "Whether to skip the activation email.",
    ),
    s(
        "cpfNumber",
        "Brazilian CPF number; mandatory with an address in BR.",
    ),
];

/// Sub-attributes RFC 7643 (§4.1.1, §4.1.2) defines for the core User's
/// complex attributes, by attribute (lowercase). Those in equip's table
/// ([`CORE`]) are stored; the others (`name.formatted`, `emails.display`,
/// `addresses.formatted`, …) are accepted and ignored, as are `ims`,
/// `photos`, `entitlements`, `roles` and `x509Certificates` altogether.
const RFC7643_SUB: &[(&str, &[&str])] = &[
    (
        "name",
        &[
            "formatted",
            "familyName",
            "givenName",
            "middleName",
            "honorificPrefix",
            "honorificSuffix",
        ],
    ),
    ("emails", MULTI_VALUED_SUB),
    ("phoneNumbers", MULTI_VALUED_SUB),
    ("ims", MULTI_VALUED_SUB),
    ("photos", MULTI_VALUED_SUB),
    ("entitlements", MULTI_VALUED_SUB),
    ("roles", MULTI_VALUED_SUB),
    ("x509Certificates", MULTI_VALUED_SUB),
    (
        "addresses",
        &[
            "formatted",
            "streetAddress",
            "locality",
            "region",
            "postalCode",
            "country",
            "type",
            "primary",
        ],
    ),
];

/// RFC 7643 §2.4: the sub-attributes of a multi-valued attribute.
const MULTI_VALUED_SUB: &[&str] = &["value", "display", "type", "primary"];

/// Whether RFC 7643 defines `sub` for the core User attribute `attr`
/// (names compared case-insensitively, as SCIM attribute names are). A path
/// to one equip does not store is accepted and changes nothing.
#[must_use]
pub fn is_rfc7643_sub_attribute(attr: &str, sub: &str) -> bool {
    RFC7643_SUB
        .iter()
        .find(|(a, _)| a.eq_ignore_ascii_case(attr))
        .is_some_and(|(_, subs)| subs.iter().any(|s| s.eq_ignore_ascii_case(sub)))
}

/// Which schema an attribute belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// `urn:ietf:params:scim:schemas:core:2.0:User` (and common attributes).
    Core,
    /// `urn:ietf:params:scim:schemas:extension:equip:1.0:User`.
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

fn find(list: &'static [AttrDef], name: &str) -> Option<&'static AttrDef> {
    list.iter().find(|a| a.name.eq_ignore_ascii_case(name))
}

/// Resolves a path to canonical attributes, case-insensitively. `None` when the
/// attribute is not part of equip's User (unknown attributes, other extensions).
#[must_use]
pub fn resolve(path: &AttrPath) -> Option<Resolved> {
    let (schema, attr_name, sub_name) = match path.uri.as_deref() {
        None => {
            // A bare extension URN key split as uri "…:1.0" + attr "User".
            (Schema::Core, path.attr.as_str(), path.sub_attr.as_deref())
        }
        Some(uri) if uri.eq_ignore_ascii_case(schemas::USER) => {
            (Schema::Core, path.attr.as_str(), path.sub_attr.as_deref())
        }
        Some(uri) if uri.eq_ignore_ascii_case(schemas::EQUIP_USER_EXTENSION) => (
            Schema::Extension,
            path.attr.as_str(),
            path.sub_attr.as_deref(),
        ),
        Some(uri) => {
            let whole = format!("{uri}:{}", path.attr);
            if whole.eq_ignore_ascii_case(schemas::EQUIP_USER_EXTENSION) && path.sub_attr.is_none()
            {
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
        Schema::Core => CORE,
        Schema::Extension => EXTENSION,
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

/// Resolves a plain string path (`name.givenName`, a URN-prefixed name, or the
/// extension URN itself).
#[must_use]
pub fn resolve_str(raw: &str) -> Option<Resolved> {
    let raw = raw.trim();
    if raw.eq_ignore_ascii_case(schemas::EQUIP_USER_EXTENSION) {
        return Some(Resolved {
            schema: Schema::Extension,
            attr: None,
            sub: None,
        });
    }
    crate::filter::parse_path(raw)
        .ok()
        .filter(|p| p.filter.is_none())
        .and_then(|p| resolve(&p.attr))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_resolve_case_insensitively_with_or_without_urn() {
        let r = resolve_str("NAME.givenname").unwrap();
        assert_eq!(r.attr.unwrap().name, "name");
        assert_eq!(r.sub.unwrap().name, "givenName");
        let r = resolve_str("urn:ietf:params:scim:schemas:core:2.0:User:userName").unwrap();
        assert_eq!(r.attr.unwrap().name, "userName");
        let r =
            resolve_str("urn:ietf:params:scim:schemas:extension:equip:1.0:User:PackageId").unwrap();
        assert_eq!(r.schema, Schema::Extension);
        assert_eq!(r.attr.unwrap().name, "packageId");
        let r = resolve_str("urn:ietf:params:scim:schemas:extension:equip:1.0:User").unwrap();
        assert!(r.attr.is_none());
        assert!(resolve_str("nickName").is_none());
        assert!(is_rfc7643_sub_attribute("ADDRESSES", "Formatted"));
        assert!(is_rfc7643_sub_attribute("emails", "DISPLAY"));
        assert!(is_rfc7643_sub_attribute("x509Certificates", "value"));
        assert!(!is_rfc7643_sub_attribute("emails", "formatted"));
        assert!(!is_rfc7643_sub_attribute("displayName", "value"));
        assert!(resolve_str(
            "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department"
        )
        .is_none());
    }
}
