//! placeholder: owned by the server/import work
