//! New-joiner reminders: asking for one (written with its email to the outbox
//! in one transaction) and listing a person's reminders.

use chrono::{DateTime, Utc};

use crate::email::reminder_email;
use crate::error::DomainError;
use crate::ids::{OrganizationId, OutboxMessageId, PersonId, ReminderId};
use crate::ports::{GroupRepository, PersonRepository, ReminderRepository};
use crate::reminder::{
    check_new_joiner, DeliveryStatus, OutboxMessage, Reminder, ReminderDelivery,
};
use crate::services::groups::belonging_of;
use crate::StoreError;

/// The ports reminders need (groups: a person's package may come from a group).
pub trait ReminderPorts: PersonRepository + ReminderRepository + GroupRepository {}
impl<T: PersonRepository + ReminderRepository + GroupRepository> ReminderPorts for T {}

/// Asks for a reminder to the new joiner `person`, sent by `sender` (`None`:
/// triggered through the API). Stores the reminder and its email (to the
/// person's primary address, see [`crate::email::reminder_email`]) in one
/// transaction; a dispatcher delivers it later. The email names the person's
/// effective package (their own, else their groups':
/// [`crate::group::effective_package`]) by its name, and the status of
/// their order (or that they have none). Whether the person is a new
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
    let package_id = belonging_of(ports, organization, &[&person])?
        .remove(&person.id)
        .and_then(|b| b.effective_package);
    let package = match package_id {
        Some(id) => ports.find_reminder_package(organization, id)?,
        None => None,
    };
    let order = ports.find_reminder_order_status(organization, person_id)?;
    let content = reminder_email(&person, package.as_ref().map(|p| p.name.as_str()), order)?;
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use chrono::{Days, Utc};

    use super::*;
    use crate::catalog::Package;
    use crate::ids::PackageId;
    use crate::person::{Email, Person, PersonStatus};
    use crate::ports::OutboxRepository;
    use crate::reminder::AfterFailure;
    use crate::testing::{fixtures, InMemoryStore};

    fn person(org: OrganizationId, email: &str) -> Person {
        let now = Utc::now();
        Person {
            id: PersonId::new(),
            organization_id: org,
            external_id: None,
            user_name: email.into(),
            given_name: Some("Ana".into()),
            family_name: Some("Silva".into()),
            display_name: None,
            emails: vec![Email {
                value: email.into(),
                kind: None,
                primary: true,
            }],
            phone_numbers: vec![],
            addresses: vec![],
            active: true,
            package_id: None,
            start_date: now.date_naive().checked_add_days(Days::new(5)),
            status: PersonStatus::Active,
            skip_user_activation: None,
            cpf_number: None,
            profile: Default::default(),
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    #[test]
    fn a_reminder_queues_one_email_and_records_the_sender() {
        let store = InMemoryStore::default();
        let f = fixtures::seed(&store);
        let package = Package {
            id: PackageId::new(),
            organization_id: f.org.id,
            slug: "kit".into(),
            name: "Starter Kit".into(),
            items: Vec::new(),
        };
        let mut joiner = person(f.org.id, "ana@acme.example");
        joiner.package_id = Some(package.id);
        let sender = person(f.org.id, "hr@acme.example");
        {
            let mut s = store.state();
            s.packages.push(package);
            s.people.push(joiner.clone());
            s.people.push(sender.clone());
        }
        let now = Utc::now();
        let r = send_reminder(&store, f.org.id, joiner.id, Some(sender.id), now).unwrap();
        assert_eq!(r.sender_person_id, Some(sender.id));
        assert_eq!(r.status, DeliveryStatus::Pending);
        let r2 = send_reminder(&store, f.org.id, joiner.id, None, now).unwrap();
        assert_eq!(r2.sender_person_id, None);
        let s = store.state();
        assert_eq!(s.outbox.len(), 2);
        assert_eq!(s.outbox[0].recipient, "ana@acme.example");
        assert!(s.outbox[0].body_text.contains("Starter Kit"));
        drop(s);
        assert_eq!(
            list_reminders(&store, f.org.id, joiner.id).unwrap().len(),
            2
        );
    }

    #[test]
    fn the_email_names_the_package_a_group_gives() {
        use crate::group::GroupFields;
        use crate::services::groups::create_group;
        let store = InMemoryStore::default();
        let f = fixtures::seed(&store);
        let package = Package {
            id: PackageId::new(),
            organization_id: f.org.id,
            slug: "eng".into(),
            name: "Engineering Kit".into(),
            items: Vec::new(),
        };
        let joiner = person(f.org.id, "ana@acme.example");
        {
            let mut s = store.state();
            s.packages.push(package.clone());
            s.people.push(joiner.clone());
        }
        let fields = GroupFields {
            external_id: None,
            display_name: "Engineering".into(),
            package_id: Some(package.id),
            precedence: 1,
        };
        let now = Utc::now();
        create_group(&store, f.org.id, fields, &[joiner.id].into(), now).unwrap();
        send_reminder(&store, f.org.id, joiner.id, None, now).unwrap();
        let s = store.state();
        assert!(
            s.outbox[0].body_text.contains("Engineering Kit"),
            "{}",
            s.outbox[0].body_text
        );
    }

    #[test]
    fn unknown_people_are_404_and_non_joiners_409() {
        let store = InMemoryStore::default();
        let f = fixtures::seed(&store);
        let other = fixtures::seed(&store);
        let joiner = person(f.org.id, "ana@acme.example");
        let mut started = person(f.org.id, "ben@acme.example");
        started.start_date = Utc::now().date_naive().checked_sub_days(Days::new(1));
        let stranger = person(other.org.id, "zoe@other.example");
        {
            let mut s = store.state();
            s.people
                .extend([joiner.clone(), started.clone(), stranger.clone()]);
        }
        let now = Utc::now();
        let err = send_reminder(&store, f.org.id, stranger.id, None, now).unwrap_err();
        assert!(matches!(err, DomainError::NotFound { ref entity, .. } if entity == "person"));
        let err = send_reminder(&store, f.org.id, joiner.id, Some(stranger.id), now).unwrap_err();
        assert!(
            matches!(err, DomainError::NotFound { ref entity, .. } if entity == "senderPersonId")
        );
        let err = send_reminder(&store, f.org.id, started.id, None, now).unwrap_err();
        assert!(matches!(err, DomainError::Conflict { ref entity, .. } if entity == "person"));
        assert!(store.state().outbox.is_empty());
        assert!(list_reminders(&store, f.org.id, stranger.id).is_err());
    }

    #[test]
    fn claims_lease_and_only_the_lease_holder_marks() {
        let store = InMemoryStore::default();
        let f = fixtures::seed(&store);
        let joiner = person(f.org.id, "ana@acme.example");
        store.state().people.push(joiner.clone());
        let now = Utc::now();
        send_reminder(&store, f.org.id, joiner.id, None, now).unwrap();
        let lease = now + chrono::Duration::minutes(5);
        let claimed = store.claim_outbox_messages(now, lease, 10).unwrap();
        assert_eq!(claimed.len(), 1);
        assert_eq!(claimed[0].attempts, 1);
        // Leased: nobody else gets it.
        assert!(store
            .claim_outbox_messages(now, lease, 10)
            .unwrap()
            .is_empty());
        // A wrong lease cannot mark it.
        assert!(!store
            .mark_outbox_sent(claimed[0].id, lease + chrono::Duration::seconds(1), now)
            .unwrap());
        let retry = now + chrono::Duration::seconds(30);
        assert!(store
            .mark_outbox_failed(claimed[0].id, lease, AfterFailure::RetryAt(retry), "451")
            .unwrap());
        assert!(
            store
                .claim_outbox_messages(now, lease, 10)
                .unwrap()
                .is_empty(),
            "not due"
        );
        let again = store.claim_outbox_messages(retry, lease, 10).unwrap();
        assert_eq!(again[0].attempts, 2);
        assert!(store.mark_outbox_sent(again[0].id, lease, retry).unwrap());
        let listed = list_reminders(&store, f.org.id, joiner.id).unwrap();
        assert_eq!(listed[0].reminder.status, DeliveryStatus::Sent);
        assert_eq!(store.outbox_stats().unwrap().pending, 0);
    }
}
