//! `equip index rebuild --org ID`: an organization's listing re-read from
//! its items (docs/operations.md, "The listing follows equip's writes").

use anyhow::Context;
use equip_domain::error::StoreError;
use equip_domain::ids::OrganizationId;

use super::{open, DatabaseConfig};
use crate::cli::IndexCommand;

/// Runs an index command; reports on standard error.
///
/// # Errors
/// A malformed or unknown organization id, a database failure.
pub fn run(db: &DatabaseConfig, command: IndexCommand) -> anyhow::Result<()> {
    match command {
        IndexCommand::Rebuild { org } => {
            let org = OrganizationId::parse(&org).context("--org")?;
            let store = open(db)?;
            let started = std::time::Instant::now();
            let done = store.rebuild_listing(org).map_err(|e| match e {
                StoreError::NotFound { .. } => anyhow::anyhow!("no organization {org}"),
                other => anyhow::Error::new(other).context("the listing was not rebuilt"),
            })?;
            crate::logs::announce(&format!(
                "rebuilt the listing of organization {org}: {} items rendered again, {} rows of \
                 items no longer stored removed, in {} ms",
                done.items,
                done.removed,
                started.elapsed().as_millis()
            ));
            Ok(())
        }
    }
}
