//! New-joiner reminders: asking for one (written with its email to the outbox
//! in one transaction) and listing a person's reminders.

use chrono::{DateTime, Utc};

use crate::email::reminder_email;
use crate::error::DomainError;
use crate::ids::{OrganizationId, OutboxMessageId, PersonId, ReminderId};
use crate::ports::{PersonRepository, ReminderRepository};
use crate::reminder::{
    check_new_joiner, DeliveryStatus, OutboxMessage, Reminder, ReminderDelivery,
};
use crate::StoreError;

/// The ports reminders need.
pub trait ReminderPorts: PersonRepository + ReminderRepository {}
impl<T: PersonRepository + ReminderRepository> ReminderPorts for T {}

/// Asks for a reminder to the new joiner `person`, sent by `sender` (`None`:
/// triggered through the API). Stores the reminder and its email (to the
/// person's primary address, see [`crate::email::reminder_email`]) in one
/// transaction; a dispatcher delivers it later. Whether the person is a new
/// joiner is judged on the UTC date of `now`.
///
/// # Errors
/// [`DomainError::NotFound`] `person` / `senderPersonId` for people not in the
/// organization; [`DomainError::Conflict`] `person` when the person is not a
/// new joiner (offboarding or offboarded, no start date, start date past) or has
/// no email address; store failures.
pub fn send_reminder(
    ports: &dyn ReminderPorts,
    organization: OrganizationId,
    person_id: PersonId,
    sender: Option<PersonId>,
    now: DateTime<Utc>,
) -> Result<Reminder, DomainError> {
    let person = ports
        .find_person(organization, person_id)?
        .ok_or_else(|| DomainError::not_found("person", format!("person {person_id} not found")))?;
    if let Some(sender) = sender {
        if ports.find_person(organization, sender)?.is_none() {
            return Err(DomainError::not_found(
                "senderPersonId",
                format!("sender person {sender} not found"),
            ));
        }
    }
    check_new_joiner(&person, now.date_naive())?;
    let package = match person.package_id {
        Some(id) => ports.find_reminder_package(organization, id)?,
        None => None,
    };
    let content = reminder_email(&person, package.as_ref().map(|p| p.name.as_str()))?;
    let reminder = Reminder {
        id: ReminderId::new(),
        organization_id: organization,
        person_id,
        sender_person_id: sender,
        status: DeliveryStatus::Pending,
        created_at: now,
    };
    let message = OutboxMessage {
        id: OutboxMessageId::new(),
        organization_id: organization,
        reminder_id: reminder.id,
        recipient: content.recipient,
        subject: content.subject,
        body_text: content.text,
        body_html: content.html,
        status: DeliveryStatus::Pending,
        attempts: 0,
        next_attempt_at: now,
        last_error: None,
        sent_at: None,
        claimed_until: None,
        created_at: now,
    };
    ports
        .insert_reminder(&reminder, &message)
        .map_err(|e| match e {
            // The person (or sender) went away between the read and the write.
            StoreError::MissingReference { .. } => {
                DomainError::not_found("person", format!("person {person_id} not found"))
            }
            other => other.into(),
        })?;
    Ok(reminder)
}

/// The reminders of a person of the organization, newest first, with the
/// delivery state of their emails.
///
/// # Errors
/// [`DomainError::NotFound`] `person` for a person not in the organization;
/// store failures.
pub fn list_reminders(
    ports: &dyn ReminderPorts,
    organization: OrganizationId,
    person_id: PersonId,
) -> Result<Vec<ReminderDelivery>, DomainError> {
    if ports.find_person(organization, person_id)?.is_none() {
        return Err(DomainError::not_found(
            "person",
            format!("person {person_id} not found"),
        ));
    }
    Ok(ports.list_reminders(organization, person_id)?)
}
