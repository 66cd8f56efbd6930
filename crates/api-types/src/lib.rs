//! The JSON shapes equip exchanges, apart from the entities they carry: the
//! inventory item as the API returns it ([`item`]), the inputs that create and
//! change one ([`item_input`]), the listing's query parameters
//! ([`inventory_query`], read with [`query`]), and the entries of the import
//! document ([`import`], [`import_item`], read with [`import_entry`]). The database
//! store renders items with [`item`] (each listing row keeps its item's JSON
//! text), the HTTP layer reads bodies and query strings into these types and
//! writes its answers from them, the OpenAPI document is generated from them
//! (`utoipa`), and `equip import` reads documents with the import modules, so
//! that each shape and each field name is written once, here, and the domain
//! knows none of them.

pub mod api_key;
pub mod catalog;
pub mod error;
pub mod event;
pub mod health;
pub mod id;
pub mod import;
pub mod import_entry;
pub mod import_item;
pub mod inventory_level;
pub mod inventory_query;
pub mod inventory_summary;
pub mod item;
pub mod item_input;
pub mod order;
pub mod package;
pub mod person;
pub mod query;
pub mod read;
pub mod receipt;
pub mod reminder;
pub mod return_order;
pub mod schema;
pub mod time;
pub mod warehouse;
pub mod webhook;
