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
    hash_token, looks_like_token, scopes_for, LoginAttempt, ProviderIdentity, RoleMapping, Session,
    SessionLimits, SessionToken, SessionVerdict, SsoConfig,
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

/// Sets the organization's configuration (`equip org sso set`). Another
/// issuer is another provider, whose subjects are not the earlier one's: the
/// organization's sessions end then; how many ended.
///
/// # Errors
/// 404 for an unknown organization; store failures.
pub fn configure<P: SsoPorts + ?Sized>(
    ports: &P,
    config: &SsoConfig,
) -> Result<usize, DomainError> {
    organization_exists(ports, config.organization_id)?;
    let earlier = ports.sso_config(config.organization_id)?;
    ports.put_sso_config(config)?;
    let other_provider = earlier.is_some_and(|e| e.issuer != config.issuer);
    Ok(if other_provider {
        ports.delete_sessions(config.organization_id, None)?
    } else {
        0
    })
}

/// Deletes the sessions that ended and the attempts that expired, of every
/// organization (the hourly pass of `serve`); how many rows went.
///
/// # Errors
/// Store failures.
pub fn prune_ended<P: SsoRepository + ?Sized>(
    ports: &P,
    now: DateTime<Utc>,
    limits: SessionLimits,
) -> Result<usize, DomainError> {
    Ok(ports.prune_sso(
        now,
        Session::idle_cutoff(now, limits),
        LoginAttempt::cutoff(now),
    )?)
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
    let scopes =
        scopes_for(&identity.groups, &roles).ok_or_else(|| SignInError::NoMappedGroup {
            email: identity.shown_email(),
            groups: identity.groups.clone(),
        })?;
    let (session, token) = Session::open(organization, identity, scopes, now, limits)?;
    ports.insert_session(&session, now, Session::idle_cutoff(now, limits))?;
    Ok((session, token))
}

/// A session's request, authenticated.
#[derive(Debug)]
pub struct SessionUse {
    /// Its caller: the organization, the person, their scopes.
    pub caller: Caller,
    /// The session.
    pub session: Session,
    /// Why its use could not be recorded, when it could not (a database
    /// that refuses writes): the request goes on, the caller logs it.
    pub unrecorded: Option<StoreError>,
}

/// The caller of a request carrying the session cookie `token`: its
/// organization, its person and its scopes; its use recorded at most once a
/// minute ([`Session::touch_every`]). Recording the use is not needed to
/// answer: when the store refuses it, the request goes on.
///
/// # Errors
/// [`AuthError::NoSession`] for a malformed, unknown, expired or revoked
/// session; store failures of the read.
pub fn authenticate_session<P: SsoRepository + ?Sized>(
    ports: &P,
    token: &str,
    now: DateTime<Utc>,
    limits: SessionLimits,
) -> Result<SessionUse, AuthFailure> {
    if !looks_like_token(token) {
        return Err(AuthError::NoSession.into());
    }
    let session = ports
        .find_session(&hash_token(&token.to_ascii_lowercase()))?
        .ok_or(AuthError::NoSession)?;
    let unrecorded = match session.verdict(now, limits) {
        SessionVerdict::Expired => return Err(AuthError::NoSession.into()),
        SessionVerdict::Live { touch: true } => ports.touch_session(session.id, now).err(),
        SessionVerdict::Live { touch: false } => None,
    };
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
    Ok(SessionUse {
        caller,
        session,
        unrecorded,
    })
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use chrono::Duration;

    use super::*;
    use crate::api_key::{Scope, Scopes};
    use crate::services::admin::create_organization;
    use crate::sso::{ClientSecret, RoleMapping};
    use crate::testing::InMemoryStore;

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap()
    }

    fn with_roles() -> (InMemoryStore, OrganizationId) {
        let store = InMemoryStore::default();
        let org = create_organization(&store, "Acme", at(0)).unwrap().id;
        let config = SsoConfig::new(
            org,
            "https://idp.example.com",
            "equip",
            ClientSecret::new("s").unwrap(),
            &[],
            None,
            at(0),
        )
        .unwrap();
        configure(&store, &config).unwrap();
        let readers = Scopes::from_list([Scope::InventoryRead]);
        set_role(&store, org, &RoleMapping::new("Readers", readers).unwrap()).unwrap();
        (store, org)
    }

    fn attempt(org: OrganizationId, state: &str, created_at: DateTime<Utc>) -> LoginAttempt {
        LoginAttempt {
            state_hash: hash_token(state),
            organization_id: org,
            nonce: "n".into(),
            pkce_verifier: "v".into(),
            next: None,
            created_at,
        }
    }

    fn identity(groups: &[&str]) -> ProviderIdentity {
        ProviderIdentity {
            subject: "sub-1".into(),
            email: Some("ana@acme.example".into()),
            groups: groups.iter().map(|g| (*g).to_owned()).collect(),
            ..ProviderIdentity::default()
        }
    }

    #[test]
    fn an_attempt_finishes_once_in_the_browser_that_began_it_within_ten_minutes() {
        let (store, org) = with_roles();
        begin_sign_in(&store, &attempt(org, "s1", at(0))).unwrap();
        // Another browser (no cookie, or another state's): refused, and the
        // attempt is spent.
        assert!(matches!(
            take_attempt(&store, "s1", Some("other"), at(1)),
            Err(SignInError::UnknownAttempt)
        ));
        assert!(matches!(
            take_attempt(&store, "s1", Some("s1"), at(1)),
            Err(SignInError::UnknownAttempt)
        ));
        begin_sign_in(&store, &attempt(org, "s2", at(0))).unwrap();
        assert!(take_attempt(&store, "s2", Some("s2"), at(599)).is_ok());
        assert!(matches!(
            take_attempt(&store, "s2", Some("s2"), at(599)),
            Err(SignInError::UnknownAttempt)
        ));
        begin_sign_in(&store, &attempt(org, "s3", at(0))).unwrap();
        assert!(matches!(
            take_attempt(&store, "s3", Some("s3"), at(600)),
            Err(SignInError::UnknownAttempt)
        ));
        assert!(take_attempt(&store, "s3", None, at(1)).is_err());
    }

    #[test]
    fn a_person_without_a_mapped_group_is_refused_and_gets_no_session() {
        let (store, org) = with_roles();
        let refused = finish_sign_in(
            &store,
            org,
            &identity(&["Sales"]),
            at(0),
            SessionLimits::default(),
        );
        match refused {
            Err(SignInError::NoMappedGroup { email, groups }) => {
                assert_eq!(email, "ana@acme.example");
                assert_eq!(groups, ["Sales"]);
            }
            other => panic!("{other:?}"),
        }
        assert!(store.list_sessions(org).unwrap().is_empty());
    }

    #[test]
    fn a_session_authenticates_until_it_idles_and_is_touched_once_a_minute() {
        let (store, org) = with_roles();
        let limits = SessionLimits::new(Duration::minutes(10), Duration::days(1)).unwrap();
        let (session, token) =
            finish_sign_in(&store, org, &identity(&["Readers"]), at(0), limits).unwrap();
        let caller = authenticate_session(&store, token.expose(), at(30), limits)
            .unwrap()
            .caller;
        assert_eq!(caller.organization_id, org);
        assert_eq!(caller.key_id(), None);
        assert!(caller.require(Scope::InventoryRead).is_ok());
        assert!(caller.require(Scope::InventoryWrite).is_err());
        match caller.actor() {
            crate::event::Actor::Person(p) => {
                assert_eq!(&*p.subject, "sub-1");
                assert_eq!(&*p.email, "ana@acme.example");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(store.list_sessions(org).unwrap()[0].last_seen_at, at(0));
        authenticate_session(&store, token.expose(), at(61), limits).unwrap();
        assert_eq!(store.list_sessions(org).unwrap()[0].last_seen_at, at(61));
        // Idle past ten minutes from its last use.
        assert!(authenticate_session(&store, token.expose(), at(61 + 600), limits).is_err());
        // Not a token's shape, or another token: refused without a match.
        for bad in ["", "abc", &"g".repeat(64), &"0".repeat(64)] {
            assert!(
                authenticate_session(&store, bad, at(62), limits).is_err(),
                "{bad}"
            );
        }
        sign_out(&store, token.expose()).unwrap();
        assert!(store.find_session(&session.token_hash).unwrap().is_none());
        sign_out(&store, "not a token").unwrap();
    }

    #[test]
    fn another_issuer_ends_the_sessions_and_the_hourly_pass_prunes_ended_ones() {
        let (store, org) = with_roles();
        let limits = SessionLimits::new(Duration::minutes(10), Duration::days(1)).unwrap();
        finish_sign_in(&store, org, &identity(&["Readers"]), at(0), limits).unwrap();
        let same = config_for_sign_in(&store, org).unwrap();
        assert_eq!(
            configure(&store, &same).unwrap(),
            0,
            "same issuer: sessions stay"
        );
        let other = SsoConfig {
            issuer: "https://other.example.com".into(),
            ..same
        };
        assert_eq!(configure(&store, &other).unwrap(), 1);
        assert!(store.list_sessions(org).unwrap().is_empty());

        finish_sign_in(&store, org, &identity(&["Readers"]), at(0), limits).unwrap();
        let (live, _) =
            finish_sign_in(&store, org, &identity(&["Readers"]), at(500), limits).unwrap();
        begin_sign_in(&store, &attempt(org, "old", at(0))).unwrap();
        begin_sign_in(&store, &attempt(org, "new", at(500))).unwrap();
        // At 700 s: the first session idled out (10 min), the old attempt expired.
        assert_eq!(prune_ended(&store, at(700), limits).unwrap(), 2);
        assert_eq!(store.list_sessions(org).unwrap(), [live]);
        assert!(store
            .take_login_attempt(&hash_token("new"))
            .unwrap()
            .is_some());
    }

    #[test]
    fn an_operator_ends_sessions_of_their_organization_only() {
        let (store, org) = with_roles();
        let limits = SessionLimits::default();
        let (one, _) = finish_sign_in(&store, org, &identity(&["Readers"]), at(0), limits).unwrap();
        finish_sign_in(&store, org, &identity(&["Readers"]), at(1), limits).unwrap();
        assert_eq!(live_sessions(&store, org, at(2), limits).unwrap().len(), 2);
        let other = create_organization(&store, "Globex", at(0)).unwrap().id;
        assert!(revoke_sessions(&store, other, Some(one.id)).is_err());
        assert_eq!(revoke_sessions(&store, org, Some(one.id)).unwrap(), 1);
        assert!(revoke_sessions(&store, org, Some(one.id)).is_err());
        assert_eq!(revoke_sessions(&store, org, None).unwrap(), 1);
        assert!(clear(&store, OrganizationId::new()).is_err());
        assert!(clear(&store, org).unwrap());
        assert!(matches!(
            config_for_sign_in(&store, org),
            Err(SignInError::NotConfigured)
        ));
    }
}
