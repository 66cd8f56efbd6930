//! `equip org sso set|show|clear|role|sessions`: an organization's console
//! sign-in with its identity provider (docs/sso.md).

use anyhow::Context;
use chrono::Utc;
use equip_domain::api_key::Scopes;
use equip_domain::ids::{OrganizationId, SessionId};
use equip_domain::services::sso as service;
use equip_domain::sso::{check_issuer, default_scopes, ClientSecret, RoleMapping, SsoConfig};
use serde::Serialize;

use super::table;
use super::{open, DatabaseConfig};
use crate::cli::SsoCommand;

/// Runs an `org sso` command.
///
/// # Errors
/// Bad arguments, an unknown organization, a provider that cannot be read,
/// a database failure.
pub fn run(db: &DatabaseConfig, command: SsoCommand) -> anyhow::Result<()> {
    match command {
        SsoCommand::Set {
            org,
            issuer,
            client_id,
            client_secret_file,
            scopes,
            groups_claim,
        } => {
            let org = organization(&org)?;
            let secret = std::fs::read_to_string(&client_secret_file).with_context(|| {
                format!(
                    "cannot read --client-secret-file {}",
                    client_secret_file.display()
                )
            })?;
            let secret = ClientSecret::new(&secret).context("--client-secret-file")?;
            let issuer = check_issuer(&issuer)?;
            let supported = equip_oidc::RelyingParty::new()?
                .discover(&issuer)
                .with_context(|| format!("--issuer {issuer}"))?;
            let scopes = if scopes.is_empty() {
                default_scopes(&supported)
            } else {
                scopes
            };
            let config = SsoConfig::new(
                org,
                &issuer,
                &client_id,
                secret,
                &scopes,
                groups_claim.as_deref(),
                Utc::now(),
            )?;
            let store = open(db)?;
            let ended = service::configure(&store, &config)?;
            if ended > 0 {
                crate::logs::announce(&format!(
                    "the issuer changed: ended the organization's {ended} session(s)"
                ));
            }
            crate::logs::announce(&format!(
                "organization {org} signs in with {} (scopes: {}); register the redirect URI \
                 <public URL>/sso/callback with the provider, map groups with equip org sso \
                 role --org {org} --group NAME --scope SCOPE; people sign in at <public \
                 URL>/sso/{org}/login",
                config.issuer,
                config.scopes.join(" ")
            ));
            Ok(())
        }
        SsoCommand::Show { org, json } => show(db, &organization(&org)?, json),
        SsoCommand::Clear { org } => {
            let org = organization(&org)?;
            let store = open(db)?;
            if service::clear(&store, org)? {
                crate::logs::announce(&format!(
                    "organization {org} no longer signs in with an identity provider; its \
                     role mappings and sessions are gone"
                ));
            } else {
                crate::logs::announce(&format!("organization {org} had no identity provider"));
            }
            Ok(())
        }
        SsoCommand::Role {
            org,
            group,
            scopes,
            all_scopes,
            remove,
        } => {
            let org = organization(&org)?;
            let store = open(db)?;
            if remove {
                if service::remove_role(&store, org, &group)? {
                    crate::logs::announce(&format!(
                        "group '{}' no longer gives access; sessions already open keep theirs \
                         until they end (equip org sso sessions --org {org} --revoke-all ends \
                         them)",
                        group.trim()
                    ));
                    return Ok(());
                }
                anyhow::bail!("group '{}' has no mapping", group.trim());
            }
            let scopes = if all_scopes {
                Scopes::all()
            } else {
                super::keys::named_scopes(&scopes, "or give --all-scopes")?
            };
            let role = RoleMapping::new(&group, scopes)?;
            service::set_role(&store, org, &role)?;
            crate::logs::announce(&format!(
                "members of '{}' sign in with: {}",
                role.group,
                role.scopes.to_storage()
            ));
            Ok(())
        }
        SsoCommand::Sessions {
            org,
            json,
            revoke,
            revoke_all,
            limits,
        } => {
            let org = organization(&org)?;
            let store = open(db)?;
            if revoke_all {
                let ended = service::revoke_sessions(&store, org, None)?;
                crate::logs::announce(&format!("ended {ended} session(s)"));
                return Ok(());
            }
            if let Some(id) = revoke {
                let id =
                    SessionId::parse(id.trim()).map_err(|e| anyhow::anyhow!("--revoke: {e}"))?;
                service::revoke_sessions(&store, org, Some(id))?;
                crate::logs::announce(&format!("ended session {id}"));
                return Ok(());
            }
            sessions(&store, org, json, limits.limits()?)
        }
    }
}

fn organization(raw: &str) -> anyhow::Result<OrganizationId> {
    OrganizationId::parse(raw.trim()).map_err(|e| anyhow::anyhow!("--org: {e}"))
}

/// What `show --json` prints.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Shown {
    organization_id: String,
    configured: bool,
    issuer: Option<String>,
    client_id: Option<String>,
    client_secret: Option<&'static str>,
    scopes: Vec<String>,
    groups_claim: Option<String>,
    updated_at: Option<String>,
    sign_in_path: String,
    redirect_path: &'static str,
    roles: Vec<ShownRole>,
}

#[derive(Serialize)]
struct ShownRole {
    group: String,
    scopes: Vec<&'static str>,
}

fn show(db: &DatabaseConfig, org: &OrganizationId, json: bool) -> anyhow::Result<()> {
    let store = open(db)?;
    let (config, roles) = service::show(&store, *org)?;
    let shown = Shown {
        organization_id: org.to_string(),
        configured: config.is_some(),
        issuer: config.as_ref().map(|c| c.issuer.clone()),
        client_id: config.as_ref().map(|c| c.client_id.clone()),
        client_secret: config.as_ref().map(|_| "set"),
        scopes: config
            .as_ref()
            .map(|c| c.scopes.clone())
            .unwrap_or_default(),
        groups_claim: config.as_ref().map(|c| c.groups_claim.clone()),
        updated_at: config.as_ref().map(|c| table::json_time(c.updated_at)),
        sign_in_path: format!("/sso/{org}/login"),
        redirect_path: "/sso/callback",
        roles: roles
            .iter()
            .map(|r| ShownRole {
                group: r.group.clone(),
                scopes: r.scopes.as_slice().iter().map(|s| s.as_str()).collect(),
            })
            .collect(),
    };
    if json {
        return table::print_json(&shown);
    }
    let mut text = String::new();
    match &config {
        None => text.push_str("identity provider: none (equip org sso set)\n"),
        Some(c) => {
            text.push_str(&format!(
                "issuer:        {}\nclient id:     {}\nclient secret: set\nscopes:        {}\n\
                 groups claim:  {}\nupdated:       {}\n",
                c.issuer,
                c.client_id,
                c.scopes.join(" "),
                c.groups_claim,
                table::time(c.updated_at)
            ));
        }
    }
    text.push_str(&format!(
        "sign-in URL:   <public URL>{}\nredirect URI:  <public URL>{}\n\n",
        shown.sign_in_path, shown.redirect_path
    ));
    let rows: Vec<Vec<String>> = roles
        .iter()
        .map(|r| vec![r.group.clone(), r.scopes.to_storage()])
        .collect();
    text.push_str(&table::render(&["GROUP", "SCOPES"], &rows));
    table::print(&text)?;
    if roles.is_empty() {
        crate::logs::announce(&format!(
            "no group is mapped yet, so nobody can sign in: equip org sso role --org {org} \
             --group NAME --scope SCOPE"
        ));
    }
    Ok(())
}

/// A session as `sessions --json` shows it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionLine {
    id: String,
    email: String,
    subject: String,
    scopes: Vec<&'static str>,
    created_at: String,
    last_seen_at: String,
    /// When it ends if unused from now on.
    idle_expires_at: String,
    /// When it ends whatever its use.
    expires_at: String,
}

fn sessions(
    store: &equip_persistence::Store,
    org: OrganizationId,
    json: bool,
    limits: equip_domain::sso::SessionLimits,
) -> anyhow::Result<()> {
    let live = service::live_sessions(store, org, Utc::now(), limits)?;
    if json {
        let lines: Vec<SessionLine> = live
            .iter()
            .map(|s| SessionLine {
                id: s.id.to_string(),
                email: s.email.clone(),
                subject: s.subject.clone(),
                scopes: s.scopes.as_slice().iter().map(|x| x.as_str()).collect(),
                created_at: table::json_time(s.created_at),
                last_seen_at: table::json_time(s.last_seen_at),
                idle_expires_at: table::json_time(s.idle_expires_at(limits)),
                expires_at: table::json_time(s.expires_at),
            })
            .collect();
        return table::print_json(&lines);
    }
    let rows: Vec<Vec<String>> = live
        .iter()
        .map(|s| {
            vec![
                s.id.to_string(),
                table::time(s.created_at),
                table::time(s.last_seen_at),
                table::time(s.idle_expires_at(limits)),
                s.email.clone(),
            ]
        })
        .collect();
    table::print(&table::render(
        &["ID", "SIGNED IN", "LAST SEEN", "ENDS", "EMAIL"],
        &rows,
    ))
}
