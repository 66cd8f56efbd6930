//! New-joiner reminders and the email outbox they are delivered from.
//!
//! A reminder, its audit record and its email are written in one transaction;
//! a dispatcher then claims outbox messages, sends them and marks them sent, or
//! schedules a retry with back-off, or gives up (dead) after the last attempt.

use chrono::{DateTime, Duration, NaiveDate, Utc};

use crate::error::DomainError;
use crate::ids::{OrganizationId, OutboxMessageId, PersonId, ReminderId};
use crate::orders::OrderStatus;
use crate::person::{Person, PersonStatus};

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
    /// End of the lease of the dispatcher that claimed it; the lease value is
    /// also the claim's token (marking the outcome checks it).
    pub claimed_until: Option<DateTime<Utc>>,
    /// Creation time.
    pub created_at: DateTime<Utc>,
}

/// A reminder with the delivery state of its email, for operators and callers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReminderDelivery {
    /// The reminder (its `status` is the email's delivery status).
    pub reminder: Reminder,
    /// Delivery attempts made so far.
    pub attempts: i32,
    /// Earliest time of the next attempt (meaningful while pending).
    pub next_attempt_at: DateTime<Utc>,
    /// Last delivery error, if any.
    pub last_error: Option<String>,
    /// When the email was handed to the mail transport.
    pub sent_at: Option<DateTime<Utc>>,
}

/// How full the outbox is, across organizations (for operators).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OutboxStats {
    /// Messages waiting (including those waiting for a retry).
    pub pending: u64,
    /// Messages given up on.
    pub dead: u64,
    /// Creation time of the oldest pending message.
    pub oldest_pending_created_at: Option<DateTime<Utc>>,
}

impl OutboxStats {
    /// Age of the oldest pending message at `now` (zero when none is pending).
    #[must_use]
    pub fn oldest_pending_age(&self, now: DateTime<Utc>) -> Duration {
        self.oldest_pending_created_at
            .map_or_else(Duration::zero, |t| (now - t).max(Duration::zero()))
    }
}

/// Why a person cannot be reminded.
///
/// # Errors
/// [`DomainError::Conflict`] (`person`) when the person is not a new joiner on
/// `today`: offboarding or offboarded, no start date, or a start date already
/// past (see [`Person::is_new_joiner`]).
pub fn check_new_joiner(person: &Person, today: NaiveDate) -> Result<(), DomainError> {
    if person.is_new_joiner(today) {
        return Ok(());
    }
    let why = match (person.status, person.start_date) {
        (PersonStatus::Offboarding | PersonStatus::Offboarded, _) => {
            format!("person {} is being offboarded", person.id)
        }
        (PersonStatus::Active, None) => format!("person {} has no start date", person.id),
        (PersonStatus::Active, Some(d)) => {
            format!("person {} already started on {d}", person.id)
        }
    };
    Err(DomainError::conflict(
        "person",
        format!("{why}: not a new joiner"),
    ))
}

/// What the reminder says of the joiner's order (`status`: the status of
/// their order that is not CANCELLED; `None`: they have none): its status as
/// the API names it, and what that means for them.
#[must_use]
pub fn order_sentence(status: Option<OrderStatus>) -> String {
    let Some(status) = status else {
        return "Your equipment order: no order yet; your IT team will be in touch.".to_owned();
    };
    let meaning = match status {
        OrderStatus::Pending => "some of your equipment is waiting for stock",
        OrderStatus::Allocated => "your equipment is reserved for you and will be shipped soon",
        OrderStatus::Shipped => "your equipment is on its way",
        OrderStatus::Delivered => "your equipment has been delivered",
        OrderStatus::Cancelled => "it was cancelled; your IT team will be in touch",
    };
    format!("Your equipment order: {} ({meaning}).", status.as_str())
}

/// Retry schedule of the outbox: the delay doubles from `base` after each
/// failed attempt, up to `cap`; after `max_attempts` attempts a message is dead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Delay after the first failure.
    pub base: Duration,
    /// Longest delay.
    pub cap: Duration,
    /// Attempts after which a message is dead.
    pub max_attempts: i32,
}

impl Default for RetryPolicy {
    /// 30 s doubling, capped at one hour, [`MAX_ATTEMPTS`] attempts.
    fn default() -> Self {
        Self {
            base: Duration::seconds(30),
            cap: Duration::hours(1),
            max_attempts: MAX_ATTEMPTS,
        }
    }
}

/// What happens to a message after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterFailure {
    /// Try again at this time.
    RetryAt(DateTime<Utc>),
    /// Give up: the message is dead.
    Dead,
}

impl RetryPolicy {
    /// Delay before the attempt after `failures` failed attempts (1 = first failure).
    #[must_use]
    pub fn delay(&self, failures: i32) -> Duration {
        let exp = (failures - 1).clamp(0, 30) as u32;
        let base_ms = self.base.num_milliseconds().max(0);
        let ms = base_ms.saturating_mul(1i64 << exp.min(40));
        Duration::milliseconds(ms.min(self.cap.num_milliseconds().max(0)))
    }

    /// The fate of a message whose attempt number `attempts` (counting this one)
    /// failed at `now`; `permanent` errors (the server refused the message for
    /// good) are not retried.
    #[must_use]
    pub fn after_failure(
        &self,
        attempts: i32,
        permanent: bool,
        now: DateTime<Utc>,
    ) -> AfterFailure {
        if permanent || attempts >= self.max_attempts {
            AfterFailure::Dead
        } else {
            AfterFailure::RetryAt(now + self.delay(attempts))
        }
    }
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
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::ids::OrganizationId;

    fn person(status: PersonStatus, start: Option<NaiveDate>) -> Person {
        let now = Utc::now();
        Person {
            id: PersonId::new(),
            organization_id: OrganizationId::new(),
            external_id: None,
            user_name: "ana@example.com".into(),
            given_name: Some("Ana".into()),
            family_name: None,
            display_name: None,
            emails: vec![],
            phone_numbers: vec![],
            addresses: vec![],
            active: true,
            package_id: None,
            start_date: start,
            status,
            skip_user_activation: None,
            cpf_number: None,
            profile: Default::default(),
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    #[test]
    fn only_new_joiners_can_be_reminded() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
        let tomorrow = today.succ_opt();
        let yesterday = today.pred_opt();
        assert!(check_new_joiner(&person(PersonStatus::Active, tomorrow), today).is_ok());
        assert!(check_new_joiner(&person(PersonStatus::Active, Some(today)), today).is_ok());
        for (p, why) in [
            (person(PersonStatus::Active, yesterday), "already started"),
            (person(PersonStatus::Active, None), "no start date"),
            (person(PersonStatus::Offboarding, tomorrow), "offboarded"),
            (person(PersonStatus::Offboarded, tomorrow), "offboarded"),
        ] {
            match check_new_joiner(&p, today) {
                Err(DomainError::Conflict { entity, message }) => {
                    assert_eq!(entity, "person");
                    assert!(message.contains(why), "{message}");
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn the_order_sentence_names_the_status_or_no_order() {
        assert!(order_sentence(None).contains("no order"));
        for (status, says) in [
            (OrderStatus::Pending, "waiting for stock"),
            (OrderStatus::Allocated, "reserved"),
            (OrderStatus::Shipped, "on its way"),
            (OrderStatus::Delivered, "delivered"),
        ] {
            let s = order_sentence(Some(status));
            assert!(s.contains(status.as_str()), "{s}");
            assert!(s.contains(says), "{s}");
        }
    }

    #[test]
    fn retry_policy_doubles_caps_and_gives_up() {
        let p = RetryPolicy::default();
        assert_eq!(p.delay(1), Duration::seconds(30));
        assert_eq!(p.delay(2), Duration::seconds(60));
        assert_eq!(p.delay(4), Duration::seconds(240));
        assert_eq!(p.delay(9), Duration::hours(1));
        assert_eq!(p.delay(1000), Duration::hours(1));
        let now = Utc::now();
        assert_eq!(
            p.after_failure(1, false, now),
            AfterFailure::RetryAt(now + Duration::seconds(30))
        );
        assert_eq!(
            p.after_failure(MAX_ATTEMPTS, false, now),
            AfterFailure::Dead
        );
        assert_eq!(p.after_failure(1, true, now), AfterFailure::Dead);
        // The policy agrees with `retry_delay` (which counts failures from 0).
        for failures in 1..12 {
            assert_eq!(p.delay(failures), retry_delay(failures - 1));
        }
    }

    #[test]
    fn oldest_pending_age_is_never_negative() {
        let now = Utc::now();
        let mut stats = OutboxStats::default();
        assert_eq!(stats.oldest_pending_age(now), Duration::zero());
        stats.oldest_pending_created_at = Some(now - Duration::seconds(90));
        assert_eq!(stats.oldest_pending_age(now), Duration::seconds(90));
        stats.oldest_pending_created_at = Some(now + Duration::seconds(5));
        assert_eq!(stats.oldest_pending_age(now), Duration::zero());
    }

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
