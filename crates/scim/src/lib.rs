//! # equip-scim
//!
//! The SCIM 2.0 protocol (RFC 7643/7644) as equip speaks it: schema URNs, the
//! User resource and its conversion to and from the domain's person, and the
//! error body. The filter grammar, PATCH, Bulk and CSV conversion join it later.

pub mod error;
pub mod schemas;
pub mod user;
