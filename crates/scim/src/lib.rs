//! # equip-scim
//!
//! The SCIM 2.0 protocol (RFC 7643/7644) as equip speaks it: schema URNs, the
//! User resource and its conversion to and from the domain's person, and the
//! error body; the filter grammar ([`filter`]) and its translation into the
//! domain's person filter ([`list`]); PATCH ([`patch`]); `attributes` /
//! `excludedAttributes` ([`projection`]); discovery ([`discovery`]); Bulk requests,
//! `bulkId` references and the BulkResponse ([`bulk`]).

pub mod bulk;
pub mod csv;
pub mod discovery;
pub mod error;
pub mod filter;
pub mod list;
pub mod patch;
pub mod projection;
pub mod schemas;
pub mod user;
pub mod user_schema;
