//! New-joiner reminders as the API shows and takes them (docs/reminders.md).

use chrono::{DateTime, Utc};
use equip_domain::ids::{PersonId, ReminderId};
use equip_domain::reminder::{DeliveryStatus, Reminder, ReminderDelivery};
use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::Object;
use utoipa::ToSchema;

use crate::schema::one_of;
use crate::time;

fn delivery_status() -> Object {
    one_of(DeliveryStatus::ALL.iter().map(|s| s.as_str()))
}

/// A reminder: who it is for, who asked, and the state of its email.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Reminder)]
pub struct ReminderBody {
    #[schema(value_type = Uuid)]
    id: ReminderId,
    #[schema(value_type = Uuid)]
    person_id: PersonId,
    #[schema(value_type = Option<Uuid>, required)]
    sender_person_id: Option<PersonId>,
    #[schema(schema_with = delivery_status)]
    status: DeliveryStatus,
    #[serde(serialize_with = "time::millis")]
    created_at: DateTime<Utc>,
}

impl From<&Reminder> for ReminderBody {
    fn from(r: &Reminder) -> Self {
        Self {
            id: r.id,
            person_id: r.person_id,
            sender_person_id: r.sender_person_id,
            status: r.status,
            created_at: r.created_at,
        }
    }
}

/// A reminder with the delivery state of its email.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = ReminderDelivery)]
pub struct ReminderDeliveryBody {
    #[schema(value_type = Uuid)]
    id: ReminderId,
    #[schema(value_type = Uuid)]
    person_id: PersonId,
    #[schema(value_type = Option<Uuid>, required)]
    sender_person_id: Option<PersonId>,
    #[schema(schema_with = delivery_status)]
    status: DeliveryStatus,
    #[serde(serialize_with = "time::millis")]
    created_at: DateTime<Utc>,
    #[schema(value_type = isize, minimum = 0)]
    attempts: i32,
    #[schema(required)]
    last_error: Option<String>,
    #[serde(serialize_with = "time::millis_or_null")]
    #[schema(required)]
    sent_at: Option<DateTime<Utc>>,
    /// While the email is pending: when it is tried next.
    #[serde(serialize_with = "time::millis_or_null")]
    #[schema(required)]
    next_attempt_at: Option<DateTime<Utc>>,
}

impl From<&ReminderDelivery> for ReminderDeliveryBody {
    fn from(d: &ReminderDelivery) -> Self {
        let r = &d.reminder;
        Self {
            id: r.id,
            person_id: r.person_id,
            sender_person_id: r.sender_person_id,
            status: r.status,
            created_at: r.created_at,
            attempts: d.attempts,
            last_error: d.last_error.clone(),
            sent_at: d.sent_at,
            next_attempt_at: (r.status == DeliveryStatus::Pending).then_some(d.next_attempt_at),
        }
    }
}

/// `{"data": [reminder, …]}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReminderList {
    /// The person's reminders, newest first.
    pub data: Vec<ReminderDeliveryBody>,
}

/// The body of a remind request; it may also be absent or empty.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = ReminderRequest)]
pub struct ReminderRequest {
    /// Who asks (kept for audit); null or absent when triggered through the API.
    #[serde(default, deserialize_with = "crate::id::or_null")]
    #[schema(value_type = Option<Uuid>)]
    pub sender_person_id: Option<PersonId>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::read::{from_value, Fault};
    use equip_domain::ids::OrganizationId;
    use serde_json::json;

    #[test]
    fn the_next_attempt_is_shown_while_pending() {
        let at = DateTime::from_timestamp(1_700_000_000, 5_000_000).unwrap();
        let reminder = Reminder {
            id: ReminderId::new(),
            organization_id: OrganizationId::new(),
            person_id: PersonId::new(),
            sender_person_id: None,
            status: DeliveryStatus::Pending,
            created_at: at,
        };
        let mut delivery = ReminderDelivery {
            reminder: reminder.clone(),
            attempts: 1,
            next_attempt_at: at,
            last_error: Some("421".into()),
            sent_at: None,
        };
        assert_eq!(
            serde_json::to_value(ReminderDeliveryBody::from(&delivery)).unwrap(),
            json!({
                "id": reminder.id, "personId": reminder.person_id, "senderPersonId": null,
                "status": "PENDING", "createdAt": "2023-11-14T22:13:20.005Z",
                "attempts": 1, "lastError": "421", "sentAt": null,
                "nextAttemptAt": "2023-11-14T22:13:20.005Z",
            })
        );
        delivery.reminder.status = DeliveryStatus::Sent;
        delivery.sent_at = Some(at);
        let json = serde_json::to_value(ReminderDeliveryBody::from(&delivery)).unwrap();
        assert_eq!(json["nextAttemptAt"], json!(null));
        assert_eq!(json["sentAt"], "2023-11-14T22:13:20.005Z");
        let json = serde_json::to_value(ReminderBody::from(&reminder)).unwrap();
        assert_eq!(
            json.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["createdAt", "id", "personId", "senderPersonId", "status"]
        );
    }

    #[test]
    fn a_request_takes_only_a_sender_or_null() {
        let sender = PersonId::new();
        let r: ReminderRequest = from_value(json!({"senderPersonId": sender})).unwrap();
        assert_eq!(r.sender_person_id, Some(sender));
        let r: ReminderRequest = from_value(json!({})).unwrap();
        assert_eq!(r.sender_person_id, None);
        let e = from_value::<ReminderRequest>(json!({"senderPersonId": 42})).unwrap_err();
        assert_eq!(e.path, "senderPersonId");
        let e = from_value::<ReminderRequest>(json!({"pad": 1})).unwrap_err();
        assert_eq!(e.path, "pad");
        assert!(matches!(e.fault, Fault::Unknown { .. }));
    }
}
