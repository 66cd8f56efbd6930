//! Signing in to the console with the organization's identity provider
//! (OpenID Connect; docs/sso.md): what the operator configures, how the
//! provider's groups become equip scopes, what a sign-in attempt keeps, and
//! when a session ends. The protocol itself (discovery, the authorization
//! request, the code exchange, the ID token's checks) is `equip-oidc`'s; the
//! rules here are pure and unit-tested.

use std::fmt;

use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};

use crate::api_key::Scopes;
use crate::error::DomainError;
use crate::ids::{OrganizationId, SessionId};

/// The scopes asked of the provider unless the operator chose others.
pub const DEFAULT_SCOPES: [&str; 4] = ["openid", "email", "profile", "groups"];
/// Where the console is: a sign-in returns there.
pub const CONSOLE_PATH: &str = "/console/";
/// The ID token (or userinfo) claim holding the person's groups, unless the
/// operator named another.
pub const DEFAULT_GROUPS_CLAIM: &str = "groups";
/// How long a sign-in attempt (its state, nonce and PKCE verifier) lives.
pub const ATTEMPT_LIFETIME: Duration = Duration::minutes(10);
/// A session's last use is written at most this often (a request within it
/// changes nothing in the store); more often under a short idle timeout
/// ([`Session::touch_every`]).
pub const TOUCH_EVERY: Duration = Duration::seconds(60);
/// The longest group name, issuer, client id or claim name taken.
const MAX_TEXT: usize = 1024;

/// The client secret equip presents to the provider's token endpoint. Its
/// `Debug` form never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientSecret(String);

impl ClientSecret {
    /// The secret, trimmed of surrounding white space (as read from a file).
    ///
    /// # Errors
    /// An empty secret.
    pub fn new(raw: &str) -> Result<Self, DomainError> {
        let secret = raw.trim();
        if secret.is_empty() {
            return Err(DomainError::invalid(
                "clientSecret",
                "the client secret is empty",
            ));
        }
        Ok(Self(secret.to_owned()))
    }

    /// The secret itself, to send to the provider or store.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ClientSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ClientSecret(<redacted>)")
    }
}

/// An organization's sign-in with its identity provider, as the operator set it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SsoConfig {
    /// The organization.
    pub organization_id: OrganizationId,
    /// The provider's issuer: its discovery document is
    /// `{issuer}/.well-known/openid-configuration`, and ID tokens must name it.
    pub issuer: String,
    /// equip's client id at the provider (the ID token's audience).
    pub client_id: String,
    /// equip's client secret at the provider.
    pub client_secret: ClientSecret,
    /// The scopes asked (always with `openid`).
    pub scopes: Vec<String>,
    /// The claim holding the person's groups.
    pub groups_claim: String,
    /// When it was last set.
    pub updated_at: DateTime<Utc>,
}

impl SsoConfig {
    /// A configuration checked: an issuer as [`check_issuer`] takes it, a
    /// client id, the scopes (`openid` added when missing; the defaults when
    /// none) and a claim name.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the input at fault.
    pub fn new(
        organization_id: OrganizationId,
        issuer: &str,
        client_id: &str,
        client_secret: ClientSecret,
        scopes: &[String],
        groups_claim: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Self, DomainError> {
        let issuer = check_issuer(issuer)?;
        let client_id = text("clientId", client_id)?;
        let groups_claim = text("groupsClaim", groups_claim.unwrap_or(DEFAULT_GROUPS_CLAIM))?;
        let mut asked: Vec<String> = if scopes.is_empty() {
            DEFAULT_SCOPES.iter().map(|s| (*s).to_owned()).collect()
        } else {
            Vec::new()
        };
        for scope in scopes {
            let scope = scope.trim();
            if scope.is_empty() || scope.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(DomainError::invalid(
                    "scope",
                    format!("'{scope}' is not a scope name (one word, no spaces)"),
                ));
            }
            if !asked.iter().any(|s| s == scope) {
                asked.push(scope.to_owned());
            }
        }
        if !asked.iter().any(|s| s == "openid") {
            asked.insert(0, "openid".to_owned());
        }
        Ok(Self {
            organization_id,
            issuer,
            client_id,
            client_secret,
            scopes: asked,
            groups_claim,
            updated_at: now,
        })
    }
}

/// The scopes to ask a provider that supports `provider_scopes` (its
/// discovery document's `scopes_supported`) when the operator named none:
/// [`DEFAULT_SCOPES`], but `groups` only when the provider lists it
/// (Microsoft Entra ID has no such scope and refuses a sign-in asking it; it
/// sends groups as its application's token configuration says).
#[must_use]
pub fn default_scopes(provider_scopes: &[String]) -> Vec<String> {
    DEFAULT_SCOPES
        .iter()
        .filter(|s| **s != "groups" || provider_scopes.iter().any(|p| p == "groups"))
        .map(|s| (*s).to_owned())
        .collect()
}

/// Trimmed, non-empty, of printable characters and at most [`MAX_TEXT`] long.
fn text(field: &str, raw: &str) -> Result<String, DomainError> {
    let value = raw.trim();
    if value.is_empty() {
        return Err(DomainError::invalid(field, "must not be empty"));
    }
    if value.len() > MAX_TEXT || value.chars().any(char::is_control) {
        return Err(DomainError::invalid(
            field,
            format!("must be at most {MAX_TEXT} bytes of printable text"),
        ));
    }
    Ok(value.to_owned())
}

/// An issuer URL equip accepts: `https://` with a host, no query, fragment or
/// user information; `http://` only for a loopback host (a provider on the
/// same machine, as in tests). Kept as given otherwise: the ID token's `iss`
/// must equal it exactly.
///
/// # Errors
/// [`DomainError::Invalid`] on `issuer`.
pub fn check_issuer(raw: &str) -> Result<String, DomainError> {
    let raw = raw.trim();
    let invalid = |why: &str| DomainError::invalid("issuer", format!("'{raw}' {why}"));
    let url = url::Url::parse(raw).map_err(|e| invalid(&format!("is not a URL ({e})")))?;
    if url.query().is_some() || url.fragment().is_some() {
        return Err(invalid("must not have a query or a fragment"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid("must not carry a user name or password"));
    }
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => return Err(invalid("has no host")),
    };
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        "http" => {
            return Err(invalid(
                "must be https (http is taken only for a provider on this machine)",
            ))
        }
        _ => return Err(invalid("must be an https URL")),
    }
    Ok(raw.to_owned())
}

/// One provider group the operator mapped to equip scopes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleMapping {
    /// The group as the provider names it in the groups claim (matched
    /// exactly: Okta sends names, Entra ID object ids unless told otherwise).
    pub group: String,
    /// What its members may do.
    pub scopes: Scopes,
}

impl RoleMapping {
    /// A mapping of a named group to at least one scope.
    ///
    /// # Errors
    /// An empty or overlong group name, or no scope.
    pub fn new(group: &str, scopes: Scopes) -> Result<Self, DomainError> {
        let group = text("group", group)?;
        if scopes.as_slice().is_empty() {
            return Err(DomainError::invalid(
                "scope",
                "a group needs at least one scope (remove the mapping to take its access away)",
            ));
        }
        Ok(Self { group, scopes })
    }
}

/// What a person in `groups` may do: the union of their mapped groups'
/// scopes; `None` when no group of theirs is mapped (they are refused).
#[must_use]
pub fn scopes_for(groups: &[String], roles: &[RoleMapping]) -> Option<Scopes> {
    let mut mapped = roles
        .iter()
        .filter(|role| groups.contains(&role.group))
        .peekable();
    mapped.peek()?;
    Some(Scopes::from_list(
        mapped.flat_map(|role| role.scopes.as_slice().iter().copied()),
    ))
}

/// Who the provider says signed in, from a verified ID token (and userinfo).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProviderIdentity {
    /// The provider's subject identifier (`sub`).
    pub subject: String,
    /// `email`, when given.
    pub email: Option<String>,
    /// `preferred_username`, when given (Entra ID's user principal name).
    pub preferred_username: Option<String>,
    /// `name`, when given.
    pub name: Option<String>,
    /// The groups claim.
    pub groups: Vec<String>,
}

impl ProviderIdentity {
    /// The address equip shows for the person: `email`, else
    /// `preferred_username`, else the subject.
    #[must_use]
    pub fn shown_email(&self) -> String {
        self.email
            .as_deref()
            .or(self.preferred_username.as_deref())
            .filter(|e| !e.trim().is_empty())
            .unwrap_or(&self.subject)
            .trim()
            .to_owned()
    }
}

/// How long a session may live: since its last use, and in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// Ended when unused this long.
    pub idle: Duration,
    /// Ended this long after sign-in, used or not.
    pub max_age: Duration,
}

impl Default for SessionLimits {
    /// 8 hours idle, 7 days in all.
    fn default() -> Self {
        Self {
            idle: Duration::hours(8),
            max_age: Duration::days(7),
        }
    }
}

impl SessionLimits {
    /// Limits of at least a second each.
    ///
    /// # Errors
    /// A limit under a second.
    pub fn new(idle: Duration, max_age: Duration) -> Result<Self, DomainError> {
        if idle < Duration::seconds(1) || max_age < Duration::seconds(1) {
            return Err(DomainError::invalid(
                "session",
                "session timeouts must be at least one second",
            ));
        }
        Ok(Self { idle, max_age })
    }
}

/// A signed-in person's session. The store keeps the SHA-256 of its token,
/// never the token (the cookie's value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Its id (shown to operators; not the token).
    pub id: SessionId,
    /// The organization it acts for.
    pub organization_id: OrganizationId,
    /// SHA-256 of the token, lowercase hex.
    pub token_hash: String,
    /// The provider's subject.
    pub subject: String,
    /// The address shown for the person ([`ProviderIdentity::shown_email`]).
    pub email: String,
    /// The person's name, when the provider gave one.
    pub name: Option<String>,
    /// What the session may do (from the person's groups at sign-in).
    pub scopes: Scopes,
    /// When the person signed in.
    pub created_at: DateTime<Utc>,
    /// When it was last used (written at most every [`Session::touch_every`]).
    pub last_seen_at: DateTime<Utc>,
    /// When it ends whatever its use (sign-in + the limits' `max_age`).
    pub expires_at: DateTime<Utc>,
}

/// A session's token: the cookie's value, shown once to the browser.
pub struct SessionToken(String);

impl fmt::Debug for SessionToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionToken(<redacted>)")
    }
}

impl SessionToken {
    /// The token, for the cookie.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// What a session's use decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionVerdict {
    /// Live; `touch`: write its last use now.
    Live {
        /// Whether the recorded use is older than [`Session::touch_every`].
        touch: bool,
    },
    /// Ended: unused too long or too old.
    Expired,
}

impl Session {
    /// Opens a session for `identity` with `scopes` at `now`: the session to
    /// store and the token for the browser (256 random bits).
    ///
    /// # Errors
    /// Only when the operating system has no randomness to give.
    pub fn open(
        organization_id: OrganizationId,
        identity: &ProviderIdentity,
        scopes: Scopes,
        now: DateTime<Utc>,
        limits: SessionLimits,
    ) -> Result<(Self, SessionToken), DomainError> {
        let token = random_token()?;
        let session = Self {
            id: SessionId::new(),
            organization_id,
            token_hash: hash_token(&token),
            subject: identity.subject.clone(),
            email: identity.shown_email(),
            name: identity.name.clone(),
            scopes,
            created_at: now,
            last_seen_at: now,
            expires_at: now + limits.max_age,
        };
        Ok((session, SessionToken(token)))
    }

    /// Whether the session is live at `now`, and whether its use should be
    /// written.
    #[must_use]
    pub fn verdict(&self, now: DateTime<Utc>, limits: SessionLimits) -> SessionVerdict {
        if now >= self.expires_at || now >= self.idle_expires_at(limits) {
            return SessionVerdict::Expired;
        }
        SessionVerdict::Live {
            touch: now - self.last_seen_at >= Self::touch_every(limits),
        }
    }

    /// How old a recorded use may get before a request records a new one:
    /// [`TOUCH_EVERY`], or a quarter of a shorter idle timeout (so a session
    /// in use never idles out for want of a recorded use).
    #[must_use]
    pub fn touch_every(limits: SessionLimits) -> Duration {
        TOUCH_EVERY.min(limits.idle / 4)
    }

    /// When it ends if unused from now on (never after `expires_at`).
    #[must_use]
    pub fn idle_expires_at(&self, limits: SessionLimits) -> DateTime<Utc> {
        (self.last_seen_at + limits.idle).min(self.expires_at)
    }

    /// Whether it ended at `now` for a store deleting sessions last used
    /// before `idle_before` ([`Self::idle_cutoff`]): what the stores'
    /// deletions select.
    #[must_use]
    pub fn ended_by(&self, now: DateTime<Utc>, idle_before: DateTime<Utc>) -> bool {
        self.expires_at <= now || self.last_seen_at < idle_before
    }

    /// The oldest last use a live session may have at `now`: sessions last
    /// used before it may be deleted.
    #[must_use]
    pub fn idle_cutoff(now: DateTime<Utc>, limits: SessionLimits) -> DateTime<Utc> {
        now - limits.idle
    }
}

/// A sign-in in progress: what the callback needs to finish it. The state is
/// kept as its hash; the nonce and PKCE verifier for [`ATTEMPT_LIFETIME`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginAttempt {
    /// SHA-256 of the `state` sent to the provider.
    pub state_hash: String,
    /// The organization signing in.
    pub organization_id: OrganizationId,
    /// The nonce the ID token must carry.
    pub nonce: String,
    /// The PKCE code verifier.
    pub pkce_verifier: String,
    /// Where the console goes once signed in.
    pub next: Option<String>,
    /// When it began.
    pub created_at: DateTime<Utc>,
}

impl LoginAttempt {
    /// Whether it is too old to finish at `now`.
    #[must_use]
    pub fn expired(&self, now: DateTime<Utc>) -> bool {
        now - self.created_at >= ATTEMPT_LIFETIME
    }

    /// Attempts begun before this at `now` have expired and may be deleted.
    #[must_use]
    pub fn cutoff(now: DateTime<Utc>) -> DateTime<Utc> {
        now - ATTEMPT_LIFETIME
    }
}

/// Where a sign-in may return: a path of the console (`/console/…`, no `.`
/// or `..` segment), never another site (`//host`, a scheme, a backslash).
/// Anything else is ignored.
#[must_use]
pub fn next_path(raw: Option<&str>) -> Option<String> {
    let raw = raw?.trim();
    // The path's segments, before a query or fragment: no `.` or `..` that
    // would step out of the console.
    let path = raw.split(['?', '#']).next().unwrap_or("");
    let safe = raw.starts_with(CONSOLE_PATH)
        && !raw.contains('\\')
        && !raw.contains("//")
        && !path
            .split('/')
            .any(|segment| segment == "." || segment == "..")
        && !path.to_ascii_lowercase().contains("%2e")
        && raw.len() <= 2048
        && !raw.chars().any(char::is_control);
    safe.then(|| raw.to_owned())
}

/// SHA-256 of a token or state, lowercase hex: what the store keeps.
#[must_use]
pub fn hash_token(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether a cookie's value has the shape of a session token (64 hex
/// characters): anything else is refused without a store call.
#[must_use]
pub fn looks_like_token(raw: &str) -> bool {
    raw.len() == 64 && raw.bytes().all(|b| b.is_ascii_hexdigit())
}

fn random_token() -> Result<String, DomainError> {
    let mut buf = [0u8; 32];
    getrandom::fill(&mut buf)
        .map_err(|e| DomainError::invalid("session", format!("no randomness available: {e}")))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
#[path = "sso_tests.rs"]
mod tests;
