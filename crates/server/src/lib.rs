//! # equip-server
//!
//! The `equip` binary's library half: the command line ([`cli`]), the admin
//! commands ([`commands`]), the import document ([`import_document`]) and the
//! demo data generator ([`demo`]); the background workers of `serve`, started
//! and stopped together ([`workers`]: the outbox and webhook dispatchers of
//! `equip_delivery`, planner statistics, event [`retention`], the hold release
//! ([`holds`])); log lines ([`logs`]); the store figures of the metrics ([`metrics`]) and the
//! process's own ([`process`]); the listen
//! addresses of `serve`, bound before the database is opened ([`listen`]).
//! `main.rs` only sets up logging, parses the command line and dispatches.

pub mod cli;
pub mod commands;
pub mod demo;
pub mod holds;
pub mod import_document;
pub mod listen;
pub mod logs;
pub mod metrics;
pub mod process;
pub mod retention;
pub mod workers;
