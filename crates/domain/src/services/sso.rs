//! Use cases of sign-in with the organization's identity provider
//! (docs/sso.md): the operator's configuration and role mappings, a sign-in
//! begun and finished, a session authenticated, ended or revoked. The
//! protocol with the provider is `equip-oidc`'s; what it decided arrives
//! here as a [`ProviderIdentity`].

use chrono::{DateTime, Utc};

use crate::api_key::{AuthError, Caller, Credential};
use crate::error::{DomainError, StoreError};
use crate::event::PersonActor;
use crate::ids::{OrganizationId, SessionId};
use crate::ports::{OrganizationRepository, SsoRepository};
use crate::services::auth::AuthFailure;
use crate::sso::{
    hash_token, looks_like_token, scopes_for, LoginAttempt, ProviderIdentity, RoleMapping,
    Session, SessionLimits, SessionToken, SessionVerdict, SsoConfig,
};

/// The ports of these use cases.
pub trait SsoPorts: SsoRepository + OrganizationRepository {}
impl<T: SsoRepository + OrganizationRepository + ?Sized> SsoPorts for T {}

fn organization_exists<P: SsoPorts + ?Sized>(
    ports: &P,
    organization: OrganizationId,
) -> Result<(), DomainError> {
    ports
        .find_organization(organization)?
        .map(|_| ())
        .ok_or_else(|| DomainError::not_found("organization", "no such organization"))
}

/// Sets the organization's configuration (`equip org sso set`).
///
/// # Errors
/// 404 for an unknown organization; store failures.
pub fn configure<P: SsoPorts + ?Sized>(ports: &P, config: &SsoConfig) -> Result<(), DomainError> {
    organization_exists(ports, config.organization_id)?;
    Ok(ports.put_sso_config(config)?)
}

/// The configuration and role mappings (`equip org sso show`); `None`
/// without a configuration.
///
/// # Errors
/// 404 for an unknown organization; store failures.
pub fn show<P: SsoPorts + ?Sized>(
    ports: &P,
    organization: OrganizationId,
) -> Result<(Option<SsoConfig>, Vec<RoleMapping>), DomainError> {
    organization_exists(ports, organization)?;
    Ok((
        ports.sso_config(organization)?,
        ports.sso_roles(organization)?,
    ))
}

/// Removes the configuration, the mappings and every session (`equip org
/// sso clear`); whether there was a configuration.
///
/// # Errors
/// 404 for an unknown organization; store failures.
pub fn clear<P: SsoPorts + ?Sized>(
    ports: &P,
    organization: OrganizationId,
) -> Result<bool, DomainError> {
    organization_exists(ports, organization)?;
    Ok(ports.clear_sso(organization)?)
}

/// Maps a group to scopes (`equip org sso role`).
///
/// # Errors
/// 404 for an unknown organization; store failures.
pub fn set_role<P: SsoPorts + ?Sized>(
    ports: &P,
    organization: OrganizationId,
    role: &RoleMapping,
) -> Result<(), DomainError> {
    organization_exists(ports, organization)?;
    Ok(ports.put_sso_role(organization, role)?)
}

/// Removes a group's mapping (`equip org sso role --remove`); whether it had
/// one. Sessions already open keep their scopes until they end.
///
/// # Errors
/// 404 for an unknown organization; store failures.
pub fn remove_role<P: SsoPorts + ?Sized>(
    ports: &P,
    organization: OrganizationId,
    group: &str,
) -> Result<bool, DomainError> {
    organization_exists(ports, organization)?;
    Ok(ports.remove_sso_role(organization, group.trim())?)
}

/// The organization's sessions that are live at `now`, newest first
/// (`equip org sso sessions`).
///
/// # Errors
/// 404 for an unknown organization; store failures.
pub fn live_sessions<P: SsoPorts + ?Sized>(
    ports: &P,
    organization: OrganizationId,
    now: DateTime<Utc>,
    limits: SessionLimits,
) -> Result<Vec<Session>, DomainError> {
    organization_exists(ports, organization)?;
    Ok(ports
        .list_sessions(organization)?
        .into_iter()
        .filter(|s| matches!(s.verdict(now, limits), SessionVerdict::Live { .. }))
        .collect())
}

/// Ends one session of the organization or all of them (`equip org sso
/// sessions --revoke`); how many ended.
///
/// # Errors
/// 404 for an unknown organization, or for `Some` session it does not have;
/// store failures.
pub fn revoke_sessions<P: SsoPorts + ?Sized>(
    ports: &P,
    organization: OrganizationId,
    session: Option<SessionId>,
) -> Result<usize, DomainError> {
    organization_exists(ports, organization)?;
    let ended = ports.delete_sessions(organization, session)?;
    if session.is_some() && ended == 0 {
        return Err(DomainError::not_found(
            "session",
            "the organization has no such live session",
        ));
    }
    Ok(ended)
}

/// Why a sign-in cannot finish (each is shown to the person as a page).
#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    /// The organization has no sign-in with an identity provider.
    #[error("this organization does not sign in with an identity provider")]
    NotConfigured,
    /// The state is unknown, was used already, has expired, or belongs to
    /// another browser.
    #[error("this sign-in link was already used or has expired")]
    UnknownAttempt,
    /// None of the person's groups is mapped to scopes.
    #[error("none of the groups of {email} gives access to equip")]
    NoMappedGroup {
        /// The address shown for the person.
        email: String,
        /// The groups the provider sent.
        groups: Vec<String>,
    },
    /// Anything else: the input or the store.
    #[error(transparent)]
    Domain(#[from] DomainError),
}

impl From<StoreError> for SignInError {
    fn from(e: StoreError) -> Self {
        Self::Domain(e.into())
    }
}

/// The organization's configuration, for a sign-in to begin or finish.
///
/// # Errors
/// [`SignInError::NotConfigured`]; store failures.
pub fn config_for_sign_in<P: SsoPorts + ?Sized>(
    ports: &P,
    organization: OrganizationId,
) -> Result<SsoConfig, SignInError> {
    ports
        .sso_config(organization)?
        .ok_or(SignInError::NotConfigured)
}

/// Keeps a sign-in in progress until the provider sends the person back.
///
/// # Errors
/// Store failures.
pub fn begin_sign_in<P: SsoPorts + ?Sized>(
    ports: &P,
    attempt: &LoginAttempt,
) -> Result<(), SignInError> {
    Ok(ports.insert_login_attempt(attempt, LoginAttempt::cutoff(attempt.created_at))?)
}

/// Takes the attempt of `state` (once: a replayed state finds nothing),
/// checking it is live at `now` and that `browser_state` (the value of the
/// cookie set when it began) is the same state.
///
/// # Errors
/// [`SignInError::UnknownAttempt`]; store failures.
pub fn take_attempt<P: SsoPorts + ?Sized>(
    ports: &P,
    state: &str,
    browser_state: Option<&str>,
    now: DateTime<Utc>,
) -> Result<LoginAttempt, SignInError> {
    let attempt = ports
        .take_login_attempt(&hash_token(state))?
        .ok_or(SignInError::UnknownAttempt)?;
    let same_browser = browser_state.is_some_and(|b| hash_token(b) == attempt.state_hash);
    if attempt.expired(now) || !same_browser {
        return Err(SignInError::UnknownAttempt);
    }
    Ok(attempt)
}

/// Opens a session for the person the provider verified, with the scopes of
/// their mapped groups.
///
/// # Errors
/// [`SignInError::NoMappedGroup`] when none of their groups is mapped; store
/// failures.
pub fn finish_sign_in<P: SsoPorts + ?Sized>(
    ports: &P,
    organization: OrganizationId,
    identity: &ProviderIdentity,
    now: DateTime<Utc>,
    limits: SessionLimits,
) -> Result<(Session, SessionToken), SignInError> {
    let roles = ports.sso_roles(organization)?;
    let scopes = scopes_for(&identity.groups, &roles).ok_or_else(|| SignInError::NoMappedGroup {
        email: identity.shown_email(),
        groups: identity.groups.clone(),
    })?;
    let (session, token) = Session::open(organization, identity, scopes, now, limits)?;
    ports.insert_session(&session, now, Session::idle_cutoff(now, limits))?;
    Ok((session, token))
}

/// The caller of a request carrying the session cookie `token`: its
/// organization, its person and its scopes; its use recorded at most once a
/// minute.
///
/// # Errors
/// [`AuthError::NoSession`] for a malformed, unknown, expired or revoked
/// session; store failures.
pub fn authenticate_session<P: SsoRepository + ?Sized>(
    ports: &P,
    token: &str,
    now: DateTime<Utc>,
    limits: SessionLimits,
) -> Result<(Caller, Session), AuthFailure> {
    if !looks_like_token(token) {
        return Err(AuthError::NoSession.into());
    }
    let session = ports
        .find_session(&hash_token(&token.to_ascii_lowercase()))?
        .ok_or(AuthError::NoSession)?;
    match session.verdict(now, limits) {
        SessionVerdict::Expired => return Err(AuthError::NoSession.into()),
        SessionVerdict::Live { touch: true } => ports.touch_session(session.id, now)?,
        SessionVerdict::Live { touch: false } => {}
    }
    let caller = Caller {
        organization_id: session.organization_id,
        credential: Credential::Session {
            id: session.id,
            person: PersonActor {
                subject: session.subject.as_str().into(),
                email: session.email.as_str().into(),
            },
        },
        scopes: session.scopes.clone(),
    };
    Ok((caller, session))
}

/// Ends the session of `token`, if it is one (sign-out: every instance
/// refuses it from now on).
///
/// # Errors
/// Store failures.
pub fn sign_out<P: SsoRepository + ?Sized>(ports: &P, token: &str) -> Result<(), DomainError> {
    if !looks_like_token(token) {
        return Ok(());
    }
    if let Some(session) = ports.find_session(&hash_token(&token.to_ascii_lowercase()))? {
        ports.delete_sessions(session.organization_id, Some(session.id))?;
    }
    Ok(())
}
