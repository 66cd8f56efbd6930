//! Console sessions of people signed in with their organization's identity
//! provider (docs/sso.md), as the web layer sees them: the cookies, the
//! CSRF header, and the session's caller for the gate. The rules (limits,
//! scopes, the attempt's single use) are the domain's
//! (`equip_domain::sso`, `services::sso`); the protocol is `equip-oidc`'s.
//!
//! A request with an `Authorization` header is authenticated by its key, as
//! ever. A request without one but with the `equip_session` cookie is the
//! session's: on every route, `/scim/v2` included (the console uses it).
//! Such a request that may change something (any method but `GET`, `HEAD`
//! and `OPTIONS`) must also carry `X-Equip-CSRF`: a header another site's
//! page cannot send without a CORS preflight, which equip never answers, so
//! a cross-site form or script cannot act with the person's session (the
//! cookie is `SameSite=Strict` too).

use std::net::IpAddr;
use std::num::NonZeroU32;

use actix_web::cookie::{time::Duration as CookieAge, Cookie, SameSite};
use actix_web::http::Method;
use actix_web::HttpRequest;
use equip_domain::api_key::{Caller, Scope};
use equip_domain::ports::SsoRepository;
use equip_domain::services::sso::authenticate_session;
use equip_domain::sso::{Session, SessionLimits, ATTEMPT_LIFETIME};
use equip_oidc::RelyingParty;

use crate::error::HttpError;
use crate::rate_limit::RateLimit;

/// The session cookie over http (a provider and equip on one machine).
pub const SESSION_COOKIE: &str = "equip_session";
/// The session cookie under https: the `__Host-` prefix makes the browser
/// refuse it unless equip itself set it (`Secure`, `Path=/`, no `Domain`),
/// so a page of a sibling subdomain cannot plant its own session in a
/// person's browser.
pub const SECURE_SESSION_COOKIE: &str = "__Host-equip_session";
/// The cookie binding a sign-in attempt to the browser that began it.
pub const STATE_COOKIE: &str = "equip_sso_state";
/// [`STATE_COOKIE`] under https (prefixed as [`SECURE_SESSION_COOKIE`]).
pub const SECURE_STATE_COOKIE: &str = "__Host-equip_sso_state";
/// The header a session's state-changing request must carry.
pub const CSRF_HEADER: &str = "x-equip-csrf";
/// Sign-ins begun per organization and second (bursts of twice that): each
/// writes an attempt. Generous, so that someone sending sign-ins for an
/// organization cannot easily keep its people out: one client address is
/// held to [`LOGINS_PER_ADDRESS`] first, so it takes at most a fifth of an
/// organization's burst and a twenty-fifth of its rate.
const LOGINS_PER_SECOND: NonZeroU32 = NonZeroU32::new(50).unwrap();
/// Sign-ins begun per client address and second, and the burst: a person
/// signs in a few times a day; an office behind one address still gets ten
/// at once and 120 a minute.
const LOGINS_PER_ADDRESS: (NonZeroU32, NonZeroU32) =
    (NonZeroU32::new(2).unwrap(), NonZeroU32::new(10).unwrap());

/// Sign-in with identity providers, as `serve` set it up.
pub struct SsoSupport {
    /// The OpenID Connect relying party (providers' documents cached).
    pub relying_party: RelyingParty,
    /// How long sessions live.
    pub limits: SessionLimits,
    /// Sign-ins begun, per organization.
    pub logins: RateLimit,
    /// Sign-ins begun, per client address (checked before the
    /// organization's, which a refused one does not count against).
    pub logins_by_address: RateLimit<IpAddr>,
}

impl std::fmt::Debug for SsoSupport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsoSupport")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl SsoSupport {
    /// Support with these session limits and the default sign-in rate.
    #[must_use]
    pub fn new(relying_party: RelyingParty, limits: SessionLimits) -> Self {
        Self {
            relying_party,
            limits,
            logins: RateLimit::with_burst(
                LOGINS_PER_SECOND,
                LOGINS_PER_SECOND.saturating_mul(NonZeroU32::MIN.saturating_add(1)),
            ),
            logins_by_address: RateLimit::with_burst(LOGINS_PER_ADDRESS.0, LOGINS_PER_ADDRESS.1),
        }
    }
}

/// The session cookie of `req`, if it has one; under https only the
/// prefixed one counts.
#[must_use]
pub fn session_cookie(req: &HttpRequest, secure: bool) -> Option<String> {
    req.cookie(names(secure).0).map(|c| c.value().to_owned())
}

/// The attempt's cookie of `req`, if it has one (as [`session_cookie`]).
#[must_use]
pub fn state_cookie(req: &HttpRequest, secure: bool) -> Option<String> {
    req.cookie(names(secure).1).map(|c| c.value().to_owned())
}

/// The session's and the attempt's cookie names: `__Host-` prefixed under
/// https.
const fn names(secure: bool) -> (&'static str, &'static str) {
    if secure {
        (SECURE_SESSION_COOKIE, SECURE_STATE_COOKIE)
    } else {
        (SESSION_COOKIE, STATE_COOKIE)
    }
}

/// Whether `req` may change something only with the CSRF header.
fn changes_state(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// 403 when a session's request that may change something lacks the CSRF
/// header.
///
/// # Errors
/// 403.
pub fn check_csrf(req: &HttpRequest) -> Result<(), HttpError> {
    let present = req
        .headers()
        .get(CSRF_HEADER)
        .is_some_and(|v| !v.as_bytes().is_empty());
    if changes_state(req.method()) && !present {
        return Err(HttpError::with_status(
            actix_web::http::StatusCode::FORBIDDEN,
            "X-Equip-CSRF",
            "a request signed in with a session must carry the X-Equip-CSRF header",
        ));
    }
    Ok(())
}

/// The caller of a session cookie (blocking: on the blocking pool), holding
/// `scope` when one is needed. A use the store could not record is logged,
/// and the request goes on.
///
/// # Errors
/// 401 for an unknown, expired or revoked session; 403 without the scope;
/// 5xx when the store fails.
pub fn session_caller(
    ports: &dyn SsoRepository,
    token: &str,
    limits: SessionLimits,
    scope: Option<Scope>,
) -> Result<(Caller, Session), HttpError> {
    let used = authenticate_session(ports, token, chrono::Utc::now(), limits)?;
    if let Some(e) = &used.unrecorded {
        tracing::warn!(
            session_id = %used.session.id,
            error = %e,
            "a session's use could not be recorded"
        );
    }
    if let Some(scope) = scope {
        used.caller.require(scope).map_err(HttpError::forbidden)?;
    }
    Ok((used.caller, used.session))
}

/// Whether links and cookies are for https (`Secure` cookies).
#[must_use]
pub fn is_https(base: &str) -> bool {
    base.starts_with("https://")
}

/// The session cookie carrying `token`: `HttpOnly`, `SameSite=Strict`,
/// `Path=/`; under https `Secure` and named [`SECURE_SESSION_COOKIE`]; no
/// `Max-Age` (the server ends it).
#[must_use]
pub fn session_set(token: &str, secure: bool) -> Cookie<'static> {
    Cookie::build(names(secure).0, token.to_owned())
        .http_only(true)
        .same_site(SameSite::Strict)
        .path("/")
        .secure(secure)
        .finish()
}

/// The cookie that removes the session cookie from the browser.
#[must_use]
pub fn session_removed(secure: bool) -> Cookie<'static> {
    let mut cookie = session_set("", secure);
    cookie.make_removal();
    cookie
}

/// The cookie binding an attempt to this browser: `SameSite=Lax` (the
/// provider sends the browser back with a top-level navigation from its own
/// site), for the attempt's lifetime; over http only for the callback's
/// path, under https `Secure`, named [`SECURE_STATE_COOKIE`] and so for
/// `Path=/` (what the prefix demands).
#[must_use]
pub fn state_set(state: &str, secure: bool) -> Cookie<'static> {
    let path = if secure { "/" } else { "/sso/callback" };
    Cookie::build(names(secure).1, state.to_owned())
        .http_only(true)
        .same_site(SameSite::Lax)
        .path(path)
        .secure(secure)
        .max_age(CookieAge::seconds(ATTEMPT_LIFETIME.num_seconds()))
        .finish()
}

/// The cookie that removes the attempt's cookie.
#[must_use]
pub fn state_removed(secure: bool) -> Cookie<'static> {
    let mut cookie = state_set("", secure);
    cookie.make_removal();
    cookie
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_carry_their_attributes() {
        let text = session_set("abc", true).to_string();
        for part in [
            "equip_session=abc",
            "HttpOnly",
            "SameSite=Strict",
            "Path=/",
            "Secure",
        ] {
            assert!(text.contains(part), "{text}");
        }
        assert!(!text.contains("Max-Age"), "{text}");
        assert!(!session_set("abc", false).to_string().contains("Secure"));
        let state = state_set("s", false).to_string();
        for part in [
            "SameSite=Lax",
            "Path=/sso/callback",
            "Max-Age=600",
            "HttpOnly",
        ] {
            assert!(state.contains(part), "{state}");
        }
        assert!(session_removed(false).to_string().contains("Max-Age=0"));
        // Under https, the `__Host-` names, which a sibling site cannot set.
        let secure = session_set("abc", true).to_string();
        assert!(secure.starts_with("__Host-equip_session=abc"), "{secure}");
        let state = state_set("s", true).to_string();
        assert!(state.starts_with("__Host-equip_sso_state=s"), "{state}");
        assert!(
            state.contains("Path=/;") && state.contains("Secure"),
            "{state}"
        );
    }

    #[test]
    fn only_reads_need_no_csrf_header() {
        assert!(!changes_state(&Method::GET));
        assert!(!changes_state(&Method::HEAD));
        assert!(changes_state(&Method::POST));
        assert!(changes_state(&Method::PATCH));
        assert!(changes_state(&Method::DELETE));
    }
}
