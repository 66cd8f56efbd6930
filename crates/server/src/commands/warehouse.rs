//! `equip warehouse grant` and `equip warehouse revoke`: an organization's
//! access to a shared (operator) warehouse. An import cannot grant one
//! (docs/import.md); this is the operator's way.

use anyhow::Context;
use chrono::Utc;
use equip_domain::ids::{OrganizationId, WarehouseId};
use equip_domain::services::admin::{grant_warehouse, revoke_warehouse};
use equip_domain::DomainError;

use super::{open, DatabaseConfig};
use crate::cli::WarehouseCommand;

/// Runs a warehouse command; reports on standard error.
///
/// # Errors
/// Bad ids, an unknown organization or warehouse, a warehouse an
/// organization owns, a revoke of a warehouse still in use, a database
/// failure.
pub fn run(db: &DatabaseConfig, command: WarehouseCommand) -> anyhow::Result<()> {
    match command {
        WarehouseCommand::Grant { warehouse, org } => {
            let (warehouse, org) = parse(&warehouse, &org)?;
            let store = open(db)?;
            let (found, new) =
                grant_warehouse(&store, warehouse, org, Utc::now()).map_err(named)?;
            if new {
                crate::logs::announce(&format!(
                    "granted organization {org} access to shared warehouse {} ({})",
                    found.id, found.name
                ));
            } else {
                crate::logs::announce(&format!(
                    "organization {org} already had access to shared warehouse {} ({})",
                    found.id, found.name
                ));
            }
            Ok(())
        }
        WarehouseCommand::Revoke { warehouse, org } => {
            let (warehouse, org) = parse(&warehouse, &org)?;
            let store = open(db)?;
            if revoke_warehouse(&store, warehouse, org).map_err(named)? {
                crate::logs::announce(&format!(
                    "revoked organization {org}'s access to shared warehouse {warehouse}"
                ));
            } else {
                crate::logs::announce(&format!(
                    "organization {org} had no access to shared warehouse {warehouse}"
                ));
            }
            Ok(())
        }
    }
}

/// The error with the id it is about (`DomainError::NotFound` displays only
/// the kind of thing not found).
fn named(err: DomainError) -> anyhow::Error {
    match err {
        DomainError::NotFound { message, .. } => anyhow::anyhow!(message),
        other => other.into(),
    }
}

fn parse(warehouse: &str, org: &str) -> anyhow::Result<(WarehouseId, OrganizationId)> {
    Ok((
        WarehouseId::parse(warehouse).context("--warehouse")?,
        OrganizationId::parse(org).context("--org")?,
    ))
}
