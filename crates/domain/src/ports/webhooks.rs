//! Ports: an organization's webhooks and their delivery log (scoped to the
//! organization), and the delivery queue the dispatcher works from (across
//! organizations, with leases, like [`super::OutboxRepository`]).

use chrono::{DateTime, Utc};

use crate::error::StoreResult;
use crate::event_feed::Cursor;
use crate::ids::{OrganizationId, WebhookId};
use crate::service_stats::WebhookBacklog;
use crate::webhook::{
    DeliveryAttempt, SecretChangedMeanwhile, SigningSecrets, Webhook, WebhookLimitReached,
    WebhookProgress,
};

/// Webhooks of an organization.
pub trait WebhookRepository: Send + Sync {
    /// Stores a new webhook unless its organization has as many as it may
    /// ([`crate::webhook::room_for_another`], decided on the count read in
    /// the writing transaction under the organization's write lock, so
    /// concurrent creates never pass the limit). Its position becomes the
    /// organization's last event sequence at that moment (it receives the
    /// events after it); the stored webhook is returned.
    ///
    /// # Errors
    /// Backend failures; `Ok(Err(_))` at the limit (nothing written).
    fn insert_webhook(
        &self,
        webhook: &Webhook,
    ) -> StoreResult<Result<Webhook, WebhookLimitReached>>;

    /// The organization's webhooks, oldest first.
    ///
    /// # Errors
    /// Backend failures.
    fn list_webhooks(&self, organization: OrganizationId) -> StoreResult<Vec<Webhook>>;

    /// One webhook of the organization.
    ///
    /// # Errors
    /// Backend failures.
    fn find_webhook(
        &self,
        organization: OrganizationId,
        id: WebhookId,
    ) -> StoreResult<Option<Webhook>>;

    /// Replaces the signing secrets of a webhook of the organization with
    /// `secrets` (a rotation, [`SigningSecrets::rotated`]) if its current
    /// secret is still `expected` (the one the rotation was computed from),
    /// and nothing else: its position, state and lease are kept. Returns the
    /// stored webhook; `None` for an unknown webhook, `Some(Err(_))` when
    /// another rotation changed the secret meanwhile (nothing written).
    ///
    /// # Errors
    /// Backend failures.
    fn replace_webhook_secrets(
        &self,
        organization: OrganizationId,
        id: WebhookId,
        expected: &str,
        secrets: &SigningSecrets,
    ) -> StoreResult<Option<Result<Webhook, SecretChangedMeanwhile>>>;

    /// Deletes a webhook of the organization and its delivery log. Returns
    /// whether it existed.
    ///
    /// # Errors
    /// Backend failures.
    fn delete_webhook(&self, organization: OrganizationId, id: WebhookId) -> StoreResult<bool>;

    /// The webhook's delivery attempts, newest first, with numbers below
    /// `before` (all when `None`), at most `size`.
    ///
    /// # Errors
    /// Backend failures.
    fn list_webhook_attempts(
        &self,
        organization: OrganizationId,
        id: WebhookId,
        before: Option<Cursor>,
        size: usize,
    ) -> StoreResult<Vec<DeliveryAttempt>>;
}

/// The delivery queue, as the webhook dispatcher sees it. Not scoped to one
/// organization.
pub trait WebhookQueue: Send + Sync {
    /// Whether some webhook could be claimed at `now` (a cheap read, so that
    /// an idle dispatcher does not open write transactions).
    ///
    /// # Errors
    /// Backend failures.
    fn webhooks_due(&self, now: DateTime<Utc>) -> StoreResult<bool>;

    /// Active webhooks behind their organization's last event and the time
    /// of the oldest event they have yet to deliver (for the metrics; one
    /// cheap read, nothing locked).
    ///
    /// # Errors
    /// Backend failures.
    fn webhook_backlog(&self) -> StoreResult<WebhookBacklog>;

    /// Claims up to `limit` active webhooks that have events after their
    /// position, are due at `now` (no retry scheduled later) and are not
    /// leased by another dispatcher: sets their lease to `lease_until`. A
    /// position before the organization's pruned events moves past them.
    /// The returned webhooks carry `claimed_until = Some(lease_until)`. Two
    /// concurrent callers never claim the same webhook (PostgreSQL: `FOR
    /// UPDATE SKIP LOCKED`; SQLite: one writer).
    ///
    /// # Errors
    /// Backend failures.
    fn claim_webhooks(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<Vec<Webhook>>;

    /// Writes a claimed webhook's progress (its state, its new attempts, its
    /// new lease or its release) in one transaction, if `lease` is still its
    /// lease. Returns whether it did (false: the lease was lost, or the
    /// webhook deleted; nothing was written).
    ///
    /// # Errors
    /// Backend failures.
    fn save_webhook_progress(
        &self,
        id: WebhookId,
        lease: DateTime<Utc>,
        progress: &WebhookProgress,
    ) -> StoreResult<bool>;

    /// The signing secrets of the webhook `id` if it still exists under the
    /// lease `lease` (a cheap read by primary key); `None` otherwise. A
    /// dispatcher asks before each delivery, so that none starts after a
    /// DELETE was answered and each is signed with the secrets of that
    /// moment (a rotation applies from the next delivery).
    ///
    /// # Errors
    /// Backend failures.
    fn leased_webhook_secrets(
        &self,
        id: WebhookId,
        lease: DateTime<Utc>,
    ) -> StoreResult<Option<SigningSecrets>>;

    /// Deletes delivery attempts made before `cutoff`, at most `limit`.
    /// Returns how many it deleted.
    ///
    /// # Errors
    /// Backend failures.
    fn prune_webhook_attempts(&self, cutoff: DateTime<Utc>, limit: usize) -> StoreResult<usize>;
}
