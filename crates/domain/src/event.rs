//! Events: the record of every change, read as a feed, as a subject's history
//! and by webhooks.
//!
//! A store writes an event in the same transaction as the change it records
//! (docs/events.md). This module holds what an event says and the rules that
//! decide it: which type a change has, who made it, and which fields changed
//! ([`changes_between`] over the subject's [`EventView`]). A write that changes
//! nothing has no event: every builder here returns `None` for it.

use std::collections::BTreeMap;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use crate::group::Group;
use crate::ids::{
    ApiKeyId, EventId, GroupId, InventoryItemId, InventoryLevelId, OrganizationId, PersonId,
    ReminderId, ReturnOrderId,
};
use crate::inventory::{Assignee, InventoryItem, ReturnStatus};
use crate::person::{Person, PersonStatus};
use crate::reminder::{DeliveryStatus, Reminder};

wire_enum! {
    /// What happened. Names are dotted: the subject, then the change.
    EventType, field = "types", case = exact, unknown = (|raw: &str| format!(
        "unknown event type '{raw}'; known types: {}",
        EventType::ALL.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(", ")
    )) {
        /// An inventory item was created.
        ItemCreated => "inventory.item.created",
        /// Fields of an inventory item changed (a return order started for
        /// it included).
        ItemUpdated => "inventory.item.updated",
        /// A person was provisioned.
        PersonCreated => "person.created",
        /// Fields of a person changed (`active` included).
        PersonUpdated => "person.updated",
        /// A person's offboarding started (the SCIM DELETE).
        PersonOffboardingStarted => "person.offboarding_started",
        /// A person's offboarding completed: every return line of theirs is
        /// closed (received or written off), or they held nothing.
        PersonOffboarded => "person.offboarded",
        /// A group was created.
        GroupCreated => "group.created",
        /// Fields of a group changed.
        GroupUpdated => "group.updated",
        /// A group was deleted.
        GroupDeleted => "group.deleted",
        /// A person joined a group.
        GroupMemberAdded => "group.member_added",
        /// A person left a group.
        GroupMemberRemoved => "group.member_removed",
        /// An inventory level was created.
        LevelCreated => "inventory_level.created",
        /// An inventory level was deactivated.
        LevelDeactivated => "inventory_level.deactivated",
        /// Fields of an inventory level changed (only an import changes
        /// them; the API creates and deactivates levels).
        LevelUpdated => "inventory_level.updated",
        /// A new-joiner reminder was asked for; its email is queued.
        ReminderCreated => "reminder.created",
        /// A reminder's email was delivered.
        ReminderDelivered => "reminder.delivered",
        /// A reminder's email failed for good.
        ReminderFailed => "reminder.failed",
        /// A return order was created (by an offboarding or by request).
        ReturnOrderCreated => "return_order.created",
        /// A return order changed: its method, its retrieval status, a line
        /// (received, written off, ITAD asked), its status, or cancelled.
        ReturnOrderUpdated => "return_order.updated",
        /// A joiner's order was created (by the provisioning change that gave
        /// the person a package with contents).
        OrderCreated => "order.created",
        /// A line of an order found no stock and waits for it.
        OrderBackordered => "order.backordered",
        /// An order changed: a line allocated, shipped, delivered or
        /// cancelled, its lines replaced, or the order cancelled.
        OrderUpdated => "order.updated",
        /// A level's available stock fell below its minimum (once per
        /// crossing: again only after it was back at or above).
        LevelBelowMinimum => "inventory_level.below_minimum",
    }
}

wire_enum! {
    /// What an event is about.
    SubjectType, field = "subject.type", case = exact {
        /// An inventory item.
        InventoryItem => "INVENTORY_ITEM",
        /// A person.
        Person => "PERSON",
        /// A group.
        Group => "GROUP",
        /// An inventory level.
        InventoryLevel => "INVENTORY_LEVEL",
        /// A new-joiner reminder.
        Reminder => "REMINDER",
        /// A return order.
        ReturnOrder => "RETURN_ORDER",
        /// A joiner's order.
        Order => "ORDER",
    }
}

impl EventType {
    /// The kind of subject events of this type are about.
    #[must_use]
    pub const fn subject_type(self) -> SubjectType {
        match self {
            Self::ItemCreated | Self::ItemUpdated => SubjectType::InventoryItem,
            Self::PersonCreated
            | Self::PersonUpdated
            | Self::PersonOffboardingStarted
            | Self::PersonOffboarded => SubjectType::Person,
            Self::GroupCreated
            | Self::GroupUpdated
            | Self::GroupDeleted
            | Self::GroupMemberAdded
            | Self::GroupMemberRemoved => SubjectType::Group,
            Self::LevelCreated
            | Self::LevelDeactivated
            | Self::LevelUpdated
            | Self::LevelBelowMinimum => SubjectType::InventoryLevel,
            Self::ReminderCreated | Self::ReminderDelivered | Self::ReminderFailed => {
                SubjectType::Reminder
            }
            Self::ReturnOrderCreated | Self::ReturnOrderUpdated => SubjectType::ReturnOrder,
            Self::OrderCreated | Self::OrderBackordered | Self::OrderUpdated => SubjectType::Order,
        }
    }
}

wire_enum! {
    /// Who made a change.
    ActorType, field = "actor.type", case = exact {
        /// A request authenticated with an API key (the key's id is kept).
        ApiKey => "API_KEY",
        /// An administrator's `equip` command.
        Cli => "CLI",
        /// equip itself (the mail dispatcher, a background job).
        System => "SYSTEM",
        /// A person signed in to the console with the organization's identity
        /// provider (their subject and email are kept).
        Person => "PERSON",
    }
}

/// Who made a change.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Actor {
    /// A request with this API key.
    ApiKey(ApiKeyId),
    /// A person signed in with the identity provider.
    Person(PersonActor),
    /// An `equip` command.
    Cli,
    /// equip itself.
    System,
}

/// A signed-in person as events name them: the identity provider's subject
/// and the address equip shows. Cheap to clone.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PersonActor {
    /// The provider's subject identifier.
    pub subject: std::sync::Arc<str>,
    /// Their email (or the provider's user name when it gave no email).
    pub email: std::sync::Arc<str>,
}

impl Actor {
    /// The actor's type.
    #[must_use]
    pub const fn kind(&self) -> ActorType {
        match self {
            Self::ApiKey(_) => ActorType::ApiKey,
            Self::Person(_) => ActorType::Person,
            Self::Cli => ActorType::Cli,
            Self::System => ActorType::System,
        }
    }

    /// The key's id, for an API key.
    #[must_use]
    pub const fn key_id(&self) -> Option<ApiKeyId> {
        match self {
            Self::ApiKey(id) => Some(*id),
            Self::Person(_) | Self::Cli | Self::System => None,
        }
    }

    /// The person, for a signed-in person.
    #[must_use]
    pub const fn person(&self) -> Option<&PersonActor> {
        match self {
            Self::Person(p) => Some(p),
            Self::ApiKey(_) | Self::Cli | Self::System => None,
        }
    }

    /// What the store keeps of it besides its type: the key's id or the
    /// person's subject, and the person's email.
    #[must_use]
    pub fn stored_parts(&self) -> (Option<String>, Option<String>) {
        match self {
            Self::ApiKey(id) => (Some(id.to_string()), None),
            Self::Person(p) => (Some(p.subject.to_string()), Some(p.email.to_string())),
            Self::Cli | Self::System => (None, None),
        }
    }

    /// The actor from its stored type, id and email.
    ///
    /// # Errors
    /// An unknown type, an API key without a well-formed id, or a person
    /// without a subject.
    pub fn from_parts(
        kind: &str,
        id: Option<&str>,
        email: Option<&str>,
    ) -> Result<Self, crate::DomainError> {
        Ok(match ActorType::parse(kind)? {
            ActorType::ApiKey => {
                let id = id.and_then(|id| ApiKeyId::parse(id).ok()).ok_or_else(|| {
                    crate::DomainError::invalid("actor.id", "an API key actor needs its key id")
                })?;
                Self::ApiKey(id)
            }
            ActorType::Person => {
                let subject = id.ok_or_else(|| {
                    crate::DomainError::invalid("actor.id", "a person actor needs its subject")
                })?;
                Self::Person(PersonActor {
                    subject: subject.into(),
                    email: email.unwrap_or(subject).into(),
                })
            }
            ActorType::Cli => Self::Cli,
            ActorType::System => Self::System,
        })
    }
}

/// What an event is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Subject {
    /// Its kind.
    pub kind: SubjectType,
    /// Its id.
    pub id: uuid::Uuid,
}

/// One changed field: its value before and after (`null` when absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Change {
    /// Before.
    #[serde(default)]
    pub from: Value,
    /// After.
    #[serde(default)]
    pub to: Value,
}

/// The changed fields of a subject, by wire name (nested fields by dotted
/// path, as `name.givenName`).
pub type Changes = BTreeMap<String, Change>;

/// An event before it is stored: the store adds the organization, the
/// actor, the time, its id and its sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    /// What happened.
    pub kind: EventType,
    /// To what.
    pub subject: Subject,
    /// The changed fields (empty for a deletion or a delivery).
    pub changes: Changes,
}

/// The changed fields of a stored event as the JSON object text they were
/// stored as: the feed, the histories and the webhooks send it as it is,
/// without parsing it into values and writing them again.
#[derive(Debug, Clone, Default)]
pub struct RawChanges(Option<Box<RawValue>>);

impl RawChanges {
    /// The stored form of `changes` (none when empty).
    #[must_use]
    pub fn of(changes: &Changes) -> Self {
        if changes.is_empty() {
            return Self(None);
        }
        // A map of strings to values always serializes.
        Self(serde_json::value::to_raw_value(changes).ok())
    }

    /// Stored text, checked to be one JSON object (its syntax only: cheaper
    /// than parsing it into values).
    ///
    /// # Errors
    /// Text that is not a JSON object.
    pub fn from_text(text: Option<String>) -> Result<Self, serde_json::Error> {
        let Some(text) = text else {
            return Ok(Self(None));
        };
        let raw = RawValue::from_string(text)?;
        if !raw.get().starts_with('{') {
            return Err(serde::de::Error::custom(
                "stored changes are not a JSON object",
            ));
        }
        Ok(Self(Some(raw)))
    }

    /// The JSON text; `None` when nothing changed (a deletion, a delivery).
    #[must_use]
    pub fn text(&self) -> Option<&str> {
        self.0.as_deref().map(RawValue::get)
    }

    /// The JSON text as a raw value, to be written as it is into a larger
    /// document (an event's `changes`); `None` when nothing changed.
    #[must_use]
    pub fn raw(&self) -> Option<&RawValue> {
        self.0.as_deref()
    }

    /// The changes as values (empty when the stored text is not a map of
    /// changes, which [`Self::from_text`] and [`Self::of`] never store).
    #[must_use]
    pub fn parse(&self) -> Changes {
        self.text()
            .and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or_default()
    }
}

impl PartialEq for RawChanges {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
    }
}

impl Eq for RawChanges {}

/// A stored event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Identifier (the webhook's `Equip-Event-Id`).
    pub id: EventId,
    /// Owning organization.
    pub organization_id: OrganizationId,
    /// Position in the organization's feed: increases in commit order,
    /// without gaps.
    pub sequence: i64,
    /// What happened.
    pub kind: EventType,
    /// When.
    pub occurred_at: DateTime<Utc>,
    /// Who did it.
    pub actor: Actor,
    /// To what.
    pub subject: Subject,
    /// The changed fields, as stored.
    pub changes: RawChanges,
}

impl Event {
    /// The changed fields as values.
    #[must_use]
    pub fn changes(&self) -> Changes {
        self.changes.parse()
    }
}

/// The fields of a subject that its events report: what the subject's API
/// shows, without times and versions (which change with every write).
pub trait EventView {
    /// The subject.
    fn subject(&self) -> Subject;
    /// Its fields by wire name.
    fn event_view(&self) -> Value;
}

/// The fields that differ between two views, nested objects compared field by
/// field (named by dotted path, as `name.givenName`), arrays, values and
/// references (objects with an `id`, as `assignedTo`) as a whole. A field
/// absent on one side is `null` there.
#[must_use]
pub fn changes_between(before: &Value, after: &Value) -> Changes {
    let mut changes = Changes::new();
    diff_into(&mut changes, "", before, after);
    changes
}

fn diff_into(changes: &mut Changes, prefix: &str, before: &Value, after: &Value) {
    let empty = Map::new();
    match (before, after) {
        (Value::Object(_) | Value::Null, Value::Object(_) | Value::Null)
            if (before.is_object() || after.is_object())
                && !is_reference(before)
                && !is_reference(after) =>
        {
            let b = before.as_object().unwrap_or(&empty);
            let a = after.as_object().unwrap_or(&empty);
            let keys: std::collections::BTreeSet<&String> = b.keys().chain(a.keys()).collect();
            for key in keys {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                let null = Value::Null;
                diff_into(
                    changes,
                    &path,
                    b.get(key).unwrap_or(&null),
                    a.get(key).unwrap_or(&null),
                );
            }
        }
        _ if before == after => {}
        _ => {
            changes.insert(
                prefix.to_owned(),
                Change {
                    from: before.clone(),
                    to: after.clone(),
                },
            );
        }
    }
}

/// An object that names another resource by its `id`: compared whole.
fn is_reference(value: &Value) -> bool {
    value.get("id").is_some()
}

impl NewEvent {
    /// A creation: every field the subject has, from `null`.
    #[must_use]
    pub fn created(kind: EventType, subject: &dyn EventView) -> Self {
        Self {
            kind,
            subject: subject.subject(),
            changes: changes_between(&Value::Null, &subject.event_view()),
        }
    }

    /// An update, or `None` when no reported field changed.
    #[must_use]
    pub fn updated(kind: EventType, before: &dyn EventView, after: &dyn EventView) -> Option<Self> {
        let changes = changes_between(&before.event_view(), &after.event_view());
        (!changes.is_empty()).then(|| Self {
            kind,
            subject: after.subject(),
            changes,
        })
    }

    /// An event with no field changes (a deletion, a delivery).
    #[must_use]
    pub fn bare(kind: EventType, subject: Subject) -> Self {
        Self {
            kind,
            subject,
            changes: Changes::new(),
        }
    }

    /// A person joined (`joined`) or left a group.
    #[must_use]
    pub fn membership(group: GroupId, person: PersonId, joined: bool) -> Self {
        let id = Value::String(person.to_string());
        let (kind, from, to) = if joined {
            (EventType::GroupMemberAdded, Value::Null, id)
        } else {
            (EventType::GroupMemberRemoved, id, Value::Null)
        };
        Self {
            kind,
            subject: Subject {
                kind: SubjectType::Group,
                id: *group.as_uuid(),
            },
            changes: Changes::from([("member".to_owned(), Change { from, to })]),
        }
    }
}

fn field_change(field: &str, from: Value, to: Value) -> Changes {
    Changes::from([(field.to_owned(), Change { from, to })])
}

/// A time as an event's view records it (RFC 3339, microseconds, `Z`).
pub(crate) fn time_value(at: DateTime<Utc>) -> Value {
    Value::String(at.to_rfc3339_opts(SecondsFormat::Micros, true))
}

/// An optional time as an event's view records it (`null` when absent).
pub(crate) fn optional_time_value(at: Option<DateTime<Utc>>) -> Value {
    at.map_or(Value::Null, time_value)
}

impl NewEvent {
    /// A person's offboarding started: their status moved from ACTIVE to
    /// OFFBOARDING.
    #[must_use]
    pub fn offboarding_started(person: PersonId) -> Self {
        Self {
            kind: EventType::PersonOffboardingStarted,
            subject: Subject {
                kind: SubjectType::Person,
                id: *person.as_uuid(),
            },
            changes: field_change(
                "status",
                json!(PersonStatus::Active.as_str()),
                json!(PersonStatus::Offboarding.as_str()),
            ),
        }
    }

    /// A person's offboarding completed: their status moved from OFFBOARDING
    /// to OFFBOARDED.
    #[must_use]
    pub fn offboarded(person: PersonId) -> Self {
        Self {
            kind: EventType::PersonOffboarded,
            subject: Subject {
                kind: SubjectType::Person,
                id: *person.as_uuid(),
            },
            changes: field_change(
                "status",
                json!(PersonStatus::Offboarding.as_str()),
                json!(PersonStatus::Offboarded.as_str()),
            ),
        }
    }

    /// An item got a (PENDING) return order, as the item's view shows it.
    #[must_use]
    pub fn return_started(item: InventoryItemId, order: ReturnOrderId) -> Self {
        Self {
            kind: EventType::ItemUpdated,
            subject: Subject {
                kind: SubjectType::InventoryItem,
                id: *item.as_uuid(),
            },
            changes: field_change(
                "returnOrder",
                Value::Null,
                json!({"id": order, "status": ReturnStatus::Pending.as_str()}),
            ),
        }
    }

    /// An item's return ended without it coming back (its order was
    /// cancelled): its `returnOrder` (at `status`) is gone.
    #[must_use]
    pub fn return_ended(item: InventoryItemId, order: ReturnOrderId, status: ReturnStatus) -> Self {
        Self {
            kind: EventType::ItemUpdated,
            subject: Subject {
                kind: SubjectType::InventoryItem,
                id: *item.as_uuid(),
            },
            changes: field_change(
                "returnOrder",
                json!({"id": order, "status": status.as_str()}),
                Value::Null,
            ),
        }
    }

    /// A level was deactivated at `at`.
    #[must_use]
    pub fn level_deactivated(level: InventoryLevelId, at: DateTime<Utc>) -> Self {
        Self {
            kind: EventType::LevelDeactivated,
            subject: Subject {
                kind: SubjectType::InventoryLevel,
                id: *level.as_uuid(),
            },
            changes: field_change("deactivatedAt", Value::Null, time_value(at)),
        }
    }

    /// A reminder's email was delivered (`delivered`) or failed for good:
    /// its status moved from PENDING.
    #[must_use]
    pub fn reminder_settled(reminder: ReminderId, delivered: bool) -> Self {
        let (kind, to) = if delivered {
            (EventType::ReminderDelivered, DeliveryStatus::Sent)
        } else {
            (EventType::ReminderFailed, DeliveryStatus::Dead)
        };
        Self {
            kind,
            subject: Subject {
                kind: SubjectType::Reminder,
                id: *reminder.as_uuid(),
            },
            changes: field_change(
                "status",
                json!(DeliveryStatus::Pending.as_str()),
                json!(to.as_str()),
            ),
        }
    }
}

fn display(value: Option<impl std::fmt::Display>) -> Value {
    value.map_or(Value::Null, |v| Value::String(v.to_string()))
}

impl EventView for InventoryItem {
    fn subject(&self) -> Subject {
        Subject {
            kind: SubjectType::InventoryItem,
            id: *self.id.as_uuid(),
        }
    }

    fn event_view(&self) -> Value {
        let assigned_to = self.assignment.map_or(Value::Null, |a| {
            let (kind, id) = match a.assignee {
                Assignee::Person(id) => ("PERSON", *id.as_uuid()),
                Assignee::Warehouse(id) => ("WAREHOUSE", *id.as_uuid()),
                Assignee::Office(id) => ("OFFICE", *id.as_uuid()),
            };
            json!({"type": kind, "id": id})
        });
        json!({
            "skuId": self.sku_id,
            "serialNumber": self.serial_number,
            "imei": self.imei,
            "deployStatus": self.deploy_status.as_str(),
            "deployReason": self.deploy_reason.map(|r| r.as_str()),
            "condition": self.condition.as_str(),
            "assignedTo": assigned_to,
            "tags": self.tags.iter().map(|t| t.label.as_str()).collect::<Vec<_>>(),
            "renewalDate": display(self.renewal_date),
            "description": self.description,
            "procurementMethod": self.procurement_method,
            "suppliedBy": self.supplied_by.as_str(),
            "holdStartDate": display(self.hold_start_date),
            "unlockDate": display(self.unlock_date),
            "itadRequested": self.itad_requested,
            "returnOrder": self.return_order.as_ref().map(|r| json!({
                "id": r.id,
                "status": r.status.as_str(),
            })),
        })
    }
}

impl EventView for Person {
    fn subject(&self) -> Subject {
        Subject {
            kind: SubjectType::Person,
            id: *self.id.as_uuid(),
        }
    }

    fn event_view(&self) -> Value {
        json!({
            "userName": self.user_name,
            "externalId": self.external_id,
            "name": {
                "givenName": self.given_name,
                "familyName": self.family_name,
                "formatted": self.profile.formatted_name,
                "middleName": self.profile.middle_name,
                "honorificPrefix": self.profile.honorific_prefix,
                "honorificSuffix": self.profile.honorific_suffix,
            },
            "displayName": self.display_name,
            "emails": self.emails,
            "phoneNumbers": self.phone_numbers,
            "addresses": self.addresses,
            "active": self.active,
            "packageId": self.package_id,
            "startDate": display(self.start_date),
            "status": self.status.as_str(),
            "skipUserActivation": self.skip_user_activation,
            "cpfNumber": self.cpf_number,
            "nickName": self.profile.nick_name,
            "title": self.profile.title,
            "userType": self.profile.user_type,
            "preferredLanguage": self.profile.preferred_language,
            "locale": self.profile.locale,
            "timezone": self.profile.timezone,
            "profileUrl": self.profile.profile_url,
            "ims": self.profile.ims,
            "photos": self.profile.photos,
            "entitlements": self.profile.entitlements,
            "roles": self.profile.roles,
            "x509Certificates": self.profile.x509_certificates,
        })
    }
}

impl EventView for Group {
    fn subject(&self) -> Subject {
        Subject {
            kind: SubjectType::Group,
            id: *self.id.as_uuid(),
        }
    }

    fn event_view(&self) -> Value {
        json!({
            "displayName": self.display_name,
            "externalId": self.external_id,
            "packageId": self.package_id,
            "precedence": self.precedence,
        })
    }
}

impl EventView for Reminder {
    fn subject(&self) -> Subject {
        Subject {
            kind: SubjectType::Reminder,
            id: *self.id.as_uuid(),
        }
    }

    fn event_view(&self) -> Value {
        json!({
            "personId": self.person_id,
            "senderPersonId": self.sender_person_id,
            "status": self.status.as_str(),
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn stored_changes_are_kept_as_their_text() {
        let changes = changes_between(&json!({"description": "a"}), &json!({"description": "b"}));
        let stored = RawChanges::of(&changes);
        assert_eq!(
            stored.text(),
            Some(r#"{"description":{"from":"a","to":"b"}}"#)
        );
        let read = RawChanges::from_text(stored.text().map(str::to_owned)).unwrap();
        assert_eq!(read.parse(), changes);
        assert_eq!(read.raw().map(RawValue::get), stored.text());
        // Nothing changed (a deletion): no text.
        assert_eq!(
            RawChanges::of(&Changes::new()).raw().map(RawValue::get),
            None
        );
        // Stored text that is not a JSON object is refused, not sent.
        assert!(RawChanges::from_text(Some("[1]".into())).is_err());
        assert!(RawChanges::from_text(Some("{\"a\":".into())).is_err());
        assert_eq!(RawChanges::from_text(None).unwrap().text(), None);
    }

    #[test]
    fn nested_fields_are_named_by_path_and_references_compared_whole() {
        let before = json!({"name": {"givenName": "Ada", "familyName": "L"},
            "assignedTo": {"type": "WAREHOUSE", "id": "w"}, "tags": ["a"], "same": 1});
        let after = json!({"name": {"givenName": "Augusta", "familyName": "L"},
            "assignedTo": {"type": "PERSON", "id": "p"}, "tags": ["a", "b"], "same": 1});
        let changes = changes_between(&before, &after);
        assert_eq!(
            changes.keys().collect::<Vec<_>>(),
            ["assignedTo", "name.givenName", "tags"]
        );
        assert_eq!(
            changes["assignedTo"].from,
            json!({"type": "WAREHOUSE", "id": "w"})
        );
        assert_eq!(changes["tags"].to, json!(["a", "b"]));
        // A field appearing or disappearing is a change from or to null.
        let gone = changes_between(&json!({"a": 1, "o": {"x": 1}}), &json!({}));
        assert_eq!(
            gone["a"],
            Change {
                from: json!(1),
                to: Value::Null
            }
        );
        assert_eq!(
            gone["o.x"],
            Change {
                from: json!(1),
                to: Value::Null
            }
        );
        assert!(changes_between(&after, &after).is_empty());
    }

    #[test]
    fn an_update_that_changes_no_reported_field_is_no_event() {
        let group = Group {
            id: GroupId::new(),
            organization_id: OrganizationId::new(),
            external_id: None,
            display_name: "Sales".into(),
            package_id: None,
            precedence: 0,
            created_at: Utc::now(),
            updated_at: Utc::now(),
            version: 1,
        };
        // Times and versions are not reported.
        let mut touched = group.clone();
        touched.version = 2;
        touched.updated_at = Utc::now() + chrono::Duration::hours(1);
        assert_eq!(
            NewEvent::updated(EventType::GroupUpdated, &group, &touched),
            None
        );
        let mut renamed = touched.clone();
        renamed.display_name = "Sales EMEA".into();
        let event = NewEvent::updated(EventType::GroupUpdated, &group, &renamed).unwrap();
        assert_eq!(event.subject, group.subject());
        assert_eq!(event.changes["displayName"].to, "Sales EMEA");
        // A creation lists the set fields from null, and skips the unset.
        let created = NewEvent::created(EventType::GroupCreated, &group);
        assert_eq!(created.changes["displayName"].from, Value::Null);
        assert!(!created.changes.contains_key("externalId"));
    }

    #[test]
    fn every_type_names_its_subject_and_actors_round_trip() {
        for kind in EventType::ALL {
            let prefix = kind.as_str().split('.').next().unwrap();
            let expected = match kind.subject_type() {
                SubjectType::InventoryItem => "inventory",
                SubjectType::Person => "person",
                SubjectType::Group => "group",
                SubjectType::InventoryLevel => "inventory_level",
                SubjectType::Reminder => "reminder",
                SubjectType::ReturnOrder => "return_order",
                SubjectType::Order => "order",
            };
            assert_eq!(prefix, expected, "{kind}");
        }
        let key = ApiKeyId::new();
        let id = key.to_string();
        assert_eq!(
            Actor::from_parts("API_KEY", Some(&id), None).unwrap(),
            Actor::ApiKey(key)
        );
        assert_eq!(Actor::from_parts("CLI", None, None).unwrap(), Actor::Cli);
        assert!(Actor::from_parts("API_KEY", None, None).is_err());
        assert!(Actor::from_parts("ROBOT", None, None).is_err());
        let membership = NewEvent::membership(GroupId::new(), PersonId::new(), false);
        assert_eq!(membership.kind, EventType::GroupMemberRemoved);
        assert_eq!(membership.changes["member"].to, Value::Null);
    }
}
