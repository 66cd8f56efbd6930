//! An outbox message as an RFC 5322 message: `From` (configurable), `To` (the
//! recipient only), `Subject`, `Date` (when the reminder was written),
//! `Message-ID` (derived from the outbox id, so a retry carries the same id and
//! a receiver can recognise a duplicate), and a `multipart/alternative` body
//! with the plain text and the HTML.

use std::time::SystemTime;

use equip_domain::reminder::OutboxMessage;
use lettre::message::{Mailbox, MultiPart};
use lettre::Message;

use super::error::{SendError, SetupError};

/// Default `From` when none is configured.
pub const DEFAULT_FROM: &str = "equip <no-reply@equip.localhost>";

/// The configured `From` address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sender {
    mailbox: Mailbox,
}

impl Sender {
    /// Parses `Name <address>` or a bare address.
    ///
    /// # Errors
    /// [`SetupError::InvalidFrom`], saying what is wrong with `raw`.
    pub fn parse(raw: &str) -> Result<Self, SetupError> {
        raw.trim()
            .parse::<Mailbox>()
            .map(|mailbox| Self { mailbox })
            .map_err(|cause| SetupError::InvalidFrom {
                raw: raw.to_owned(),
                cause,
            })
    }

    /// The domain of the address (used in Message-IDs).
    #[must_use]
    pub fn domain(&self) -> &str {
        self.mailbox.email.domain()
    }

    /// The mailbox.
    #[must_use]
    pub fn mailbox(&self) -> &Mailbox {
        &self.mailbox
    }
}

/// The Message-ID of an outbox message: `<outbox-id@from-domain>`.
#[must_use]
pub fn message_id(message: &OutboxMessage, from: &Sender) -> String {
    format!("<{}@{}>", message.id, from.domain())
}

/// Builds the MIME message.
///
/// # Errors
/// [`SendError`] (permanent) when the recipient is not a valid address or the
/// message cannot be built: retrying would not help.
pub fn format_message(message: &OutboxMessage, from: &Sender) -> Result<Message, SendError> {
    let to: Mailbox = message
        .recipient
        .trim()
        .parse()
        .map_err(|e| SendError::permanent(format!("invalid recipient address: {e}")))?;
    Message::builder()
        .from(from.mailbox().clone())
        .to(to)
        .subject(message.subject.clone())
        .date(SystemTime::from(message.created_at))
        .message_id(Some(message_id(message, from)))
        .multipart(MultiPart::alternative_plain_html(
            message.body_text.clone(),
            message.body_html.clone(),
        ))
        .map_err(|e| SendError::permanent(format!("cannot build the message: {e}")))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use chrono::{TimeZone, Utc};
    use equip_domain::ids::{OrganizationId, OutboxMessageId, ReminderId};
    use equip_domain::reminder::DeliveryStatus;

    use super::*;

    fn message() -> OutboxMessage {
        let t = Utc.with_ymd_and_hms(2026, 11, 21, 9, 30, 0).unwrap();
        OutboxMessage {
            id: OutboxMessageId::new(),
            organization_id: OrganizationId::new(),
            reminder_id: ReminderId::new(),
            recipient: "ana@example.com".into(),
            subject: "Welcome aboard, Ana Müller".into(),
            body_text: "Hello Ana,\n".into(),
            body_html: "<p>Hello Ana,</p>".into(),
            status: DeliveryStatus::Pending,
            attempts: 0,
            next_attempt_at: t,
            last_error: None,
            sent_at: None,
            claimed_until: None,
            created_at: t,
        }
    }

    #[test]
    fn headers_and_both_bodies() {
        let m = message();
        let from = Sender::parse("People Team <people@acme.example>").unwrap();
        let raw = String::from_utf8(format_message(&m, &from).unwrap().formatted()).unwrap();
        assert!(
            raw.contains("From: \"People Team\" <people@acme.example>"),
            "{raw}"
        );
        assert!(raw.contains("To: ana@example.com"), "{raw}");
        assert!(
            raw.contains(&format!("Message-ID: <{}@acme.example>", m.id)),
            "{raw}"
        );
        assert!(
            raw.contains("Date: Sat, 21 Nov 2026 09:30:00 +0000"),
            "{raw}"
        );
        assert!(raw.contains("multipart/alternative"), "{raw}");
        assert!(raw.contains("text/plain"), "{raw}");
        assert!(raw.contains("text/html"), "{raw}");
        assert!(
            raw.contains("Subject: Welcome aboard, Ana =?utf-8?"),
            "non-ASCII subject is encoded: {raw}"
        );
    }

    #[test]
    fn a_bad_recipient_is_permanent() {
        let mut m = message();
        m.recipient = "not an address".into();
        let err = format_message(&m, &Sender::parse(DEFAULT_FROM).unwrap()).unwrap_err();
        assert!(err.permanent);
        assert_eq!(
            Sender::parse(DEFAULT_FROM).unwrap().domain(),
            "equip.localhost"
        );
        assert!(Sender::parse("nope").is_err());
    }
}
