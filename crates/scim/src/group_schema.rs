//! The attributes of equip's Group resource (RFC 7643 §4.2 and the equip
//! extension): the table that drives `/Schemas` and the resolution of
//! attribute names in filters, PATCH paths and `attributes` /
//! `excludedAttributes` on `/Groups`.

use crate::resource_schema::{s, AttrDef, ResourceSchema, META_SUB};
use crate::schemas;

/// The sub-attributes of `members` (RFC 7643 §4.2).
const MEMBERS_SUB: &[AttrDef] = &[
    AttrDef {
        case_exact: true,
        mutability: "immutable",
        ..s("value", "The id of a user of the organization.")
    },
    AttrDef {
        ty: "reference",
        case_exact: true,
        mutability: "immutable",
        reference_types: &["User"],
        ..s("$ref", "URI of the user.")
    },
    AttrDef {
        mutability: "readOnly",
        ..s("display", "The user's userName.")
    },
    AttrDef {
        mutability: "immutable",
        canonical_values: &["User"],
        ..s("type", "Always User: a group's members are users.")
    },
];

/// Core Group attributes (plus the common `id`, `externalId`, `meta`).
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
        uniqueness: "server",
        ..s(
            "displayName",
            "Name; unique per organization, case-insensitively.",
        )
    },
    AttrDef {
        ty: "complex",
        multi: true,
        sub: MEMBERS_SUB,
        ..s(
            "members",
            "The users of the group (at most 100,000); no nested groups.",
        )
    },
    AttrDef {
        ty: "complex",
        mutability: "readOnly",
        sub: META_SUB,
        ..s("meta", "Resource metadata.")
    },
];

/// Attributes of the equip Group extension.
pub static EXTENSION: &[AttrDef] = &[
    AttrDef {
        case_exact: true,
        ..s(
            "packageId",
            "Equipment package (UUID) of the organization that the members receive \
             unless they have their own.",
        )
    },
    AttrDef {
        ty: "integer",
        ..s(
            "precedence",
            "Among a user's groups with a package, the lowest precedence gives the \
             user's effectivePackageId (default 0).",
        )
    },
];

/// The Group resource: [`CORE`] and [`EXTENSION`] under their URNs.
pub static GROUP_RESOURCE: ResourceSchema = ResourceSchema {
    core_urn: schemas::GROUP,
    extension_urn: schemas::EQUIP_GROUP_EXTENSION,
    core: CORE,
    extension: EXTENSION,
    unstored_sub: &[],
};

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::resource_schema::Schema;

    #[test]
    fn group_names_resolve_case_insensitively_with_or_without_urn() {
        let r = GROUP_RESOURCE.resolve_str("MEMBERS.Value").unwrap();
        assert_eq!(r.attr.unwrap().name, "members");
        assert_eq!(r.sub.unwrap().name, "value");
        let r = GROUP_RESOURCE
            .resolve_str("urn:ietf:params:scim:schemas:core:2.0:Group:displayname")
            .unwrap();
        assert_eq!(r.attr.unwrap().name, "displayName");
        let r = GROUP_RESOURCE
            .resolve_str("urn:ietf:params:scim:schemas:extension:equip:1.0:Group:Precedence")
            .unwrap();
        assert_eq!(
            (r.schema, r.attr.unwrap().name),
            (Schema::Extension, "precedence")
        );
        let r = GROUP_RESOURCE
            .resolve_str(schemas::EQUIP_GROUP_EXTENSION)
            .unwrap();
        assert!(r.attr.is_none());
        // The User's attributes are not the Group's.
        assert!(GROUP_RESOURCE.resolve_str("userName").is_none());
        assert!(GROUP_RESOURCE
            .resolve_str("urn:ietf:params:scim:schemas:extension:equip:1.0:User:packageId")
            .is_none());
        assert!(GROUP_RESOURCE
            .resolve_str("members.display")
            .unwrap()
            .is_read_only());
        assert_eq!(
            GROUP_RESOURCE.always_returned().collect::<Vec<_>>(),
            ["schemas", "id"]
        );
    }
}
