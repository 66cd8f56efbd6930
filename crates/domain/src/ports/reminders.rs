//! Ports: new-joiner reminders (per organization) and the email outbox the
//! dispatcher delivers from (across organizations).

use chrono::{DateTime, Utc};

use crate::catalog::Package;
use crate::error::StoreResult;
use crate::ids::{OrganizationId, OutboxMessageId, PackageId, PersonId};
use crate::orders::OrderStatus;
use crate::reminder::{AfterFailure, OutboxMessage, OutboxStats, Reminder, ReminderDelivery};

/// Reminders of an organization.
pub trait ReminderRepository: Send + Sync {
    /// Finds a package of the organization (for the reminder email).
    ///
    /// # Errors
    /// Backend failures.
    fn find_reminder_package(
        &self,
        organization: OrganizationId,
        id: PackageId,
    ) -> StoreResult<Option<Package>>;

    /// The status of the person's order that is not CANCELLED (a person has
    /// at most one); `None` when they have none (for the reminder email).
    ///
    /// # Errors
    /// Backend failures.
    fn find_reminder_order_status(
        &self,
        organization: OrganizationId,
        person: PersonId,
    ) -> StoreResult<Option<OrderStatus>>;

    /// Stores a reminder (its audit record, sender included) and its email in
    /// the outbox, in **one transaction**: both or neither.
    ///
    /// # Errors
    /// [`crate::StoreError::MissingReference`] when the person or sender is not
    /// a person of the organization; backend failures.
    fn insert_reminder(&self, reminder: &Reminder, message: &OutboxMessage) -> StoreResult<()>;

    /// The reminders of a person with the delivery state of their emails,
    /// newest first (ties by id).
    ///
    /// # Errors
    /// Backend failures.
    fn list_reminders(
        &self,
        organization: OrganizationId,
        person: PersonId,
    ) -> StoreResult<Vec<ReminderDelivery>>;
}

/// The email outbox, as the dispatcher sees it. Not scoped to one
/// organization: the dispatcher delivers everyone's mail.
pub trait OutboxRepository: Send + Sync {
    /// Claims up to `limit` pending messages that are due at `now` and not
    /// leased by another dispatcher (no lease, or an expired one): sets their
    /// lease to `lease_until` and counts the attempt. The returned messages
    /// carry `claimed_until = Some(lease_until)` and their new attempt count.
    /// Two concurrent callers never claim the same message (PostgreSQL:
    /// `FOR UPDATE SKIP LOCKED`; SQLite: one writer).
    ///
    /// # Errors
    /// Backend failures.
    fn claim_outbox_messages(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<Vec<OutboxMessage>>;

    /// Marks a claimed message (and its reminder) sent at `at`, if the lease
    /// `lease` is still the message's. Returns whether it did.
    ///
    /// # Errors
    /// Backend failures.
    fn mark_outbox_sent(
        &self,
        id: OutboxMessageId,
        lease: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> StoreResult<bool>;

    /// Records a failed attempt of a claimed message: schedules the retry or
    /// marks it (and its reminder) dead, keeping `error` as the last error;
    /// releases the lease. Returns whether the lease was still the message's.
    ///
    /// # Errors
    /// Backend failures.
    fn mark_outbox_failed(
        &self,
        id: OutboxMessageId,
        lease: DateTime<Utc>,
        outcome: AfterFailure,
        error: &str,
    ) -> StoreResult<bool>;

    /// Depth of the outbox and age of its oldest pending message.
    ///
    /// # Errors
    /// Backend failures.
    fn outbox_stats(&self) -> StoreResult<OutboxStats>;
}
