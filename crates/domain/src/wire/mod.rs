//! The JSON shapes equip exchanges, apart from the entities they carry: the
//! inventory item as the API returns it ([`item`]), the inputs that create and
//! change one ([`item_input`]), and the entries of the import document
//! ([`import`], [`import_item`], read with [`import_entry`]). The store renders
//! items with [`item`], the HTTP layer reads bodies with [`item_input`], and
//! `equip import` reads documents with the import modules, so that each shape
//! and each field name is written once.

pub mod import;
pub mod import_entry;
pub mod import_item;
pub mod item;
pub mod item_input;
