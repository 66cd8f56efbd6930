//! `equip org create`.

use chrono::Utc;
use equip_domain::services::admin::create_organization;

use super::{open, DatabaseConfig};

/// Creates an organization; prints its id alone on standard output.
///
/// # Errors
/// A bad name, or a database failure.
pub fn create(db: &DatabaseConfig, name: &str) -> anyhow::Result<()> {
    let store = open(db)?;
    let org = create_organization(&store, name, Utc::now())?;
    println!("{}", org.id);
    crate::logs::announce(&format!(
        "created organization '{}'; next: equip key create --org {}",
        org.name.as_str(),
        org.id
    ));
    Ok(())
}
