//! # equip-scim
//!
//! The SCIM 2.0 protocol (RFC 7643/7644) as equip speaks it: schema URNs, the
//! User resource and its conversion to and from the domain's person
//! ([`user`], attributes in [`user_schema`]), the Group resource and its
//! conversion to and from the domain's group ([`group`], attributes in
//! [`group_schema`]), and the error body; the filter grammar ([`filter`]) and
//! its translation into the domain's person filter ([`list`]) and group
//! filter ([`group_list`]); PATCH of a user ([`patch`]) and of a group
//! ([`group_patch`]); `attributes` / `excludedAttributes` ([`projection`]);
//! discovery ([`discovery`]); Bulk requests, `bulkId` references and the
//! BulkResponse ([`bulk`]).

pub mod bulk;
pub mod csv;
pub mod discovery;
pub mod error;
pub mod filter;
pub mod group;
pub mod group_list;
pub mod group_patch;
pub mod group_schema;
pub mod list;
pub mod meta;
pub mod patch;
pub mod projection;
pub mod provisioning;
pub mod resource_schema;
pub mod schemas;
pub mod user;
pub mod user_schema;
