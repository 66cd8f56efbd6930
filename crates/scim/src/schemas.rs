//! Schema and message URNs.

/// Core User schema.
pub const USER: &str = "urn:ietf:params:scim:schemas:core:2.0:User";
/// equip's User extension schema (also the key of the extension object).
pub const EQUIP_USER_EXTENSION: &str = "urn:ietf:params:scim:schemas:extension:equip:1.0:User";
/// Core Group schema.
pub const GROUP: &str = "urn:ietf:params:scim:schemas:core:2.0:Group";
/// equip's Group extension schema (also the key of the extension object).
pub const EQUIP_GROUP_EXTENSION: &str = "urn:ietf:params:scim:schemas:extension:equip:1.0:Group";
/// Error message.
pub const ERROR: &str = "urn:ietf:params:scim:api:messages:2.0:Error";
/// List response message.
pub const LIST_RESPONSE: &str = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
/// Bulk request message.
pub const BULK_REQUEST: &str = "urn:ietf:params:scim:api:messages:2.0:BulkRequest";
/// Bulk response message.
pub const BULK_RESPONSE: &str = "urn:ietf:params:scim:api:messages:2.0:BulkResponse";
/// The SCIM media type.
pub const MEDIA_TYPE: &str = "application/scim+json";
