//! Webhooks and their delivery log as the API shows and takes them
//! (docs/webhooks.md). What a webhook receives is an event
//! ([`crate::event::EventBody`]).

use chrono::{DateTime, Utc};
use equip_domain::event::EventType;
use equip_domain::event_feed::{DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE};
use equip_domain::ids::{EventId, WebhookId};
use equip_domain::webhook::{
    AttemptOutcome, DeliveryAttempt, Webhook, WebhookStatus, MAX_URL_CHARS,
};
use serde::de::{Deserializer, Error};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::openapi::schema::{Array, Object};
use utoipa::{IntoParams, ToSchema};

use crate::event::event_type;
use crate::schema::{array_of, nullable_array_of, one_of};
use crate::time;

fn webhook_status() -> Object {
    one_of(WebhookStatus::ALL.iter().map(|s| s.as_str()))
}

fn attempt_outcome() -> Object {
    one_of(AttemptOutcome::ALL.iter().map(|s| s.as_str()))
}

fn delivered_types() -> Array {
    array_of(
        event_type(),
        "The event types delivered; empty: every type.",
    )
    .build()
}

fn requested_types() -> Array {
    nullable_array_of(
        event_type(),
        "Event types to deliver; empty, null or absent: every type.",
    )
}

/// A webhook and the state of its delivery (never its secret).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = Webhook)]
pub struct WebhookBody<'a> {
    #[schema(value_type = Uuid)]
    id: WebhookId,
    #[schema(max_length = 2000)]
    url: &'a str,
    #[schema(schema_with = delivered_types)]
    types: &'a [EventType],
    #[serde(serialize_with = "time::millis")]
    created_at: DateTime<Utc>,
    #[schema(schema_with = webhook_status)]
    status: WebhookStatus,
    #[serde(serialize_with = "time::millis_or_null")]
    #[schema(required)]
    disabled_at: Option<DateTime<Utc>>,
    #[schema(required)]
    disabled_reason: Option<&'a str>,
    #[serde(serialize_with = "time::millis_or_null")]
    #[schema(required)]
    failing_since: Option<DateTime<Utc>>,
    /// The sequence of the last event delivered (or given up on).
    #[schema(value_type = isize, minimum = 0)]
    last_delivered_sequence: i64,
    /// Until when deliveries are also signed with the secret before the
    /// last rotation; null when they are signed with the current one only.
    #[serde(serialize_with = "time::millis_or_null")]
    #[schema(required)]
    previous_secret_expires_at: Option<DateTime<Utc>>,
}

impl<'a> From<&'a Webhook> for WebhookBody<'a> {
    fn from(w: &'a Webhook) -> Self {
        Self {
            id: w.id,
            url: &w.url,
            types: &w.types,
            created_at: w.created_at,
            status: w.status,
            disabled_at: w.disabled_at,
            disabled_reason: w.disabled_reason.as_deref(),
            failing_since: w.failing_since,
            last_delivered_sequence: w.delivery.position,
            previous_secret_expires_at: w.signing_secrets().overlap_until(Utc::now()),
        }
    }
}

/// A webhook with its signing secret: the answer of its creation and of a
/// rotation of its secret, the only ones that show the secret.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = WebhookCreated)]
pub struct WebhookCreatedBody<'a> {
    #[schema(value_type = Uuid)]
    id: WebhookId,
    #[schema(max_length = 2000)]
    url: &'a str,
    #[schema(schema_with = delivered_types)]
    types: &'a [EventType],
    #[serde(serialize_with = "time::millis")]
    created_at: DateTime<Utc>,
    #[schema(schema_with = webhook_status)]
    status: WebhookStatus,
    #[serde(serialize_with = "time::millis_or_null")]
    #[schema(required)]
    disabled_at: Option<DateTime<Utc>>,
    #[schema(required)]
    disabled_reason: Option<&'a str>,
    #[serde(serialize_with = "time::millis_or_null")]
    #[schema(required)]
    failing_since: Option<DateTime<Utc>>,
    /// The sequence of the last event delivered (or given up on).
    #[schema(value_type = isize, minimum = 0)]
    last_delivered_sequence: i64,
    /// Until when deliveries are also signed with the secret before the
    /// last rotation; null when they are signed with the current one only.
    #[serde(serialize_with = "time::millis_or_null")]
    #[schema(required)]
    previous_secret_expires_at: Option<DateTime<Utc>>,
    /// The signing secret of `Equip-Signature` and `webhook-signature`;
    /// shown only in this answer.
    #[schema(pattern = "^whsec_[0-9a-f]{64}$")]
    secret: &'a str,
}

impl<'a> From<&'a Webhook> for WebhookCreatedBody<'a> {
    fn from(w: &'a Webhook) -> Self {
        let shown = WebhookBody::from(w);
        Self {
            id: shown.id,
            url: shown.url,
            types: shown.types,
            created_at: shown.created_at,
            status: shown.status,
            disabled_at: shown.disabled_at,
            disabled_reason: shown.disabled_reason,
            failing_since: shown.failing_since,
            last_delivered_sequence: shown.last_delivered_sequence,
            previous_secret_expires_at: shown.previous_secret_expires_at,
            secret: &w.secret,
        }
    }
}

/// `{"data": [webhook, …]}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WebhookList<'a> {
    /// The organization's webhooks, oldest first.
    pub data: Vec<WebhookBody<'a>>,
}

/// A new webhook: where to POST and which events.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = WebhookCreate)]
pub struct WebhookCreate {
    /// https (or http) URL; no credentials, no fragment.
    #[schema(max_length = 2000)]
    pub url: String,
    /// The event types' names as given (the domain reads them).
    #[serde(default, deserialize_with = "type_names")]
    #[schema(schema_with = requested_types)]
    pub types: Option<Vec<String>>,
}

/// A rotation of a webhook's secret: how long the old secret keeps signing
/// beside the new one.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = WebhookSecretRotation)]
pub struct SecretRotation {
    /// Seconds during which deliveries carry the old secret's signature
    /// beside the new one's: 0 (the old secret stops at once) to 604800 (7
    /// days); absent or null: 86400 (24 hours).
    #[serde(default, deserialize_with = "crate::read::optional_whole_number")]
    #[schema(value_type = Option<isize>, minimum = 0, maximum = 604_800)]
    pub overlap_seconds: Option<i64>,
}

/// `types`: absent, null, or an array of strings (which the domain reads as
/// event types); anything else is refused naming `types` itself.
fn type_names<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    let wrong = || D::Error::custom("must be an array of event type names");
    match Option::<Value>::deserialize(d)? {
        None => Ok(None),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|item| match item {
                Value::String(name) => Ok(name),
                _ => Err(wrong()),
            })
            .collect::<Result<_, _>>()
            .map(Some),
        Some(_) => Err(wrong()),
    }
}

/// One delivery attempt of a webhook.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = WebhookDelivery)]
pub struct AttemptBody<'a> {
    #[serde(serialize_with = "time::millis")]
    attempted_at: DateTime<Utc>,
    #[schema(value_type = Uuid)]
    event_id: EventId,
    #[schema(value_type = isize, minimum = 1)]
    sequence: i64,
    /// The receiver's status; null on a time-out or connection error.
    #[schema(value_type = Option<isize>, required)]
    status_code: Option<u16>,
    #[schema(value_type = isize, minimum = 0)]
    latency_ms: u64,
    #[schema(required)]
    error: Option<&'a str>,
    #[schema(schema_with = attempt_outcome)]
    outcome: AttemptOutcome,
}

impl<'a> From<&'a DeliveryAttempt> for AttemptBody<'a> {
    fn from(a: &'a DeliveryAttempt) -> Self {
        Self {
            attempted_at: a.attempted_at,
            event_id: a.event_id,
            sequence: a.sequence,
            status_code: a.status_code,
            latency_ms: a.latency_ms,
            error: a.error.as_deref(),
            outcome: a.outcome,
        }
    }
}

/// A page of a webhook's delivery log: `{"data": [attempt, …], "next": cursor | null}`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AttemptPage<'a> {
    /// The attempts, newest first.
    pub data: Vec<AttemptBody<'a>>,
    /// Where the next (older) page starts; null after the oldest.
    #[schema(required)]
    pub next: Option<String>,
}

/// The query of `GET /api/v1/webhooks/{id}/deliveries`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct AttemptParams {
    /// The `next` of the previous page, as it was returned.
    #[param(pattern = r"^ev1\.[0-9]{1,18}$")]
    pub after: Option<String>,
    /// Attempts per page (default 100).
    #[param(value_type = Option<isize>, minimum = 1, maximum = 1000, default = 100)]
    pub size: Option<String>,
}

// The schemas' limits are literals (utoipa takes no constant there).
const _: () = assert!(MAX_URL_CHARS == 2000, "url's max_length");
const _: () = assert!(MAX_PAGE_SIZE == 1000, "size's maximum");
const _: () = assert!(DEFAULT_PAGE_SIZE == 100, "size's default");

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::read::{from_value, Fault};
    use serde_json::json;

    /// The schema's range and the documented default are the domain's
    /// (`RotationOverlap`): the one source of the limit.
    #[test]
    fn the_rotation_overlap_schema_is_the_domains_range() {
        use equip_domain::webhook::RotationOverlap;
        let schema =
            serde_json::to_value(<SecretRotation as utoipa::PartialSchema>::schema()).unwrap();
        let field = &schema["properties"]["overlapSeconds"];
        assert_eq!(
            field["maximum"],
            json!(RotationOverlap::MAX_SECONDS),
            "{field}"
        );
        assert_eq!(field["minimum"], json!(0), "{field}");
        let text = field["description"].as_str().unwrap_or_default();
        assert!(
            text.contains(&RotationOverlap::MAX_SECONDS.to_string()),
            "{text}"
        );
        assert!(
            text.contains(&RotationOverlap::DEFAULT_SECONDS.to_string()),
            "{text}"
        );
    }

    #[test]
    fn types_are_named_as_a_whole_when_not_an_array_of_strings() {
        let read = |v: Value| from_value::<WebhookCreate>(v);
        let ok = read(json!({"url": "https://x.example/", "types": ["person.created"]})).unwrap();
        assert_eq!(ok.types, Some(vec!["person.created".to_owned()]));
        assert_eq!(
            read(json!({"url": "u", "types": null})).unwrap().types,
            None
        );
        assert_eq!(read(json!({"url": "u"})).unwrap().types, None);
        for bad in [json!("person.created"), json!([1]), json!({})] {
            let e = read(json!({"url": "u", "types": bad})).unwrap_err();
            assert_eq!(
                (e.path.as_str(), e.fault),
                (
                    "types",
                    Fault::Invalid("must be an array of event type names".into())
                )
            );
        }
        let e = read(json!({"url": "u", "secret": "x"})).unwrap_err();
        assert_eq!(e.path, "secret");
        let e = read(json!({"url": null})).unwrap_err();
        assert_eq!(e.path, "url");
    }
}
