//! `equip migrate`.

use super::{connect_one_shot, DatabaseConfig};

/// Applies pending migrations and lists them on standard error.
///
/// # Errors
/// When the database cannot be opened or migrated.
pub fn run(db: &DatabaseConfig) -> anyhow::Result<()> {
    let (_, applied) = connect_one_shot(db)?;
    if applied.is_empty() {
        crate::logs::announce("no pending migrations: the database is up to date");
    } else {
        for name in &applied {
            crate::logs::announce(&format!("applied {name}"));
        }
        crate::logs::announce(&format!("{} migration(s) applied", applied.len()));
    }
    Ok(())
}
