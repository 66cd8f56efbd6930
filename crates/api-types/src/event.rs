//! Events as the API and the webhooks send them (docs/events.md): the event,
//! the pages of the feed and of the histories, and their query parameters.
//! A webhook's POST body is an [`EventBody`] too.

use chrono::{DateTime, Utc};
use equip_domain::event::{Actor, ActorType, Event, EventType, Subject, SubjectType};
use equip_domain::event_feed::{RawFeedQuery, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE};
use equip_domain::ids::{ApiKeyId, EventId};
use equip_domain::services::events::RawHistoryQuery;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use utoipa::openapi::schema::{AdditionalProperties, Object, ObjectBuilder, SchemaType, Type};
use utoipa::{IntoParams, ToSchema};

use crate::schema::one_of;
use crate::time;

/// The schema of an event type's name.
#[must_use]
pub fn event_type() -> Object {
    one_of(EventType::ALL.iter().map(|t| t.as_str()))
}

fn actor_type() -> Object {
    one_of(ActorType::ALL.iter().map(|t| t.as_str()))
}

fn subject_type() -> Object {
    one_of(SubjectType::ALL.iter().map(|t| t.as_str()))
}

/// `changes`: a map of field names to `{"from", "to"}`.
fn changes() -> Object {
    let any = || Object::with_type(SchemaType::AnyValue);
    let change = ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("from", any())
        .property("to", any())
        .required("from")
        .required("to")
        .additional_properties(Some(AdditionalProperties::FreeForm(false)));
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some(
            "The changed fields by name (nested ones by dotted path, as name.givenName; \
             references such as assignedTo whole), each with its value before and after (null \
             when absent); a creation lists every field from null. Absent when the event changes \
             no field.",
        ))
        .additional_properties(Some(change))
        .build()
}

/// A stored event: `id`, `sequence`, `type`, `occurredAt`, `actor` (`type`,
/// and `id` for an API key, `subject` and `email` for a person), `subject` (`type`, `id`), and `changes` when
/// fields changed (the stored text, sent as it is).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Event)]
pub struct EventBody<'a> {
    #[schema(value_type = Uuid)]
    id: EventId,
    /// Position in the organization's feed: increases in commit order, without gaps.
    #[schema(value_type = isize, minimum = 1)]
    sequence: i64,
    #[serde(rename = "type")]
    #[schema(schema_with = event_type)]
    kind: EventType,
    #[serde(serialize_with = "time::micros")]
    occurred_at: DateTime<Utc>,
    #[schema(inline)]
    actor: ActorBody,
    #[schema(inline)]
    subject: SubjectBody,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = changes)]
    changes: Option<&'a RawValue>,
}

/// Who made the change.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ActorBody {
    #[serde(rename = "type")]
    #[schema(schema_with = actor_type)]
    kind: ActorType,
    /// The API key's id (API_KEY only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Uuid>, nullable = false)]
    id: Option<ApiKeyId>,
    /// The identity provider's subject of the signed-in person (PERSON only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, nullable = false)]
    subject: Option<String>,
    /// The signed-in person's email (PERSON only; the provider's user name
    /// when it gave no email).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, nullable = false)]
    email: Option<String>,
}

/// What the change was made to.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SubjectBody {
    #[serde(rename = "type")]
    #[schema(schema_with = subject_type)]
    kind: SubjectType,
    id: uuid::Uuid,
}

impl From<&Actor> for ActorBody {
    fn from(a: &Actor) -> Self {
        let person = a.person();
        Self {
            kind: a.kind(),
            id: a.key_id(),
            subject: person.map(|p| p.subject.to_string()),
            email: person.map(|p| p.email.to_string()),
        }
    }
}

impl From<Subject> for SubjectBody {
    fn from(s: Subject) -> Self {
        Self {
            kind: s.kind,
            id: s.id,
        }
    }
}

impl<'a> From<&'a Event> for EventBody<'a> {
    fn from(e: &'a Event) -> Self {
        Self {
            id: e.id,
            sequence: e.sequence,
            kind: e.kind,
            occurred_at: e.occurred_at,
            actor: (&e.actor).into(),
            subject: e.subject.into(),
            changes: e.changes.raw(),
        }
    }
}

/// A page of the feed: `{"data": [event, …], "next": cursor}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FeedPage<'a> {
    /// The events, oldest first.
    pub data: Vec<EventBody<'a>>,
    /// Where the next page starts.
    #[schema(pattern = r"^ev2\.[0-9a-f]{16}\.[0-9]{1,18}(\.[0-9a-f]{32})?$")]
    pub next: String,
}

/// A page of a history: `{"data": [event, …], "next": cursor | null}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryPage<'a> {
    /// The events, newest first.
    pub data: Vec<EventBody<'a>>,
    /// Where the next (older) page starts; null after the oldest.
    #[schema(required)]
    pub next: Option<String>,
}

/// The query of `GET /api/v1/events`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct FeedParams {
    /// The `next` of the previous page, as it was returned; absent: from the oldest event kept.
    #[param(pattern = r"^ev2\.[0-9a-f]{16}\.[0-9]{1,18}(\.[0-9a-f]{32})?$")]
    after: Option<String>,
    /// Only these event types, comma-separated (the parameter may repeat).
    #[serde(default)]
    #[param(style = Form, explode)]
    types: Vec<String>,
    /// Only the events of this subject.
    #[param(value_type = Option<Uuid>)]
    subject_id: Option<String>,
    /// Events per page (default 100).
    #[param(value_type = Option<isize>, minimum = 1, maximum = 1000, default = 100)]
    size: Option<String>,
}

impl From<FeedParams> for RawFeedQuery {
    fn from(p: FeedParams) -> Self {
        Self {
            after: p.after,
            types: p.types,
            subject_id: p.subject_id,
            size: p.size,
        }
    }
}

/// The query of a history (`GET /api/v1/inventory/{id}/history`,
/// `GET /api/v1/people/{id}/history`).
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct HistoryParams {
    /// The `next` of the previous (newer) page, as it was returned.
    #[param(pattern = r"^ev1\.[0-9]{1,18}$")]
    after: Option<String>,
    /// Events per page (default 100).
    #[param(value_type = Option<isize>, minimum = 1, maximum = 1000, default = 100)]
    size: Option<String>,
}

impl From<HistoryParams> for RawHistoryQuery {
    fn from(p: HistoryParams) -> Self {
        Self {
            after: p.after,
            size: p.size,
        }
    }
}

// The parameters' `maximum`, `default` and descriptions are literals
// (utoipa takes no constant there).
const _: () = assert!(MAX_PAGE_SIZE == 1000, "size's maximum");
const _: () = assert!(DEFAULT_PAGE_SIZE == 100, "size's default");

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use equip_domain::event::{changes_between, Changes, RawChanges};
    use equip_domain::ids::OrganizationId;
    use serde_json::json;

    #[test]
    fn an_event_carries_its_stored_changes_as_they_are() {
        let changes = changes_between(&json!({"description": "a"}), &json!({"description": "b"}));
        let stored = RawChanges::of(&changes);
        let key = ApiKeyId::new();
        let item = uuid::Uuid::new_v4();
        let mut event = Event {
            id: EventId::new(),
            organization_id: OrganizationId::new(),
            sequence: 7,
            kind: EventType::ItemUpdated,
            occurred_at: DateTime::from_timestamp(1_700_000_000, 5_000).unwrap(),
            actor: Actor::ApiKey(key),
            subject: Subject {
                kind: SubjectType::InventoryItem,
                id: item,
            },
            changes: RawChanges::from_text(stored.text().map(str::to_owned)).unwrap(),
        };
        let text = serde_json::to_string(&EventBody::from(&event)).unwrap();
        assert_eq!(
            text,
            format!(
                r#"{{"id":"{}","sequence":7,"type":"inventory.item.updated","occurredAt":"2023-11-14T22:13:20.000005Z","actor":{{"type":"API_KEY","id":"{key}"}},"subject":{{"type":"INVENTORY_ITEM","id":"{item}"}},"changes":{{"description":{{"from":"a","to":"b"}}}}}}"#,
                event.id
            )
        );
        // Nothing changed (a deletion): no `changes`; the CLI has no id.
        event.changes = RawChanges::of(&Changes::new());
        event.actor = Actor::Cli;
        let json = serde_json::to_value(EventBody::from(&event)).unwrap();
        assert!(json.get("changes").is_none(), "{json}");
        assert_eq!(json["actor"], json!({"type": "CLI"}));
    }
}
