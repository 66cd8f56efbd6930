//! API keys: how a caller proves which organization it acts for, and what it may do.
//!
//! A key looks like `equip_<16 hex lookup prefix>_<64 hex secret>`: 320 random bits
//! in all. The store keeps only the prefix (to find the record) and the SHA-256 of
//! the whole key; presented keys are compared against that hash in constant time.
//! The key itself is shown once, when created, and never stored or logged.

use std::fmt;

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::DomainError;
use crate::ids::{ApiKeyId, OrganizationId};

wire_enum! {
    /// What a key may do. The default key gets all of them. Names are matched
    /// exactly (as the CLI and the store write them).
    Scope, field = "scope", case = exact, unknown = (|raw: &str| format!(
        "unknown scope '{raw}'; known scopes: {}",
        Scope::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
    )) {
        /// List and read inventory (and inventory levels).
        InventoryRead => "inventory:read",
        /// Create and change inventory items.
        InventoryWrite => "inventory:write",
        /// Read warehouses.
        WarehousesRead => "warehouses:read",
        /// Create and deactivate inventory levels.
        InventoryLevelsWrite => "inventory-levels:write",
        /// Send new-joiner reminders.
        NewJoinersWrite => "new-joiners:write",
        /// Everything under `/scim/v2`.
        Scim => "scim",
        /// Read the event feed and the histories of items and people.
        EventsRead => "events:read",
        /// Create, read and delete webhooks and read their deliveries.
        WebhooksWrite => "webhooks:write",
        /// List and read return orders and the organization's settings.
        ReturnsRead => "returns:read",
        /// Create and change return orders, receive items at a warehouse,
        /// release holds, change the organization's hold period.
        ReturnsWrite => "returns:write",
        /// Change a package's contents.
        PackagesWrite => "packages:write",
        /// List and read joiners' orders.
        OrdersRead => "orders:read",
        /// Ship order lines and record their delivery.
        OrdersWrite => "orders:write",
        /// List and read the organization's people, whatever their status
        /// (`/api/v1/people`).
        PeopleRead => "people:read",
    }
}

/// A set of scopes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scopes(Vec<Scope>);

impl Scopes {
    /// Every scope.
    #[must_use]
    pub fn all() -> Self {
        Self(Scope::ALL.to_vec())
    }

    /// A set from a list (duplicates removed, sorted).
    #[must_use]
    pub fn from_list(list: impl IntoIterator<Item = Scope>) -> Self {
        let mut v: Vec<Scope> = list.into_iter().collect();
        v.sort();
        v.dedup();
        Self(v)
    }

    /// Parses a space- or comma-separated list, as stored.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] for an unknown scope.
    pub fn parse_list(raw: &str) -> Result<Self, DomainError> {
        raw.split([' ', ','])
            .filter(|s| !s.is_empty())
            .map(Scope::parse)
            .collect::<Result<Vec<_>, _>>()
            .map(Self::from_list)
    }

    /// Whether the set holds `scope`.
    #[must_use]
    pub fn contains(&self, scope: Scope) -> bool {
        self.0.contains(&scope)
    }

    /// The scopes.
    #[must_use]
    pub fn as_slice(&self) -> &[Scope] {
        &self.0
    }

    /// Space-separated form, as stored.
    #[must_use]
    pub fn to_storage(&self) -> String {
        self.0
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A stored API key record. It holds no secret, only its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    /// Identifier of the record.
    pub id: ApiKeyId,
    /// The organization the key acts for.
    pub organization_id: OrganizationId,
    /// Public lookup prefix (16 hex characters).
    pub prefix: String,
    /// SHA-256 of the whole key, lowercase hex.
    pub hash: String,
    /// What the key may do.
    pub scopes: Scopes,
    /// Optional label for people (e.g. "Okta provisioning").
    pub label: Option<String>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it was revoked, if it was.
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A freshly generated key: the secret to show once, and the record to store.
pub struct GeneratedKey {
    /// The full key, to be shown to a person exactly once.
    pub secret: String,
    /// The record to store.
    pub record: ApiKey,
}

impl fmt::Debug for GeneratedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GeneratedKey")
            .field("secret", &"<redacted>")
            .field("record", &self.record)
            .finish()
    }
}

/// Why a presented key was refused. All of them answer 401 alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// No `Authorization` header.
    #[error("missing Authorization header")]
    Missing,
    /// Not of the form `ApiKey <key>`, or not an equip key.
    #[error("malformed Authorization header; expected 'ApiKey <key>'")]
    Malformed,
    /// No such key, or the secret did not match.
    #[error("unknown API key")]
    Unknown,
    /// The key was revoked.
    #[error("revoked API key")]
    Revoked,
    /// No session, or one that expired, was revoked or signed out.
    #[error("not signed in, or the session has ended; sign in again")]
    NoSession,
    /// Signed in with a session where only an API key answers.
    #[error("signed in with a session, not an API key")]
    NotAKey,
}

/// A key as presented in an `Authorization` header, split for lookup.
/// Its `Debug` form never shows the secret.
pub struct PresentedKey {
    prefix: String,
    whole: String,
}

impl fmt::Debug for PresentedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PresentedKey")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

const KEY_TAG: &str = "equip";
const PREFIX_HEX: usize = 16;
const SECRET_HEX: usize = 64;

impl PresentedKey {
    /// Parses an `Authorization` header value: the word `ApiKey` (any case), a
    /// space, then the key.
    ///
    /// # Errors
    /// [`AuthError::Malformed`] when the value is not of that form.
    pub fn from_header(value: &str) -> Result<Self, AuthError> {
        let (scheme, key) = value.trim().split_once(' ').ok_or(AuthError::Malformed)?;
        if !scheme.eq_ignore_ascii_case("ApiKey") {
            return Err(AuthError::Malformed);
        }
        Self::parse(key.trim())
    }

    /// Parses a bare key.
    ///
    /// # Errors
    /// [`AuthError::Malformed`] when `key` does not have the shape of an equip key.
    pub fn parse(key: &str) -> Result<Self, AuthError> {
        let mut parts = key.split('_');
        let (Some(tag), Some(prefix), Some(secret), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(AuthError::Malformed);
        };
        let is_hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
        if tag != KEY_TAG || !is_hex(prefix, PREFIX_HEX) || !is_hex(secret, SECRET_HEX) {
            return Err(AuthError::Malformed);
        }
        Ok(Self {
            prefix: prefix.to_ascii_lowercase(),
            whole: key.to_ascii_lowercase(),
        })
    }

    /// The public lookup prefix.
    #[must_use]
    pub fn prefix(&self) -> &str {
        &self.prefix
    }
}

fn sha256_hex(input: &str) -> String {
    let digest = Sha256::digest(input.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn random_hex(bytes: usize) -> Result<String, DomainError> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf)
        .map_err(|e| DomainError::invalid("key", format!("no randomness available: {e}")))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

impl ApiKey {
    /// Generates a new key for `organization_id` with `scopes`.
    ///
    /// # Errors
    /// Only when the operating system has no randomness to give.
    pub fn generate(
        organization_id: OrganizationId,
        scopes: Scopes,
        label: Option<String>,
        now: DateTime<Utc>,
    ) -> Result<GeneratedKey, DomainError> {
        let prefix = random_hex(PREFIX_HEX / 2)?;
        let secret = format!("{KEY_TAG}_{prefix}_{}", random_hex(SECRET_HEX / 2)?);
        let record = ApiKey {
            id: ApiKeyId::new(),
            organization_id,
            hash: sha256_hex(&secret),
            prefix,
            scopes,
            label,
            created_at: now,
            revoked_at: None,
        };
        Ok(GeneratedKey { secret, record })
    }

    /// Checks a presented key against this record, in constant time, and that the
    /// key is not revoked.
    ///
    /// # Errors
    /// [`AuthError::Unknown`] when the secret does not match, [`AuthError::Revoked`]
    /// when it matches a revoked key.
    pub fn verify(&self, presented: &PresentedKey) -> Result<(), AuthError> {
        let presented_hash = sha256_hex(&presented.whole);
        let equal: bool = presented_hash.as_bytes().ct_eq(self.hash.as_bytes()).into();
        if !equal {
            return Err(AuthError::Unknown);
        }
        if self.revoked_at.is_some() {
            return Err(AuthError::Revoked);
        }
        Ok(())
    }
}

/// The authenticated caller of a request: an organization, who is calling
/// and what it may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The caller's organization: every query of the request is scoped to it.
    pub organization_id: OrganizationId,
    /// The API key or the signed-in person's session.
    pub credential: Credential,
    /// What the key or the session may do.
    pub scopes: Scopes,
}

/// How a caller proved who it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// An API key, by its id.
    Key(ApiKeyId),
    /// A console session of a person signed in with the identity provider.
    Session {
        /// The session.
        id: crate::ids::SessionId,
        /// The person, as events name them.
        person: crate::event::PersonActor,
    },
}

impl Caller {
    /// A caller with an API key.
    #[must_use]
    pub fn with_key(organization_id: OrganizationId, key_id: ApiKeyId, scopes: Scopes) -> Self {
        Self {
            organization_id,
            credential: Credential::Key(key_id),
            scopes,
        }
    }

    /// The key's id, when the caller used an API key.
    #[must_use]
    pub const fn key_id(&self) -> Option<ApiKeyId> {
        match &self.credential {
            Credential::Key(id) => Some(*id),
            Credential::Session { .. } => None,
        }
    }

    /// Who the caller's writes are attributed to.
    #[must_use]
    pub fn actor(&self) -> crate::event::Actor {
        match &self.credential {
            Credential::Key(id) => crate::event::Actor::ApiKey(*id),
            Credential::Session { person, .. } => crate::event::Actor::Person(person.clone()),
        }
    }

    /// The id a rate limit counts the caller by: the key's or the session's.
    #[must_use]
    pub const fn credential_id(&self) -> uuid::Uuid {
        match &self.credential {
            Credential::Key(id) => *id.as_uuid(),
            Credential::Session { id, .. } => *id.as_uuid(),
        }
    }
}

/// A valid key or session lacks the scope an operation needs (answers 403).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MissingScope {
    /// The API key lacks it.
    #[error("this API key lacks the '{0}' scope")]
    Key(Scope),
    /// The signed-in person's groups do not give it.
    #[error("your groups at the identity provider do not give the '{0}' scope")]
    Session(Scope),
}

impl Caller {
    /// Ensures the caller holds `scope`.
    ///
    /// # Errors
    /// [`MissingScope`] when it does not.
    pub fn require(&self, scope: Scope) -> Result<(), MissingScope> {
        if self.scopes.contains(scope) {
            Ok(())
        } else if self.key_id().is_some() {
            Err(MissingScope::Key(scope))
        } else {
            Err(MissingScope::Session(scope))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(scopes: Scopes) -> GeneratedKey {
        ApiKey::generate(OrganizationId::new(), scopes, None, Utc::now()).unwrap()
    }

    #[test]
    fn generated_key_verifies_and_hash_is_not_the_key() {
        let k = key(Scopes::all());
        assert!(k.secret.starts_with("equip_"));
        assert!(!k.record.hash.contains(&k.secret));
        assert_eq!(k.record.hash.len(), 64);
        let presented = PresentedKey::from_header(&format!("ApiKey {}", k.secret)).unwrap();
        assert_eq!(presented.prefix(), k.record.prefix);
        assert_eq!(k.record.verify(&presented), Ok(()));
    }

    #[test]
    fn two_keys_differ() {
        assert_ne!(key(Scopes::all()).secret, key(Scopes::all()).secret);
    }

    #[test]
    fn wrong_secret_with_right_prefix_is_unknown() {
        let k = key(Scopes::all());
        let mut forged = k.secret.clone();
        let last = forged.pop().unwrap();
        forged.push(if last == '0' { '1' } else { '0' });
        let presented = PresentedKey::parse(&forged).unwrap();
        assert_eq!(k.record.verify(&presented), Err(AuthError::Unknown));
    }

    #[test]
    fn revoked_key_is_refused() {
        let mut k = key(Scopes::all());
        k.record.revoked_at = Some(Utc::now());
        let presented = PresentedKey::parse(&k.secret).unwrap();
        assert_eq!(k.record.verify(&presented), Err(AuthError::Revoked));
    }

    #[test]
    fn malformed_headers_are_refused() {
        for bad in [
            "",
            "Bearer abc",
            "ApiKey",
            "ApiKey ",
            "ApiKey equip_zz_yy",
            "ApiKey other_0123456789abcdef_0123",
            "Basic dXNlcjpwYXNz",
        ] {
            assert_eq!(
                PresentedKey::from_header(bad).unwrap_err(),
                AuthError::Malformed,
                "{bad}"
            );
        }
        let k = key(Scopes::all());
        assert!(PresentedKey::from_header(&format!("apikey {}", k.secret)).is_ok());
    }

    #[test]
    fn presented_key_debug_hides_the_secret() {
        let k = key(Scopes::all());
        let presented = PresentedKey::parse(&k.secret).unwrap();
        let shown = format!("{presented:?} {k:?}");
        assert!(!shown.contains(&k.secret[22..]));
    }

    #[test]
    fn scope_checks() {
        let caller = Caller::with_key(
            OrganizationId::new(),
            ApiKeyId::new(),
            Scopes::from_list([Scope::WarehousesRead]),
        );
        assert!(caller.require(Scope::WarehousesRead).is_ok());
        assert_eq!(
            caller.require(Scope::Scim),
            Err(MissingScope::Key(Scope::Scim))
        );
    }

    #[test]
    fn scopes_round_trip_through_storage_form() {
        let all = Scopes::all();
        assert_eq!(Scopes::parse_list(&all.to_storage()).unwrap(), all);
        assert_eq!(
            Scopes::parse_list("scim,inventory:read scim").unwrap(),
            Scopes::from_list([Scope::Scim, Scope::InventoryRead])
        );
        assert!(Scopes::parse_list("inventory:delete").is_err());
    }

    #[test]
    fn scope_names_match_exactly_and_an_unknown_one_lists_the_known() {
        assert_eq!(
            Scope::parse(" inventory:read ").unwrap(),
            Scope::InventoryRead
        );
        assert!(Scope::parse("INVENTORY:READ").is_err(), "case matters");
        let err = Scope::parse("admin").unwrap_err();
        assert_eq!(
            err.to_string(),
            DomainError::invalid(
                "scope",
                "unknown scope 'admin'; known scopes: inventory:read, inventory:write, \
                 warehouses:read, inventory-levels:write, new-joiners:write, scim, \
                 events:read, webhooks:write, returns:read, returns:write, packages:write, \
                 orders:read, orders:write, people:read"
            )
            .to_string()
        );
        assert!(matches!(err, DomainError::Invalid { field, .. } if field == "scope"));
    }
}
