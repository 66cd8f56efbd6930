//! `equip org create` and `equip org list`.

use chrono::Utc;
use equip_domain::services::admin::{create_organization, list_organizations};
use serde::Serialize;

use super::table;
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

/// An organization as `equip org list --json` shows it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OrganizationLine {
    id: String,
    name: String,
    created_at: String,
}

/// Lists every organization, oldest first, on standard output: a table
/// (`ID`, `CREATED`, `NAME`: the name last, as it may hold spaces) or, with
/// `json`, a JSON array.
///
/// # Errors
/// A database failure.
pub fn list(db: &DatabaseConfig, json: bool) -> anyhow::Result<()> {
    let store = open(db)?;
    let organizations = list_organizations(&store)?;
    if json {
        let lines: Vec<OrganizationLine> = organizations
            .iter()
            .map(|o| OrganizationLine {
                id: o.id.to_string(),
                name: o.name.as_str().to_owned(),
                created_at: table::json_time(o.created_at),
            })
            .collect();
        return table::print_json(&lines);
    }
    let rows: Vec<Vec<String>> = organizations
        .iter()
        .map(|o| {
            vec![
                o.id.to_string(),
                table::time(o.created_at),
                o.name.as_str().to_owned(),
            ]
        })
        .collect();
    table::print(&table::render(&["ID", "CREATED", "NAME"], &rows))?;
    if organizations.is_empty() {
        crate::logs::announce("no organization yet: equip org create --name NAME");
    }
    Ok(())
}
