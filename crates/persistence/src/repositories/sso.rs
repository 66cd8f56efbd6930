//! [`SsoRepository`] for [`Store`]: one code base for SQLite and PostgreSQL.
//! A session is read by its token's hash on every request it makes (one
//! indexed read; its use is written at most once a minute), so a session
//! ended on one instance is refused by every other at once.

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::ids::{OrganizationId, SessionId};
use equip_domain::ports::SsoRepository;
use equip_domain::sso::{LoginAttempt, RoleMapping, Session, SsoConfig};

use crate::connection::{on_inner, write_transaction};
use crate::error::DbError;
use crate::models::{db_time, LoginAttemptRow, SessionRow, SsoConfigRow, SsoRoleRow};
use crate::schema::{sso_configs, sso_login_attempts, sso_roles, sso_sessions};
use crate::store::Store;

/// The sessions that ended at `now`: past their absolute end, or last used
/// before `idle_before` (as `Session::verdict` decides for one).
#[diesel::dsl::auto_type]
fn ended(now: NaiveDateTime, idle_before: NaiveDateTime) -> _ {
    sso_sessions::expires_at
        .le(now)
        .or(sso_sessions::last_seen_at.lt(idle_before))
}

impl SsoRepository for Store {
    fn sso_config(&self, organization: OrganizationId) -> StoreResult<Option<SsoConfig>> {
        let org = organization.to_string();
        self.read("sso", |c| {
            sso_configs::table
                .filter(sso_configs::organization_id.eq(&org))
                .select(SsoConfigRow::as_select())
                .first(c)
                .optional()?
                .map(SsoConfigRow::into_domain)
                .transpose()
        })
    }

    fn put_sso_config(&self, config: &SsoConfig) -> StoreResult<()> {
        let row = SsoConfigRow::from(config);
        self.with("sso", "", |c| {
            write_transaction(c, |c| {
                diesel::delete(
                    sso_configs::table
                        .filter(sso_configs::organization_id.eq(&row.organization_id)),
                )
                .execute(c)?;
                diesel::insert_into(sso_configs::table)
                    .values(&row)
                    .execute(c)?;
                Ok::<_, DbError>(())
            })
        })
    }

    fn clear_sso(&self, organization: OrganizationId) -> StoreResult<bool> {
        let org = organization.to_string();
        self.with("sso", "", |c| {
            write_transaction(c, |c| {
                diesel::delete(sso_sessions::table.filter(sso_sessions::organization_id.eq(&org)))
                    .execute(c)?;
                diesel::delete(
                    sso_login_attempts::table.filter(sso_login_attempts::organization_id.eq(&org)),
                )
                .execute(c)?;
                diesel::delete(sso_roles::table.filter(sso_roles::organization_id.eq(&org)))
                    .execute(c)?;
                let had = diesel::delete(
                    sso_configs::table.filter(sso_configs::organization_id.eq(&org)),
                )
                .execute(c)?;
                Ok::<_, DbError>(had > 0)
            })
        })
    }

    fn sso_roles(&self, organization: OrganizationId) -> StoreResult<Vec<RoleMapping>> {
        let org = organization.to_string();
        self.read("sso", |c| {
            sso_roles::table
                .filter(sso_roles::organization_id.eq(&org))
                .order(sso_roles::group_name)
                .select(SsoRoleRow::as_select())
                .load(c)?
                .into_iter()
                .map(SsoRoleRow::into_domain)
                .collect()
        })
    }

    fn put_sso_role(&self, organization: OrganizationId, role: &RoleMapping) -> StoreResult<()> {
        let row = SsoRoleRow::new(&organization.to_string(), role);
        self.with("sso", "", |c| {
            write_transaction(c, |c| {
                diesel::delete(
                    sso_roles::table
                        .filter(sso_roles::organization_id.eq(&row.organization_id))
                        .filter(sso_roles::group_name.eq(&row.group_name)),
                )
                .execute(c)?;
                diesel::insert_into(sso_roles::table)
                    .values(&row)
                    .execute(c)?;
                Ok::<_, DbError>(())
            })
        })
    }

    fn remove_sso_role(&self, organization: OrganizationId, group: &str) -> StoreResult<bool> {
        let org = organization.to_string();
        self.with("sso", "", |c| {
            let removed = diesel::delete(
                sso_roles::table
                    .filter(sso_roles::organization_id.eq(&org))
                    .filter(sso_roles::group_name.eq(group)),
            )
            .execute(c)?;
            Ok(removed > 0)
        })
    }

    fn insert_login_attempt(
        &self,
        attempt: &LoginAttempt,
        expired_before: DateTime<Utc>,
    ) -> StoreResult<()> {
        let row = LoginAttemptRow::from(attempt);
        let cutoff = db_time(expired_before);
        self.with("sso", "", |c| {
            write_transaction(c, |c| {
                diesel::delete(
                    sso_login_attempts::table
                        .filter(sso_login_attempts::organization_id.eq(&row.organization_id))
                        .filter(sso_login_attempts::created_at.lt(cutoff)),
                )
                .execute(c)?;
                diesel::insert_into(sso_login_attempts::table)
                    .values(&row)
                    .execute(c)?;
                Ok::<_, DbError>(())
            })
        })
    }

    fn take_login_attempt(&self, state_hash: &str) -> StoreResult<Option<LoginAttempt>> {
        self.with("sso", "", |c| {
            // One statement: of two callbacks with the same state, one
            // deletes the row and gets it, the other gets nothing.
            let mut rows: Vec<LoginAttemptRow> = on_inner!(c, |c| diesel::delete(
                sso_login_attempts::table.filter(sso_login_attempts::state_hash.eq(state_hash))
            )
            .returning(LoginAttemptRow::as_returning())
            .get_results(c))?;
            rows.pop().map(LoginAttemptRow::into_domain).transpose()
        })
    }

    fn insert_session(
        &self,
        session: &Session,
        now: DateTime<Utc>,
        idle_before: DateTime<Utc>,
    ) -> StoreResult<()> {
        let row = SessionRow::from(session);
        let (now, idle_before) = (db_time(now), db_time(idle_before));
        self.with("session", "", |c| {
            write_transaction(c, |c| {
                diesel::delete(
                    sso_sessions::table
                        .filter(sso_sessions::organization_id.eq(&row.organization_id))
                        .filter(ended(now, idle_before)),
                )
                .execute(c)?;
                diesel::insert_into(sso_sessions::table)
                    .values(&row)
                    .execute(c)?;
                Ok::<_, DbError>(())
            })
        })
    }

    fn find_session(&self, token_hash: &str) -> StoreResult<Option<Session>> {
        self.read("session", |c| {
            let mut rows: Vec<SessionRow> = on_inner!(c, |c| sso_sessions::table
                .filter(sso_sessions::token_hash.eq(token_hash))
                .select(SessionRow::as_select())
                .load(c))?;
            rows.pop().map(SessionRow::into_domain).transpose()
        })
    }

    fn touch_session(&self, id: SessionId, at: DateTime<Utc>) -> StoreResult<()> {
        let (id, at) = (id.to_string(), db_time(at));
        self.with("session", "", |c| {
            diesel::update(sso_sessions::table.filter(sso_sessions::id.eq(&id)))
                .set(sso_sessions::last_seen_at.eq(at))
                .execute(c)?;
            Ok(())
        })
    }

    fn list_sessions(&self, organization: OrganizationId) -> StoreResult<Vec<Session>> {
        let org = organization.to_string();
        self.read("session", |c| {
            sso_sessions::table
                .filter(sso_sessions::organization_id.eq(&org))
                .order((sso_sessions::created_at.desc(), sso_sessions::id))
                .select(SessionRow::as_select())
                .load(c)?
                .into_iter()
                .map(SessionRow::into_domain)
                .collect()
        })
    }

    fn delete_sessions(
        &self,
        organization: OrganizationId,
        session: Option<SessionId>,
    ) -> StoreResult<usize> {
        let org = organization.to_string();
        let id = session.map(|s| s.to_string());
        self.with("session", "", |c| {
            let ended = match &id {
                Some(id) => diesel::delete(
                    sso_sessions::table
                        .filter(sso_sessions::organization_id.eq(&org))
                        .filter(sso_sessions::id.eq(id)),
                )
                .execute(c)?,
                None => diesel::delete(
                    sso_sessions::table.filter(sso_sessions::organization_id.eq(&org)),
                )
                .execute(c)?,
            };
            Ok(ended)
        })
    }

    fn prune_sso(
        &self,
        now: DateTime<Utc>,
        idle_before: DateTime<Utc>,
        attempts_before: DateTime<Utc>,
    ) -> StoreResult<usize> {
        let (now, idle_before) = (db_time(now), db_time(idle_before));
        let attempts_before = db_time(attempts_before);
        self.with("session", "", |c| {
            let sessions =
                diesel::delete(sso_sessions::table.filter(ended(now, idle_before))).execute(c)?;
            let attempts = diesel::delete(
                sso_login_attempts::table
                    .filter(sso_login_attempts::created_at.lt(attempts_before)),
            )
            .execute(c)?;
            Ok(sessions + attempts)
        })
    }
}
