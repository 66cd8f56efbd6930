//! New-joiner reminders and the email outbox they are delivered from.
//!
//! A reminder, its audit record and its email are written in one transaction;
//! a dispatcher then claims outbox messages, sends them and marks them sent, or
//! schedules a retry with back-off, or gives up (dead) after the last attempt.

use chrono::{DateTime, Duration, Utc};

use crate::ids::{OrganizationId, OutboxMessageId, PersonId, ReminderId};

wire_enum! {
    /// Delivery state of a reminder's email.
    DeliveryStatus, field = "status" {
        /// Waiting in the outbox (possibly after failed attempts).
        Pending => "PENDING",
        /// Delivered to the mail transport.
        Sent => "SENT",
        /// Given up after the last attempt.
        Dead => "DEAD",
    }
}

/// A reminder sent to a new joiner, kept for audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reminder {
    /// Identifier.
    pub id: ReminderId,
    /// Owning organization.
    pub organization_id: OrganizationId,
    /// The new joiner.
    pub person_id: PersonId,
    /// Who asked for it; `None` when triggered through the API without a sender.
    pub sender_person_id: Option<PersonId>,
    /// Delivery state of its email.
    pub status: DeliveryStatus,
    /// When it was asked for.
    pub created_at: DateTime<Utc>,
}

/// An email waiting in, or delivered from, the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxMessage {
    /// Identifier; also the basis of the Message-ID.
    pub id: OutboxMessageId,
    /// Owning organization.
    pub organization_id: OrganizationId,
    /// The reminder it belongs to.
    pub reminder_id: ReminderId,
    /// Recipient address.
    pub recipient: String,
    /// Subject line.
    pub subject: String,
    /// Plain-text body.
    pub body_text: String,
    /// HTML body.
    pub body_html: String,
    /// Delivery state.
    pub status: DeliveryStatus,
    /// Attempts made so far.
    pub attempts: i32,
    /// Earliest time of the next attempt.
    pub next_attempt_at: DateTime<Utc>,
    /// Last delivery error, for operators.
    pub last_error: Option<String>,
    /// When it was sent.
    pub sent_at: Option<DateTime<Utc>>,
    /// Creation time.
    pub created_at: DateTime<Utc>,
}

/// Attempts after which a message is dead.
pub const MAX_ATTEMPTS: i32 = 8;

/// Delay before the attempt after `attempts` failures: 30 s doubling, capped at one hour.
#[must_use]
pub fn retry_delay(attempts: i32) -> Duration {
    let exp = attempts.clamp(0, 7) as u32;
    let secs = 30i64.saturating_mul(1i64 << exp);
    Duration::seconds(secs.min(3600))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_off_doubles_and_is_capped() {
        assert_eq!(retry_delay(0), Duration::seconds(30));
        assert_eq!(retry_delay(1), Duration::seconds(60));
        assert_eq!(retry_delay(3), Duration::seconds(240));
        assert_eq!(retry_delay(7), Duration::seconds(3600));
        assert_eq!(retry_delay(50), Duration::seconds(3600));
        assert_eq!(retry_delay(-3), Duration::seconds(30));
    }
}
