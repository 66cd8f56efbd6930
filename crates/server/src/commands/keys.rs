//! `equip key create` (every scope, the `--scope`s given, or none with
//! `--no-scopes`), `equip key list` and `equip key revoke`.

use anyhow::Context;
use chrono::Utc;
use equip_domain::api_key::{Scope, Scopes};
use equip_domain::ids::{ApiKeyId, OrganizationId};
use equip_domain::services::admin::{issue_api_key, list_api_keys, revoke_api_key};
use serde::Serialize;

use super::table;
use super::{open, DatabaseConfig};
use crate::cli::KeyCommand;

/// Runs a key command.
///
/// # Errors
/// Bad arguments, an unknown organization or key, a database failure.
pub fn run(db: &DatabaseConfig, command: KeyCommand) -> anyhow::Result<()> {
    match command {
        KeyCommand::Create {
            org,
            scopes,
            no_scopes,
            label,
        } => {
            let scopes = if no_scopes {
                Scopes::default()
            } else {
                parse_scopes(&scopes)?
            };
            create(db, &org, scopes, label)
        }
        KeyCommand::List { org, json } => list(db, &org, json),
        KeyCommand::Revoke { id } => revoke(db, &id),
    }
}

/// Parses `--scope` values; none means every scope. An empty value (`--scope
/// ""`, as a script with an unset variable sends) is refused: it must not
/// become a key with every scope.
fn parse_scopes(raw: &[String]) -> anyhow::Result<Scopes> {
    if raw.is_empty() {
        return Ok(Scopes::all());
    }
    named_scopes(raw, "or give --no-scopes for a key without any")
}

/// The scopes named by `--scope` values, each known and none empty (`hint`
/// ends the message about an empty one).
pub(super) fn named_scopes(raw: &[String], hint: &str) -> anyhow::Result<Scopes> {
    if raw.iter().any(|s| s.trim().is_empty()) {
        anyhow::bail!("--scope: an empty scope; name each scope, {hint}");
    }
    let list = raw
        .iter()
        .map(|s| Scope::parse(s))
        .collect::<Result<Vec<_>, _>>()
        .context("--scope")?;
    Ok(Scopes::from_list(list))
}

/// Issues a key: the key alone on standard output (shown this once), its id and
/// scopes on standard error.
fn create(
    db: &DatabaseConfig,
    org: &str,
    scopes: Scopes,
    label: Option<String>,
) -> anyhow::Result<()> {
    let org = OrganizationId::parse(org).context("--org")?;
    let store = open(db)?;
    let key = issue_api_key(&store, org, scopes, label, Utc::now())?;
    println!("{}", key.secret);
    let scopes = if key.record.scopes.as_slice().is_empty() {
        "none (the key can call only GET /api/v1/api-key)".to_owned()
    } else {
        key.record.scopes.to_storage()
    };
    crate::logs::announce(&format!(
        "key id: {} (use it with `equip key revoke`)\nscopes: {scopes}\nThe key is shown only now; equip keeps only its hash.",
        key.record.id,
    ));
    tracing::debug!("issued API key {} for organization {}", key.record.id, org);
    Ok(())
}

/// A key as `equip key list --json` shows it: never the key or its hash.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct KeyLine {
    id: String,
    prefix: String,
    label: Option<String>,
    scopes: Vec<&'static str>,
    created_at: String,
    revoked_at: Option<String>,
}

/// Lists the organization's keys, revoked ones included, oldest first: a
/// table (`ID`, `PREFIX` as the key starts, `CREATED`, `REVOKED` (`-` while it
/// works), `SCOPES` (`all`, `none` or the list), `LABEL` last, as it may hold
/// spaces) or, with `json`, a JSON array. Never the key itself (equip has
/// only its hash) nor the hash.
fn list(db: &DatabaseConfig, org: &str, json: bool) -> anyhow::Result<()> {
    let org = OrganizationId::parse(org).context("--org")?;
    let store = open(db)?;
    let keys = list_api_keys(&store, org)?;
    if json {
        let lines: Vec<KeyLine> = keys
            .iter()
            .map(|k| KeyLine {
                id: k.id.to_string(),
                prefix: k.prefix.clone(),
                label: k.label.clone(),
                scopes: k.scopes.as_slice().iter().map(|s| s.as_str()).collect(),
                created_at: table::json_time(k.created_at),
                revoked_at: k.revoked_at.map(table::json_time),
            })
            .collect();
        return table::print_json(&lines);
    }
    let rows: Vec<Vec<String>> = keys
        .iter()
        .map(|k| {
            let scopes = if k.scopes == Scopes::all() {
                "all".to_owned()
            } else if k.scopes.as_slice().is_empty() {
                "none".to_owned()
            } else {
                k.scopes
                    .as_slice()
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            };
            vec![
                k.id.to_string(),
                format!("equip_{}_…", k.prefix),
                table::time(k.created_at),
                k.revoked_at.map_or_else(|| "-".to_owned(), table::time),
                scopes,
                k.label.clone().unwrap_or_default(),
            ]
        })
        .collect();
    table::print(&table::render(
        &["ID", "PREFIX", "CREATED", "REVOKED", "SCOPES", "LABEL"],
        &rows,
    ))
}

/// Revokes a key by its id.
fn revoke(db: &DatabaseConfig, id: &str) -> anyhow::Result<()> {
    let id = ApiKeyId::parse(id).context("key id")?;
    let store = open(db)?;
    revoke_api_key(&store, id, Utc::now())?;
    crate::logs::announce(&format!("revoked API key {id}"));
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn no_scope_means_all_and_unknown_scopes_are_refused() {
        assert_eq!(parse_scopes(&[]).unwrap(), Scopes::all());
        assert_eq!(
            parse_scopes(&["scim".into(), "inventory:read".into()]).unwrap(),
            Scopes::from_list([Scope::Scim, Scope::InventoryRead])
        );
        let err = parse_scopes(&["inventory:delete".into()]).unwrap_err();
        assert!(format!("{err:#}").contains("inventory:delete"));
    }
}
