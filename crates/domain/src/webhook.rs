//! Webhooks: an organization's subscription to its events, delivered by
//! `POST` to a URL it chose (docs/webhooks.md).
//!
//! This module holds the rules, unit-tested without a network or a store:
//! - which URLs are accepted ([`WebhookUrl::parse`]) and which addresses a
//!   delivery may connect to ([`AddressPolicy`], [`is_private`]);
//! - the signatures of a delivery: equip's (and Stripe's) `Equip-Signature`
//!   ([`signature_header`]) and Standard Webhooks' `webhook-signature`
//!   ([`standard_signature_header`]), under every secret still valid
//!   ([`SigningSecrets::valid_at`]); a secret's rotation
//!   ([`SigningSecrets::rotated`], [`RotationOverlap`]);
//! - what follows a failed attempt: the back-off, giving up on an event after
//!   [`RetryPolicy::retry_window`] and disabling a webhook that has failed
//!   continuously for [`RetryPolicy::disable_after`] ([`RetryPolicy::after_failure`]).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::error::DomainError;
use crate::event::EventType;
use crate::ids::{EventId, OrganizationId, WebhookId};

/// Longest accepted URL (characters).
pub const MAX_URL_CHARS: usize = 2000;
/// The prefix of a webhook's signing secret.
pub const SECRET_PREFIX: &str = "whsec_";
/// Random bytes of a secret (shown as hex after [`SECRET_PREFIX`]).
pub const SECRET_BYTES: usize = 32;
/// The most webhooks one organization may have.
pub const MAX_WEBHOOKS_PER_ORGANIZATION: usize = 100;
/// An organization that has [`MAX_WEBHOOKS_PER_ORGANIZATION`] webhooks
/// already: no other is added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an organization may have at most {MAX_WEBHOOKS_PER_ORGANIZATION} webhooks")]
pub struct WebhookLimitReached;

/// Whether an organization that has `existing` webhooks may have one more.
/// A store decides it inside the transaction that adds the webhook, after
/// taking the organization's write lock, so concurrent creates never pass
/// the limit together.
///
/// # Errors
/// [`WebhookLimitReached`] at the limit.
pub fn room_for_another(existing: usize) -> Result<(), WebhookLimitReached> {
    if existing >= MAX_WEBHOOKS_PER_ORGANIZATION {
        Err(WebhookLimitReached)
    } else {
        Ok(())
    }
}

/// A rotation found the webhook's secret changed by another rotation since
/// it read it: nothing was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the webhook's secret was rotated by another request meanwhile; rotate again")]
pub struct SecretChangedMeanwhile;

/// Longest kept error text of a delivery attempt (characters).
pub const MAX_ERROR_CHARS: usize = 500;

wire_enum! {
    /// Whether a webhook receives events.
    WebhookStatus, field = "status", case = exact {
        /// Receives its events.
        Active => "ACTIVE",
        /// Stopped: it failed continuously for too long.
        Disabled => "DISABLED",
    }
}

wire_enum! {
    /// What became of one delivery attempt.
    AttemptOutcome, field = "outcome", case = exact {
        /// The receiver answered 2xx.
        Succeeded => "SUCCEEDED",
        /// It failed and will be tried again.
        Retrying => "RETRYING",
        /// It failed and the event was given up on (its retry window ended).
        Failed => "FAILED",
    }
}

/// Where a webhook's delivery stands: the last event handled and the state of
/// the retries of the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeliveryState {
    /// The last sequence delivered (or given up on); the next event
    /// delivered is the first matching one after it.
    pub position: i64,
    /// Failed attempts of the event after `position`, in a row.
    pub attempts: u32,
    /// When the first of those attempts failed.
    pub retry_since: Option<DateTime<Utc>>,
    /// Not before this time (after a failure).
    pub next_attempt_at: Option<DateTime<Utc>>,
}

impl DeliveryState {
    /// The state once the organization's events up to `pruned_through` are
    /// pruned: a webhook behind them goes on after them, without the
    /// retries of an event that is gone; `None` when it is not behind. Every
    /// store applies this when it claims a webhook.
    #[must_use]
    pub fn after_pruning(self, pruned_through: i64) -> Option<Self> {
        (self.position < pruned_through).then(|| Self {
            position: pruned_through,
            ..Self::default()
        })
    }
}

/// A webhook subscription.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Webhook {
    /// Identifier.
    pub id: WebhookId,
    /// Owning organization.
    pub organization_id: OrganizationId,
    /// Where events are posted.
    pub url: String,
    /// The event types delivered; empty: every type.
    pub types: Vec<EventType>,
    /// The signing secret (shown once, at creation or rotation).
    pub secret: String,
    /// The secret it had before its last rotation, still signing until its
    /// overlap ends (`None`: none, or never rotated).
    pub previous_secret: Option<PreviousSecret>,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// Active or disabled.
    pub status: WebhookStatus,
    /// When it was disabled.
    pub disabled_at: Option<DateTime<Utc>>,
    /// Why it was disabled.
    pub disabled_reason: Option<String>,
    /// Failing without a success in between since then.
    pub failing_since: Option<DateTime<Utc>>,
    /// Delivery progress.
    pub delivery: DeliveryState,
    /// The lease of the dispatcher delivering it (the claim token).
    pub claimed_until: Option<DateTime<Utc>>,
    /// Number of the last delivery-log row written.
    pub last_attempt_number: i64,
}

impl Webhook {
    /// A new active webhook with a fresh secret. Its position is set by the
    /// store (the organization's last event when it is stored: a webhook
    /// receives the events after its creation).
    ///
    /// # Errors
    /// Only when the operating system has no randomness to give.
    pub fn new(
        organization_id: OrganizationId,
        url: &WebhookUrl,
        types: Vec<EventType>,
        now: DateTime<Utc>,
    ) -> Result<Self, DomainError> {
        Ok(Self {
            id: WebhookId::new(),
            organization_id,
            url: url.as_str().to_owned(),
            types,
            secret: generate_secret()?,
            previous_secret: None,
            created_at: now,
            status: WebhookStatus::Active,
            disabled_at: None,
            disabled_reason: None,
            failing_since: None,
            delivery: DeliveryState::default(),
            claimed_until: None,
            last_attempt_number: 0,
        })
    }

    /// Whether events of `kind` are delivered to it.
    #[must_use]
    pub fn wants(&self, kind: EventType) -> bool {
        self.types.is_empty() || self.types.contains(&kind)
    }
}

/// The event types of a webhook from their stored (or given) names: every
/// name parsed, duplicates dropped; empty means every type.
///
/// # Errors
/// [`DomainError::Invalid`] naming `types` for an unknown type.
pub fn parse_types<'a>(
    names: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<EventType>, DomainError> {
    let mut types = Vec::new();
    for name in names {
        let kind = EventType::parse(name)?;
        if !types.contains(&kind) {
            types.push(kind);
        }
    }
    Ok(types)
}

/// One delivery attempt, as the delivery log keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryAttempt {
    /// The webhook.
    pub webhook_id: WebhookId,
    /// Its organization.
    pub organization_id: OrganizationId,
    /// Increases by one per attempt of the webhook (the log's order).
    pub number: i64,
    /// The event delivered.
    pub event_id: EventId,
    /// Its sequence.
    pub sequence: i64,
    /// When the attempt started.
    pub attempted_at: DateTime<Utc>,
    /// The receiver's status; `None` on a time-out or connection error.
    pub status_code: Option<u16>,
    /// Time to the answer (or the failure), milliseconds.
    pub latency_ms: u64,
    /// What went wrong; `None` on success.
    pub error: Option<String>,
    /// What became of it.
    pub outcome: AttemptOutcome,
}

/// What a dispatcher writes after delivering: the webhook's new state and the
/// attempts since its last save.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookProgress {
    /// The new delivery state.
    pub delivery: DeliveryState,
    /// The new `failing_since`.
    pub failing_since: Option<DateTime<Utc>>,
    /// Disable it now, with this reason.
    pub disable: Option<(DateTime<Utc>, String)>,
    /// Attempts to append to the log (numbers after `last_attempt_number`).
    pub attempts: Vec<DeliveryAttempt>,
    /// The number of the last attempt written (unchanged when none).
    pub last_attempt_number: i64,
    /// The new lease; `None` releases the webhook.
    pub lease_until: Option<DateTime<Utc>>,
}

/// A webhook's secret before its last rotation, and the end of the overlap
/// during which deliveries are still signed with it too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviousSecret {
    /// The secret.
    pub secret: String,
    /// Deliveries made from this time on are no longer signed with it.
    pub until: DateTime<Utc>,
}

/// The secrets a webhook signs with: its secret, and the one before it
/// during a rotation's overlap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigningSecrets {
    /// The current secret.
    pub current: String,
    /// The previous one, with the end of its overlap.
    pub previous: Option<PreviousSecret>,
}

impl SigningSecrets {
    /// The secrets a delivery made at `now` is signed with, the current one
    /// first; the previous one while `now` is before the end of its overlap.
    #[must_use]
    pub fn valid_at(&self, now: DateTime<Utc>) -> Vec<&str> {
        let mut secrets = vec![self.current.as_str()];
        if let (Some(previous), Some(_)) = (&self.previous, self.overlap_until(now)) {
            secrets.push(previous.secret.as_str());
        }
        secrets
    }

    /// The previous secret's overlap end, while it lasts at `now` (what a
    /// webhook's `previousSecretExpiresAt` shows).
    #[must_use]
    pub fn overlap_until(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.previous
            .as_ref()
            .map(|p| p.until)
            .filter(|until| now < *until)
    }

    /// The secrets after a rotation to `new` at `now`: the current secret
    /// signs beside `new` until `now + overlap` (not at all for a zero
    /// overlap); a previous secret still in its overlap is dropped (two
    /// secrets at most).
    #[must_use]
    pub fn rotated(&self, new: String, now: DateTime<Utc>, overlap: RotationOverlap) -> Self {
        let until = now + overlap.duration();
        Self {
            current: new,
            previous: (until > now).then(|| PreviousSecret {
                secret: self.current.clone(),
                until,
            }),
        }
    }
}

impl Webhook {
    /// Its signing secrets.
    #[must_use]
    pub fn signing_secrets(&self) -> SigningSecrets {
        SigningSecrets {
            current: self.secret.clone(),
            previous: self.previous_secret.clone(),
        }
    }
}

/// How long a rotated-out secret keeps signing deliveries beside the new
/// one: 0 (the old secret stops at once) to [`RotationOverlap::MAX_SECONDS`],
/// by default [`RotationOverlap::DEFAULT_SECONDS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RotationOverlap(u32);

impl RotationOverlap {
    /// The default overlap: 24 hours.
    pub const DEFAULT_SECONDS: u32 = 86_400;
    /// The longest overlap: 7 days.
    pub const MAX_SECONDS: u32 = 7 * 86_400;

    /// An overlap of `seconds`; the default when `None`.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming `overlapSeconds` past the maximum.
    pub fn parse(seconds: Option<i64>) -> Result<Self, DomainError> {
        let seconds = seconds.unwrap_or(i64::from(Self::DEFAULT_SECONDS));
        u32::try_from(seconds)
            .ok()
            .filter(|s| *s <= Self::MAX_SECONDS)
            .map(Self)
            .ok_or_else(|| {
                DomainError::invalid(
                    "overlapSeconds",
                    format!(
                        "must be from 0 to {} (7 days), got {seconds}",
                        Self::MAX_SECONDS
                    ),
                )
            })
    }

    /// The overlap as a duration.
    #[must_use]
    pub fn duration(self) -> Duration {
        Duration::seconds(i64::from(self.0))
    }
}

/// A generated secret: [`SECRET_PREFIX`] and [`SECRET_BYTES`] random bytes in hex.
///
/// # Errors
/// Only when the operating system has no randomness to give.
pub fn generate_secret() -> Result<String, DomainError> {
    let mut buf = [0u8; SECRET_BYTES];
    getrandom::fill(&mut buf)
        .map_err(|e| DomainError::invalid("secret", format!("no randomness available: {e}")))?;
    Ok(format!("{SECRET_PREFIX}{}", hex(&buf)))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The lowercase hex HMAC-SHA256 of `"<timestamp>.<body>"` under `secret`.
#[must_use]
pub fn signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    // HMAC takes a key of any length: new_from_slice cannot fail for it.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
        return String::new();
    };
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    hex(&mac.finalize().into_bytes())
}

/// The `Equip-Signature` header of a delivery: `t=<unix seconds>,v1=<signature>`,
/// with one `v1=` per secret (the current one first; two during a rotation's
/// overlap). The format of Stripe's `Stripe-Signature`, whose verifiers
/// accept a header when any `v1` matches.
#[must_use]
pub fn signature_header(secrets: &[&str], timestamp: i64, body: &[u8]) -> String {
    let mut header = format!("t={timestamp}");
    for secret in secrets {
        header.push_str(",v1=");
        header.push_str(&signature(secret, timestamp, body));
    }
    header
}

/// The key Standard Webhooks' libraries derive from a secret given to them
/// as it is: the part after `whsec_`, read as base64 (a hex digit is a base64
/// character, so equip's secrets read as 48 bytes). `None` for a secret that
/// is not base64 (equip makes none).
#[must_use]
pub fn standard_key(secret: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    let encoded = secret.strip_prefix(SECRET_PREFIX).unwrap_or(secret);
    base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()
        .filter(|k| !k.is_empty())
}

/// The `webhook-signature` header of Standard Webhooks
/// (`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, under
/// [`standard_key`] of each secret; signatures separated by spaces, the
/// current secret's first). Sent with `webhook-id` (the event's id) and
/// `webhook-timestamp`.
#[must_use]
pub fn standard_signature_header(
    secrets: &[&str],
    message_id: &str,
    timestamp: i64,
    body: &[u8],
) -> String {
    use base64::Engine as _;
    secrets
        .iter()
        .filter_map(|secret| {
            let key = standard_key(secret)?;
            let mut mac = Hmac::<Sha256>::new_from_slice(&key).ok()?;
            mac.update(message_id.as_bytes());
            mac.update(b".");
            mac.update(timestamp.to_string().as_bytes());
            mac.update(b".");
            mac.update(body);
            let tag = mac.finalize().into_bytes();
            Some(format!(
                "v1,{}",
                base64::engine::general_purpose::STANDARD.encode(tag)
            ))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A URL accepted for a webhook (syntax only; the addresses its host
/// resolves to are checked by [`AddressPolicy`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookUrl {
    url: url::Url,
}

/// The host of a URL: a literal address, or a name to resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlHost {
    /// A literal IP address.
    Ip(IpAddr),
    /// A domain name.
    Name(String),
}

fn bad_url(message: impl Into<String>) -> DomainError {
    DomainError::invalid("url", message)
}

impl WebhookUrl {
    /// Parses and checks a webhook URL: absolute `https` or `http`, with a
    /// host, without credentials or a fragment, at most [`MAX_URL_CHARS`].
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming `url`.
    pub fn parse(raw: &str) -> Result<Self, DomainError> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Err(bad_url("url is required"));
        }
        if raw.chars().count() > MAX_URL_CHARS {
            return Err(bad_url(format!(
                "url is longer than {MAX_URL_CHARS} characters"
            )));
        }
        let url =
            url::Url::parse(raw).map_err(|e| bad_url(format!("url is not a valid URL: {e}")))?;
        if !matches!(url.scheme(), "https" | "http") {
            return Err(bad_url("url must use https (or http)"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad_url("url must not hold credentials (user:password@)"));
        }
        if url.fragment().is_some() {
            return Err(bad_url("url must not have a fragment (#…)"));
        }
        if matches!(url.host(), None | Some(url::Host::Domain(""))) {
            return Err(bad_url("url must name a host"));
        }
        Ok(Self { url })
    }

    /// The URL as stored and requested.
    #[must_use]
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// The host.
    #[must_use]
    pub fn host(&self) -> UrlHost {
        match self.url.host() {
            Some(url::Host::Ipv4(ip)) => UrlHost::Ip(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => UrlHost::Ip(IpAddr::V6(ip)),
            Some(url::Host::Domain(d)) => UrlHost::Name(d.to_owned()),
            None => UrlHost::Name(String::new()),
        }
    }

    /// The port (the scheme's default when not given).
    #[must_use]
    pub fn port(&self) -> u16 {
        self.url
            .port_or_known_default()
            .unwrap_or(if self.url.scheme() == "https" {
                443
            } else {
                80
            })
    }
}

/// Whether a delivery may connect to private addresses (`equip serve
/// --allow-private-webhooks`; tests and closed networks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AddressPolicy {
    /// Private, loopback and the other special ranges allowed.
    pub allow_private: bool,
}

impl AddressPolicy {
    /// Checks the addresses a host resolved to: refused when there are none,
    /// or when any of them is private (see [`is_private`]) and private
    /// addresses are not allowed.
    ///
    /// # Errors
    /// The reason, for a person (the address is named, the rule too).
    pub fn check(self, addrs: &[IpAddr]) -> Result<(), String> {
        if addrs.is_empty() {
            return Err("the host resolves to no address".into());
        }
        if self.allow_private {
            return Ok(());
        }
        match addrs.iter().find(|a| is_private(**a)) {
            Some(a) => Err(format!(
                "the host resolves to {a}, a private, loopback or reserved address; \
                 webhooks may only reach public addresses"
            )),
            None => Ok(()),
        }
    }
}

/// Whether `ip` is not a public unicast address: unspecified, loopback,
/// private (RFC 1918, unique local), link-local, shared (CGNAT), multicast,
/// broadcast, documentation, benchmarking, reserved, or an IPv6 form of one
/// of those (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo), or any
/// IPv4-translated address (`::ffff:0:a.b.c.d`, RFC 2765: not routed on the
/// Internet, and some stacks reach `a.b.c.d` through it).
#[must_use]
pub fn is_private(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_private_v4(v4),
        IpAddr::V6(v6) => is_private_v6(v6),
    }
}

fn is_private_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_broadcast()
        || ip.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240 // reserved
}

fn is_private_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_private_v4(v4);
    }
    // IPv4-translated ::ffff:0:a.b.c.d (RFC 2765 SIIT): never a public
    // destination; `[::ffff:0:7f00:1]` reaches 127.0.0.1 on Linux.
    if s[..4].iter().all(|x| *x == 0) && s[4] == 0xffff && s[5] == 0 {
        return true;
    }
    // IPv4-compatible (deprecated) ::a.b.c.d
    if s[..6].iter().all(|x| *x == 0) {
        let v4 = Ipv4Addr::new(
            (s[6] >> 8) as u8,
            (s[6] & 0xff) as u8,
            (s[7] >> 8) as u8,
            (s[7] & 0xff) as u8,
        );
        return ip.is_unspecified() || ip.is_loopback() || is_private_v4(v4);
    }
    ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (s[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (s[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated) fec0::/10
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation 2001:db8::/32
        || (s[0] == 0x2001 && s[1] < 0x0200) // IETF protocol assignments, Teredo 2001::/23
        || s[0] == 0x2002 // 6to4 (embeds an IPv4 address)
        || (s[0] == 0x0064 && s[1] == 0xff9b) // NAT64 64:ff9b::/96 and 64:ff9b:1::/48
        || (s[0] == 0x0100 && s[1] == 0 && s[2] == 0 && s[3] == 0) // discard 100::/64
        || (s[0] == 0x3fff && s[1] < 0x1000) // documentation 3fff::/20
}

/// What follows a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterFailure {
    /// Try the same event again at this time.
    RetryAt(DateTime<Utc>),
    /// Give up on the event and go on with the next; `disable` when the
    /// webhook has failed continuously for too long (it stops there).
    GiveUp {
        /// Disable the webhook.
        disable: bool,
    },
}

/// Back-off and the 24-hour rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Delay after the first failure; doubled after each further one.
    pub base: StdDuration,
    /// Longest delay.
    pub max: StdDuration,
    /// An event is given up on this long after its first failed attempt.
    pub retry_window: StdDuration,
    /// A webhook failing continuously this long is disabled.
    pub disable_after: StdDuration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            base: StdDuration::from_secs(1),
            max: StdDuration::from_secs(300),
            retry_window: StdDuration::from_secs(24 * 3600),
            disable_after: StdDuration::from_secs(24 * 3600),
        }
    }
}

fn chrono_of(d: StdDuration) -> Duration {
    Duration::from_std(d).unwrap_or_else(|_| Duration::days(3650))
}

impl RetryPolicy {
    /// The delay after `attempts` failed attempts in a row (1 for the first):
    /// `base × 2^(attempts-1)`, at most `max`.
    #[must_use]
    pub fn delay(&self, attempts: u32) -> StdDuration {
        let shift = attempts.saturating_sub(1).min(30);
        self.base.saturating_mul(1u32 << shift).min(self.max)
    }

    /// What follows an attempt that failed at `now`, given the state before it
    /// (`retry_since` of the event, the webhook's `failing_since`; both
    /// `None` when this is the first failure).
    #[must_use]
    pub fn after_failure(
        &self,
        attempts: u32,
        retry_since: Option<DateTime<Utc>>,
        failing_since: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> AfterFailure {
        let retry_since = retry_since.unwrap_or(now);
        let failing_since = failing_since.unwrap_or(now);
        if now - retry_since >= chrono_of(self.retry_window) {
            return AfterFailure::GiveUp {
                disable: now - failing_since >= chrono_of(self.disable_after),
            };
        }
        if now - failing_since >= chrono_of(self.disable_after) {
            return AfterFailure::GiveUp { disable: true };
        }
        AfterFailure::RetryAt(now + chrono_of(self.delay(attempts.max(1))))
    }
}

/// The reason a webhook was disabled.
#[must_use]
pub fn disabled_reason(failing_since: DateTime<Utc>, policy: &RetryPolicy) -> String {
    let hours = policy.disable_after.as_secs_f64() / 3600.0;
    format!(
        "deliveries failed continuously since {} (at least {hours} hours); create a new webhook \
         once the receiver works again",
        failing_since.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    )
}

/// `text` cut to [`MAX_ERROR_CHARS`].
#[must_use]
pub fn error_text(text: &str) -> String {
    text.chars().take(MAX_ERROR_CHARS).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_webhook_behind_pruned_events_goes_on_after_them_without_retries() {
        let retrying = DeliveryState {
            position: 10,
            attempts: 3,
            retry_since: Some(Utc::now()),
            next_attempt_at: Some(Utc::now()),
        };
        assert_eq!(
            retrying.after_pruning(25),
            Some(DeliveryState {
                position: 25,
                ..DeliveryState::default()
            })
        );
        assert_eq!(retrying.after_pruning(10), None);
        assert_eq!(retrying.after_pruning(0), None);
    }

    fn field_of(e: DomainError) -> String {
        match e {
            DomainError::Invalid { field, .. } => field,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn urls_need_http_or_https_a_host_and_no_credentials() {
        for good in [
            "https://hooks.example.com/equip",
            "http://203.0.113.9:8080/x?y=1",
            "https://[2606:4700::1111]/h",
        ] {
            assert!(WebhookUrl::parse(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "hooks.example.com/x",
            "ftp://example.com/",
            "file:///etc/passwd",
            "https://user:pass@example.com/",
            "https://user@example.com/",
            "https://example.com/#frag",
            "https://",
            "https://:443/",
            "javascript:alert(1)",
        ] {
            let err = WebhookUrl::parse(bad).unwrap_err();
            assert_eq!(field_of(err), "url", "{bad}");
        }
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS));
        assert!(WebhookUrl::parse(&long).is_err());
        let u = WebhookUrl::parse("https://example.com/x").unwrap();
        assert_eq!(u.port(), 443);
        assert_eq!(u.host(), UrlHost::Name("example.com".into()));
        let u = WebhookUrl::parse("http://127.0.0.1:9/").unwrap();
        assert_eq!(u.port(), 9);
        assert_eq!(u.host(), UrlHost::Ip("127.0.0.1".parse().unwrap()));
    }

    #[test]
    fn private_and_special_addresses_are_recognised() {
        for private in [
            "0.0.0.0",
            "0.1.2.3",
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "198.18.0.1",
            "198.51.100.7",
            "203.0.113.7",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:0:7f00:1",
            "::ffff:0:8.8.8.8",
            "::127.0.0.1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "2001:db8::1",
            "64:ff9b::7f00:1",
            "2002:7f00:1::",
            "2001::1",
        ] {
            assert!(is_private(private.parse().unwrap()), "{private}");
        }
        for public in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.1",
            "172.32.0.1",
            "2606:4700::1111",
            "2a00:1450:4001::1",
            "::ffff:8.8.8.8",
        ] {
            assert!(!is_private(public.parse().unwrap()), "{public}");
        }
    }

    #[test]
    fn an_organization_has_at_most_the_limit_of_webhooks() {
        assert_eq!(room_for_another(0), Ok(()));
        assert_eq!(room_for_another(MAX_WEBHOOKS_PER_ORGANIZATION - 1), Ok(()));
        assert_eq!(
            room_for_another(MAX_WEBHOOKS_PER_ORGANIZATION),
            Err(WebhookLimitReached)
        );
        assert_eq!(
            room_for_another(MAX_WEBHOOKS_PER_ORGANIZATION + 7),
            Err(WebhookLimitReached)
        );
    }

    #[test]
    fn the_policy_refuses_any_private_address_unless_allowed() {
        let public: IpAddr = "8.8.8.8".parse().unwrap();
        let private: IpAddr = "10.0.0.1".parse().unwrap();
        let strict = AddressPolicy::default();
        assert!(strict.check(&[public]).is_ok());
        assert!(strict
            .check(&[public, private])
            .unwrap_err()
            .contains("10.0.0.1"));
        assert!(strict.check(&[]).is_err());
        let open = AddressPolicy {
            allow_private: true,
        };
        assert!(open.check(&[private]).is_ok());
        assert!(open.check(&[]).is_err());
    }

    #[test]
    fn signatures_are_hmac_sha256_of_time_dot_body() {
        // RFC 4231 test case 2 ("Jefe"), with the message split as t + "." + body.
        let sig = signature("Jefe", 0, b"what do ya want for nothing?");
        // HMAC-SHA256("Jefe", "0.what do ya want for nothing?") computed independently:
        assert_eq!(sig.len(), 64);
        assert!(sig
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        // The same key and message give the same signature; any change another.
        assert_eq!(sig, signature("Jefe", 0, b"what do ya want for nothing?"));
        assert_ne!(sig, signature("Jefe", 1, b"what do ya want for nothing?"));
        assert_ne!(sig, signature("Jefx", 0, b"what do ya want for nothing?"));
        // Known answer: RFC 4231 case 2 when the message is exactly the body.
        let mut mac = Hmac::<Sha256>::new_from_slice(b"Jefe").unwrap();
        mac.update(b"what do ya want for nothing?");
        assert_eq!(
            hex(&mac.finalize().into_bytes()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            signature_header(&["k"], 1_700_000_000, b"{}"),
            format!("t=1700000000,v1={}", signature("k", 1_700_000_000, b"{}"))
        );
        assert_eq!(
            signature_header(&["k", "old"], 1_700_000_000, b"{}"),
            format!(
                "t=1700000000,v1={},v1={}",
                signature("k", 1_700_000_000, b"{}"),
                signature("old", 1_700_000_000, b"{}")
            )
        );
    }

    #[test]
    fn standard_webhooks_signatures_match_the_specification() {
        // The example of the Standard Webhooks specification: secret
        // "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id "msg_p5jXN8AQM9LWM0D4loKWxJek",
        // timestamp 1614265330, body {"test": 2432232314}.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let header = standard_signature_header(
            &[secret],
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1_614_265_330,
            br#"{"test": 2432232314}"#,
        );
        assert_eq!(header, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        // Two secrets: two signatures, separated by a space, current first.
        let two = standard_signature_header(&[secret, secret], "m", 1, b"x");
        let parts: Vec<&str> = two.split(' ').collect();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0], parts[1]);
        // equip's hex secrets read as base64: 64 characters, 48 bytes.
        let ours = generate_secret().unwrap();
        assert_eq!(standard_key(&ours).unwrap().len(), 48);
        assert!(standard_key("whsec_").is_none());
    }

    #[test]
    fn a_rotation_keeps_the_old_secret_for_its_overlap_only() {
        let t0 = Utc::now();
        let secrets = SigningSecrets {
            current: "a".into(),
            previous: None,
        };
        assert_eq!(secrets.valid_at(t0), ["a"]);
        let day = RotationOverlap::parse(None).unwrap();
        assert_eq!(day.duration(), Duration::hours(24));
        let rotated = secrets.rotated("b".into(), t0, day);
        assert_eq!(rotated.valid_at(t0), ["b", "a"]);
        assert_eq!(rotated.valid_at(t0 + Duration::hours(23)), ["b", "a"]);
        assert_eq!(rotated.valid_at(t0 + Duration::hours(24)), ["b"]);
        assert_eq!(rotated.overlap_until(t0), Some(t0 + Duration::hours(24)));
        assert_eq!(rotated.overlap_until(t0 + Duration::hours(25)), None);
        // Rotating again during the overlap: the oldest is dropped.
        let again = rotated.rotated("c".into(), t0 + Duration::hours(1), day);
        assert_eq!(again.valid_at(t0 + Duration::hours(1)), ["c", "b"]);
        // A zero overlap: the old secret stops at once.
        let now = RotationOverlap::parse(Some(0)).unwrap();
        let at_once = rotated.rotated("d".into(), t0, now);
        assert_eq!(at_once.previous, None);
        assert_eq!(at_once.valid_at(t0), ["d"]);
        assert!(RotationOverlap::parse(Some(-1)).is_err());
        assert!(RotationOverlap::parse(Some(i64::from(RotationOverlap::MAX_SECONDS) + 1)).is_err());
        assert!(RotationOverlap::parse(Some(i64::from(RotationOverlap::MAX_SECONDS))).is_ok());
    }

    #[test]
    fn secrets_are_prefixed_random_hex() {
        let a = generate_secret().unwrap();
        let b = generate_secret().unwrap();
        assert!(a.starts_with(SECRET_PREFIX));
        assert_eq!(a.len(), SECRET_PREFIX.len() + 2 * SECRET_BYTES);
        assert_ne!(a, b);
    }

    #[test]
    fn back_off_doubles_up_to_the_cap() {
        let p = RetryPolicy::default();
        assert_eq!(p.delay(1), StdDuration::from_secs(1));
        assert_eq!(p.delay(2), StdDuration::from_secs(2));
        assert_eq!(p.delay(3), StdDuration::from_secs(4));
        assert_eq!(p.delay(9), StdDuration::from_secs(256));
        assert_eq!(p.delay(10), StdDuration::from_secs(300));
        assert_eq!(p.delay(1000), StdDuration::from_secs(300));
    }

    #[test]
    fn an_event_is_retried_for_a_day_then_given_up_and_the_webhook_disabled() {
        let p = RetryPolicy::default();
        let t0 = Utc::now();
        // First failure: retry after the base delay.
        assert_eq!(
            p.after_failure(1, None, None, t0),
            AfterFailure::RetryAt(t0 + Duration::seconds(1))
        );
        let later = t0 + Duration::hours(23);
        assert_eq!(
            p.after_failure(20, Some(t0), Some(t0), later),
            AfterFailure::RetryAt(later + Duration::seconds(300))
        );
        let day = t0 + Duration::hours(24);
        assert_eq!(
            p.after_failure(21, Some(t0), Some(t0), day),
            AfterFailure::GiveUp { disable: true }
        );
        // An event failing for a day after the webhook had recovered in
        // between (failing_since later than retry_since cannot happen; a
        // shorter failing period only gives the event up).
        let policy = RetryPolicy {
            disable_after: StdDuration::from_secs(48 * 3600),
            ..p
        };
        assert_eq!(
            policy.after_failure(21, Some(t0), Some(t0), day),
            AfterFailure::GiveUp { disable: false }
        );
        // The webhook failing for longer than disable_after disables it
        // even while the event's own window runs.
        let policy = RetryPolicy {
            retry_window: StdDuration::from_secs(48 * 3600),
            ..p
        };
        assert_eq!(
            policy.after_failure(21, Some(day), Some(t0), day),
            AfterFailure::GiveUp { disable: true }
        );
    }

    #[test]
    fn types_are_parsed_once_each() {
        assert_eq!(
            parse_types(["person.created", "person.created", "group.updated"]).unwrap(),
            vec![EventType::PersonCreated, EventType::GroupUpdated]
        );
        assert_eq!(field_of(parse_types(["nope"]).unwrap_err()), "types");
        assert!(parse_types([]).unwrap().is_empty());
    }
}
