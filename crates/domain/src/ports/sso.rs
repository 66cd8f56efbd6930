//! Port: sign-in with the organization's identity provider (docs/sso.md):
//! its configuration and role mappings, sign-ins in progress and sessions.

use chrono::{DateTime, Utc};

use crate::error::StoreResult;
use crate::ids::{OrganizationId, SessionId};
use crate::sso::{LoginAttempt, RoleMapping, Session, SsoConfig};

/// What the store keeps for sign-in with an identity provider. Sessions and
/// attempts are shared by every instance on the database.
pub trait SsoRepository: Send + Sync {
    /// The organization's configuration, if it has one.
    ///
    /// # Errors
    /// Backend failures.
    fn sso_config(&self, organization: OrganizationId) -> StoreResult<Option<SsoConfig>>;

    /// Sets the organization's configuration (replacing one it had; its
    /// role mappings and sessions stay).
    ///
    /// # Errors
    /// [`crate::StoreError::MissingReference`] for an unknown organization;
    /// backend failures.
    fn put_sso_config(&self, config: &SsoConfig) -> StoreResult<()>;

    /// Removes the configuration, its role mappings, sign-ins in progress and
    /// every session of the organization, in one transaction; whether there
    /// was a configuration.
    ///
    /// # Errors
    /// Backend failures.
    fn clear_sso(&self, organization: OrganizationId) -> StoreResult<bool>;

    /// The organization's role mappings, by group name.
    ///
    /// # Errors
    /// Backend failures.
    fn sso_roles(&self, organization: OrganizationId) -> StoreResult<Vec<RoleMapping>>;

    /// Maps a group to scopes (replacing its earlier mapping).
    ///
    /// # Errors
    /// [`crate::StoreError::MissingReference`] for an unknown organization;
    /// backend failures.
    fn put_sso_role(&self, organization: OrganizationId, role: &RoleMapping) -> StoreResult<()>;

    /// Removes a group's mapping; whether it had one.
    ///
    /// # Errors
    /// Backend failures.
    fn remove_sso_role(&self, organization: OrganizationId, group: &str) -> StoreResult<bool>;

    /// Stores a sign-in in progress, first deleting the organization's
    /// attempts begun before `expired_before`.
    ///
    /// # Errors
    /// Backend failures.
    fn insert_login_attempt(
        &self,
        attempt: &LoginAttempt,
        expired_before: DateTime<Utc>,
    ) -> StoreResult<()>;

    /// Takes (reads and deletes, at most once across instances) the attempt
    /// with this state hash.
    ///
    /// # Errors
    /// Backend failures.
    fn take_login_attempt(&self, state_hash: &str) -> StoreResult<Option<LoginAttempt>>;

    /// Stores a new session, first deleting the organization's sessions that
    /// expired (`expires_at` at or before `now`, or last used before
    /// `idle_before`).
    ///
    /// # Errors
    /// Backend failures.
    fn insert_session(
        &self,
        session: &Session,
        now: DateTime<Utc>,
        idle_before: DateTime<Utc>,
    ) -> StoreResult<()>;

    /// The session with this token hash, live or not.
    ///
    /// # Errors
    /// Backend failures.
    fn find_session(&self, token_hash: &str) -> StoreResult<Option<Session>>;

    /// Records a session's use at `at`.
    ///
    /// # Errors
    /// Backend failures (a session deleted meanwhile is no error).
    fn touch_session(&self, id: SessionId, at: DateTime<Utc>) -> StoreResult<()>;

    /// The organization's sessions, newest first.
    ///
    /// # Errors
    /// Backend failures.
    fn list_sessions(&self, organization: OrganizationId) -> StoreResult<Vec<Session>>;

    /// Ends one session of the organization (`Some`) or all of them
    /// (`None`); how many ended.
    ///
    /// # Errors
    /// Backend failures.
    fn delete_sessions(
        &self,
        organization: OrganizationId,
        session: Option<SessionId>,
    ) -> StoreResult<usize>;

    /// Deletes, across organizations, the sessions that ended (`expires_at`
    /// at or before `now`, or last used before `idle_before`) and the
    /// attempts begun before `attempts_before`; how many rows went.
    ///
    /// # Errors
    /// Backend failures.
    fn prune_sso(
        &self,
        now: DateTime<Utc>,
        idle_before: DateTime<Utc>,
        attempts_before: DateTime<Utc>,
    ) -> StoreResult<usize>;
}
