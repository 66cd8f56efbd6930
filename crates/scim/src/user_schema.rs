//! The attributes of equip's User resource (core schema subset and the equip
//! extension): one table that drives `/Schemas`, attribute-name resolution
//! (case-insensitive, with or without the schema URN) for filters, PATCH paths
//! and `attributes` / `excludedAttributes`.

use crate::filter::AttrPath;
use crate::resource_schema::{b, s, ResourceSchema, META_SUB};
pub use crate::resource_schema::{AttrDef, Resolved, Schema};
use crate::schemas;

/// The sub-attributes of `emails` (RFC 7643 §4.1.2): its `type` lists the
/// canonical values §8.7.1 gives, which clients (Microsoft's gallery
/// validation) need to address an element as `emails[type eq "work"]`; any
/// other label is still accepted.
const EMAIL_SUB: &[AttrDef] = &[
    s("value", "The value."),
    AttrDef {
        canonical_values: &["work", "home", "other"],
        ..s("type", "A label: work, home, other (others accepted).")
    },
    b("primary", "Whether this is the primary value; at most one."),
];

/// The sub-attributes of `phoneNumbers`, with §8.7.1's canonical types.
const PHONE_SUB: &[AttrDef] = &[
    s("value", "The value."),
    AttrDef {
        canonical_values: &["work", "home", "mobile", "fax", "pager", "other"],
        ..s(
            "type",
            "A label: work, home, mobile, fax, pager, other (others accepted).",
        )
    },
    b("primary", "Whether this is the primary value; at most one."),
];

const NAME_SUB: &[AttrDef] = &[
    s(
        "formatted",
        "The full name as shown, with every part; kept as sent (not composed from the parts).",
    ),
    s("familyName", "Family name."),
    s("givenName", "Given name."),
    s("middleName", "Middle name(s)."),
    s("honorificPrefix", "Honorific prefix: Ms., Dr.…"),
    s("honorificSuffix", "Honorific suffix: III, PhD…"),
];

/// The sub-attributes of `ims`, `entitlements` and `roles` (RFC 7643 §2.4).
const ENTRY_SUB: &[AttrDef] = &[
    s("value", "The value."),
    s("display", "A label to show for the value."),
    s("type", "A free-form label of the kind of value."),
    b("primary", "Whether this is the primary value; at most one."),
];

/// The sub-attributes of `photos`: the value is the photo's URL.
const PHOTO_SUB: &[AttrDef] = &[
    AttrDef {
        ty: "reference",
        reference_types: &["external"],
        ..s("value", "URL of the photo.")
    },
    s("display", "A label to show for the photo."),
    AttrDef {
        canonical_values: &["photo", "thumbnail"],
        ..s("type", "photo or thumbnail (other values are kept too).")
    },
    b("primary", "Whether this is the primary photo; at most one."),
];

/// The sub-attributes of `x509Certificates`: the value is the base64 DER.
const CERTIFICATE_SUB: &[AttrDef] = &[
    AttrDef {
        ty: "binary",
        case_exact: true,
        ..s("value", "The certificate, base64-encoded DER.")
    },
    s("display", "A label to show for the certificate."),
    s("type", "A free-form label of the certificate."),
    b(
        "primary",
        "Whether this is the primary certificate; at most one.",
    ),
];

const ADDRESS_SUB: &[AttrDef] = &[
    AttrDef {
        canonical_values: &["work", "home", "other"],
        ..s("type", "A label: work, home, other (others accepted).")
    },
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
        sub: EMAIL_SUB,
        ..s(
            "emails",
            "Email addresses; the primary one equals userName.",
        )
    },
    AttrDef {
        ty: "complex",
        multi: true,
        sub: PHONE_SUB,
        ..s("phoneNumbers", "Phone numbers.")
    },
    AttrDef {
        ty: "complex",
        multi: true,
        sub: ADDRESS_SUB,
        ..s("addresses", "Postal addresses.")
    },
    s("nickName", "The casual name the user goes by."),
    AttrDef {
        ty: "reference",
        reference_types: &["external"],
        ..s("profileUrl", "URL of the user's profile page.")
    },
    s("title", "Job title."),
    s(
        "userType",
        "The organization's kind of user: Employee, Contractor… (free-form).",
    ),
    s(
        "preferredLanguage",
        "Preferred language, as an Accept-Language value: en-US, de.",
    ),
    s("locale", "Locale for formatting: en-US."),
    s("timezone", "Time zone name: America/Los_Angeles."),
    b(
        "active",
        "Whether the identity provider has the user active.",
    ),
    AttrDef {
        ty: "complex",
        multi: true,
        sub: ENTRY_SUB,
        ..s("ims", "Instant messaging addresses; kept as sent.")
    },
    AttrDef {
        ty: "complex",
        multi: true,
        sub: PHOTO_SUB,
        ..s("photos", "URLs of photos of the user; kept as sent.")
    },
    AttrDef {
        ty: "complex",
        multi: true,
        sub: ENTRY_SUB,
        ..s(
            "entitlements",
            "Entitlements; kept as sent, equip grants nothing by them.",
        )
    },
    AttrDef {
        ty: "complex",
        multi: true,
        sub: ENTRY_SUB,
        ..s(
            "roles",
            "Roles; kept as sent, equip grants nothing by them.",
        )
    },
    AttrDef {
        ty: "complex",
        multi: true,
        sub: CERTIFICATE_SUB,
        ..s(
            "x509Certificates",
            "Certificates of the user; kept as sent.",
        )
    },
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
        multi: true,
        mutability: "readOnly",
        sub: GROUPS_SUB,
        ..s(
            "groups",
            "The groups the user is a member of (set through /Groups).",
        )
    },
    AttrDef {
        ty: "complex",
        mutability: "readOnly",
        sub: META_SUB,
        ..s("meta", "Resource metadata.")
    },
];

/// The sub-attributes of a user's `groups` (RFC 7643 §4.1.2).
const GROUPS_SUB: &[AttrDef] = &[
    AttrDef {
        case_exact: true,
        mutability: "readOnly",
        ..s("value", "The group's id.")
    },
    AttrDef {
        ty: "reference",
        case_exact: true,
        mutability: "readOnly",
        reference_types: &["Group"],
        ..s("$ref", "URI of the group.")
    },
    AttrDef {
        mutability: "readOnly",
        ..s("display", "The group's displayName.")
    },
    AttrDef {
        mutability: "readOnly",
        canonical_values: &["direct"],
        ..s("type", "Always direct: equip has no nested groups.")
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
    AttrDef {
        case_exact: true,
        mutability: "readOnly",
        ..s(
            "effectivePackageId",
            "The package the user receives: their own packageId, else the package of \
             their group of lowest precedence that has one.",
        )
    },
];

/// The User resource: [`CORE`] and [`EXTENSION`] under their URNs.
pub static USER_RESOURCE: ResourceSchema = ResourceSchema {
    core_urn: schemas::USER,
    extension_urn: schemas::EQUIP_USER_EXTENSION,
    core: CORE,
    extension: EXTENSION,
    unstored_sub: RFC7643_SUB,
};

/// Sub-attributes RFC 7643 (§4.1.1, §4.1.2) defines for the core User's
/// complex attributes, by attribute. Those in equip's table ([`CORE`]) are
/// stored; the others (`emails.display`, `addresses.formatted`, …) are
/// accepted and ignored.
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

/// Resolves a path against the User's attributes ([`ResourceSchema::resolve`]).
#[must_use]
pub fn resolve(path: &AttrPath) -> Option<Resolved> {
    USER_RESOURCE.resolve(path)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_resolve_case_insensitively_with_or_without_urn() {
        let r = USER_RESOURCE.resolve_str("NAME.givenname").unwrap();
        assert_eq!(r.attr.unwrap().name, "name");
        assert_eq!(r.sub.unwrap().name, "givenName");
        let r = USER_RESOURCE
            .resolve_str("urn:ietf:params:scim:schemas:core:2.0:User:userName")
            .unwrap();
        assert_eq!(r.attr.unwrap().name, "userName");
        let r = USER_RESOURCE
            .resolve_str("urn:ietf:params:scim:schemas:extension:equip:1.0:User:PackageId")
            .unwrap();
        assert_eq!(r.schema, Schema::Extension);
        assert_eq!(r.attr.unwrap().name, "packageId");
        let r = USER_RESOURCE
            .resolve_str("urn:ietf:params:scim:schemas:extension:equip:1.0:User")
            .unwrap();
        assert!(r.attr.is_none());
        assert_eq!(
            USER_RESOURCE
                .resolve_str("NICKNAME")
                .unwrap()
                .attr
                .unwrap()
                .name,
            "nickName"
        );
        let r = USER_RESOURCE.resolve_str("x509certificates.Value").unwrap();
        assert_eq!(r.attr.unwrap().name, "x509Certificates");
        assert_eq!(r.sub.unwrap().ty, "binary");
        assert!(USER_RESOURCE.resolve_str("nickname.value").is_none());
        assert!(is_rfc7643_sub_attribute("ADDRESSES", "Formatted"));
        assert!(is_rfc7643_sub_attribute("emails", "DISPLAY"));
        assert!(is_rfc7643_sub_attribute("x509Certificates", "value"));
        assert!(!is_rfc7643_sub_attribute("emails", "formatted"));
        assert!(!is_rfc7643_sub_attribute("displayName", "value"));
        assert!(USER_RESOURCE
            .resolve_str("urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department")
            .is_none());
    }
}
