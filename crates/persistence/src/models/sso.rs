//! Rows of sign-in with an identity provider: configurations, role mappings,
//! sign-ins in progress and sessions.

use super::*;
use crate::schema::{sso_configs, sso_login_attempts, sso_roles, sso_sessions};
use equip_domain::sso::{ClientSecret, LoginAttempt, RoleMapping, Session, SsoConfig};

fn scopes(raw: &str) -> DbResult<Scopes> {
    Scopes::parse_list(raw).map_err(|e| DbError::corrupt(e.to_string()))
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = sso_configs, treat_none_as_default_value = false)]
pub(crate) struct SsoConfigRow {
    pub organization_id: String,
    pub issuer: String,
    pub client_id: String,
    pub client_secret: String,
    pub scopes: String,
    pub groups_claim: String,
    pub updated_at: NaiveDateTime,
}

impl From<&SsoConfig> for SsoConfigRow {
    fn from(c: &SsoConfig) -> Self {
        Self {
            organization_id: c.organization_id.to_string(),
            issuer: c.issuer.clone(),
            client_id: c.client_id.clone(),
            client_secret: c.client_secret.expose().to_owned(),
            scopes: c.scopes.join(" "),
            groups_claim: c.groups_claim.clone(),
            updated_at: db_time(c.updated_at),
        }
    }
}

impl SsoConfigRow {
    pub(crate) fn into_domain(self) -> DbResult<SsoConfig> {
        Ok(SsoConfig {
            organization_id: parse_id(&self.organization_id)?,
            issuer: self.issuer,
            client_id: self.client_id,
            client_secret: ClientSecret::new(&self.client_secret)
                .map_err(|e| DbError::corrupt(e.to_string()))?,
            scopes: self.scopes.split(' ').map(str::to_owned).collect(),
            groups_claim: self.groups_claim,
            updated_at: utc(self.updated_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = sso_roles, treat_none_as_default_value = false)]
pub(crate) struct SsoRoleRow {
    pub organization_id: String,
    pub group_name: String,
    pub scopes: String,
}

impl SsoRoleRow {
    pub(crate) fn new(organization: &str, role: &RoleMapping) -> Self {
        Self {
            organization_id: organization.to_owned(),
            group_name: role.group.clone(),
            scopes: role.scopes.to_storage(),
        }
    }

    pub(crate) fn into_domain(self) -> DbResult<RoleMapping> {
        Ok(RoleMapping {
            group: self.group_name,
            scopes: scopes(&self.scopes)?,
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = sso_login_attempts, treat_none_as_default_value = false)]
pub(crate) struct LoginAttemptRow {
    pub state_hash: String,
    pub organization_id: String,
    pub nonce: String,
    pub pkce_verifier: String,
    pub next_path: Option<String>,
    pub created_at: NaiveDateTime,
}

impl From<&LoginAttempt> for LoginAttemptRow {
    fn from(a: &LoginAttempt) -> Self {
        Self {
            state_hash: a.state_hash.clone(),
            organization_id: a.organization_id.to_string(),
            nonce: a.nonce.clone(),
            pkce_verifier: a.pkce_verifier.clone(),
            next_path: a.next.clone(),
            created_at: db_time(a.created_at),
        }
    }
}

impl LoginAttemptRow {
    pub(crate) fn into_domain(self) -> DbResult<LoginAttempt> {
        Ok(LoginAttempt {
            state_hash: self.state_hash,
            organization_id: parse_id(&self.organization_id)?,
            nonce: self.nonce,
            pkce_verifier: self.pkce_verifier,
            next: self.next_path,
            created_at: utc(self.created_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = sso_sessions, treat_none_as_default_value = false)]
pub(crate) struct SessionRow {
    pub id: String,
    pub organization_id: String,
    pub token_hash: String,
    pub subject: String,
    pub email: String,
    pub name: Option<String>,
    pub scopes: String,
    pub created_at: NaiveDateTime,
    pub last_seen_at: NaiveDateTime,
    pub expires_at: NaiveDateTime,
}

impl From<&Session> for SessionRow {
    fn from(s: &Session) -> Self {
        Self {
            id: s.id.to_string(),
            organization_id: s.organization_id.to_string(),
            token_hash: s.token_hash.clone(),
            subject: s.subject.clone(),
            email: s.email.clone(),
            name: s.name.clone(),
            scopes: s.scopes.to_storage(),
            created_at: db_time(s.created_at),
            last_seen_at: db_time(s.last_seen_at),
            expires_at: db_time(s.expires_at),
        }
    }
}

impl SessionRow {
    pub(crate) fn into_domain(self) -> DbResult<Session> {
        Ok(Session {
            id: parse_id(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            token_hash: self.token_hash,
            subject: self.subject,
            email: self.email,
            name: self.name,
            scopes: scopes(&self.scopes)?,
            created_at: utc(self.created_at),
            last_seen_at: utc(self.last_seen_at),
            expires_at: utc(self.expires_at),
        })
    }
}
