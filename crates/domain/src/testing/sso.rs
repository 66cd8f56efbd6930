//! [`SsoRepository`] in memory.

use chrono::{DateTime, Utc};

use crate::error::{StoreError, StoreResult};
use crate::ids::{OrganizationId, SessionId};
use crate::ports::SsoRepository;
use crate::sso::{LoginAttempt, RoleMapping, Session, SsoConfig};

use super::InMemoryStore;

impl InMemoryStore {
    fn require_organization(&self, organization: OrganizationId) -> StoreResult<()> {
        if self
            .state()
            .organizations
            .iter()
            .any(|o| o.id == organization)
        {
            Ok(())
        } else {
            Err(StoreError::MissingReference {
                entity: "sso",
                detail: "organization".into(),
            })
        }
    }
}

impl SsoRepository for InMemoryStore {
    fn sso_config(&self, organization: OrganizationId) -> StoreResult<Option<SsoConfig>> {
        Ok(self
            .state()
            .sso_configs
            .iter()
            .find(|c| c.organization_id == organization)
            .cloned())
    }

    fn put_sso_config(&self, config: &SsoConfig) -> StoreResult<()> {
        self.require_organization(config.organization_id)?;
        let mut s = self.state();
        s.sso_configs
            .retain(|c| c.organization_id != config.organization_id);
        s.sso_configs.push(config.clone());
        Ok(())
    }

    fn clear_sso(&self, organization: OrganizationId) -> StoreResult<bool> {
        let mut s = self.state();
        let had = s
            .sso_configs
            .iter()
            .any(|c| c.organization_id == organization);
        s.sso_configs.retain(|c| c.organization_id != organization);
        s.sso_roles.retain(|(o, _)| *o != organization);
        s.login_attempts
            .retain(|a| a.organization_id != organization);
        s.sessions.retain(|x| x.organization_id != organization);
        Ok(had)
    }

    fn sso_roles(&self, organization: OrganizationId) -> StoreResult<Vec<RoleMapping>> {
        let mut roles: Vec<RoleMapping> = self
            .state()
            .sso_roles
            .iter()
            .filter(|(o, _)| *o == organization)
            .map(|(_, r)| r.clone())
            .collect();
        roles.sort_by(|a, b| a.group.cmp(&b.group));
        Ok(roles)
    }

    fn put_sso_role(&self, organization: OrganizationId, role: &RoleMapping) -> StoreResult<()> {
        self.require_organization(organization)?;
        let mut s = self.state();
        s.sso_roles
            .retain(|(o, r)| !(*o == organization && r.group == role.group));
        s.sso_roles.push((organization, role.clone()));
        Ok(())
    }

    fn remove_sso_role(&self, organization: OrganizationId, group: &str) -> StoreResult<bool> {
        let mut s = self.state();
        let before = s.sso_roles.len();
        s.sso_roles
            .retain(|(o, r)| !(*o == organization && r.group == group));
        Ok(s.sso_roles.len() != before)
    }

    fn insert_login_attempt(
        &self,
        attempt: &LoginAttempt,
        expired_before: DateTime<Utc>,
    ) -> StoreResult<()> {
        let mut s = self.state();
        s.login_attempts.retain(|a| {
            a.organization_id != attempt.organization_id || a.created_at >= expired_before
        });
        s.login_attempts.push(attempt.clone());
        Ok(())
    }

    fn take_login_attempt(&self, state_hash: &str) -> StoreResult<Option<LoginAttempt>> {
        let mut s = self.state();
        let found = s
            .login_attempts
            .iter()
            .position(|a| a.state_hash == state_hash);
        Ok(found.map(|i| s.login_attempts.remove(i)))
    }

    fn insert_session(
        &self,
        session: &Session,
        now: DateTime<Utc>,
        idle_before: DateTime<Utc>,
    ) -> StoreResult<()> {
        let mut s = self.state();
        s.sessions.retain(|x| {
            x.organization_id != session.organization_id || !x.ended_by(now, idle_before)
        });
        s.sessions.push(session.clone());
        Ok(())
    }

    fn find_session(&self, token_hash: &str) -> StoreResult<Option<Session>> {
        Ok(self
            .state()
            .sessions
            .iter()
            .find(|x| x.token_hash == token_hash)
            .cloned())
    }

    fn touch_session(&self, id: SessionId, at: DateTime<Utc>) -> StoreResult<()> {
        if let Some(x) = self.state().sessions.iter_mut().find(|x| x.id == id) {
            x.last_seen_at = at;
        }
        Ok(())
    }

    fn list_sessions(&self, organization: OrganizationId) -> StoreResult<Vec<Session>> {
        let mut all: Vec<Session> = self
            .state()
            .sessions
            .iter()
            .filter(|x| x.organization_id == organization)
            .cloned()
            .collect();
        all.sort_by_key(|s| std::cmp::Reverse(s.created_at));
        Ok(all)
    }

    fn delete_sessions(
        &self,
        organization: OrganizationId,
        session: Option<SessionId>,
    ) -> StoreResult<usize> {
        let mut s = self.state();
        let before = s.sessions.len();
        s.sessions
            .retain(|x| x.organization_id != organization || session.is_some_and(|id| x.id != id));
        Ok(before - s.sessions.len())
    }

    fn prune_sso(
        &self,
        now: DateTime<Utc>,
        idle_before: DateTime<Utc>,
        attempts_before: DateTime<Utc>,
    ) -> StoreResult<usize> {
        let mut s = self.state();
        let before = s.sessions.len() + s.login_attempts.len();
        s.sessions.retain(|x| !x.ended_by(now, idle_before));
        s.login_attempts.retain(|a| a.created_at >= attempts_before);
        Ok(before - s.sessions.len() - s.login_attempts.len())
    }
}
