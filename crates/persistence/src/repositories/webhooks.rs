//! [`WebhookRepository`] and [`WebhookQueue`] for [`Store`]: webhooks and
//! their delivery log, and the dispatcher's claims.
//!
//! Claims follow the outbox's (`repositories/reminders.rs`): one write
//! transaction selects claimable webhooks and sets their lease
//! (`claimed_until`); on PostgreSQL with `FOR UPDATE SKIP LOCKED` (only the
//! `webhooks` rows are locked: the events' `event_sequences` row is read by a
//! subquery, never locked, so writers of events do not wait for a claim), on
//! SQLite under `BEGIN IMMEDIATE`. Progress is written only while the lease
//! is still the webhook's, in one transaction with its delivery-log rows.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::event::EventType;
use equip_domain::event_feed::Cursor;
use equip_domain::ids::{OrganizationId, WebhookId};
use equip_domain::ports::{WebhookQueue, WebhookRepository};
use equip_domain::service_stats::WebhookBacklog;
use equip_domain::webhook::{
    parse_types, room_for_another, AttemptOutcome, DeliveryAttempt, DeliveryState, PreviousSecret,
    SecretChangedMeanwhile, SigningSecrets, Webhook, WebhookLimitReached, WebhookProgress,
    WebhookStatus,
};

use crate::connection::{on_inner, write_transaction, DbConnection};
use crate::error::{DbError, DbResult};
use crate::models::{db_time, parse_id, utc};
use crate::schema::{event_sequences, events, organizations, webhook_deliveries, webhooks};
use crate::store::Store;

/// Rows per multi-row insert of attempts (10 binds each, under SQLite's 999).
const INSERT_CHUNK: usize = 90;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = webhooks, treat_none_as_default_value = false)]
struct WebhookRow {
    id: String,
    organization_id: String,
    url: String,
    types: String,
    secret: String,
    created_at: NaiveDateTime,
    status: String,
    disabled_at: Option<NaiveDateTime>,
    disabled_reason: Option<String>,
    failing_since: Option<NaiveDateTime>,
    position: i64,
    attempts: i32,
    retry_since: Option<NaiveDateTime>,
    next_attempt_at: Option<NaiveDateTime>,
    claimed_until: Option<NaiveDateTime>,
    last_attempt_number: i64,
    previous_secret: Option<String>,
    previous_secret_until: Option<NaiveDateTime>,
}

fn types_text(types: &[EventType]) -> String {
    types
        .iter()
        .map(|t| t.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

impl WebhookRow {
    fn new(w: &Webhook, position: i64) -> Self {
        Self {
            id: w.id.to_string(),
            organization_id: w.organization_id.to_string(),
            url: w.url.clone(),
            types: types_text(&w.types),
            secret: w.secret.clone(),
            created_at: db_time(w.created_at),
            status: w.status.as_str().to_owned(),
            disabled_at: w.disabled_at.map(db_time),
            disabled_reason: w.disabled_reason.clone(),
            failing_since: w.failing_since.map(db_time),
            position,
            attempts: i32::try_from(w.delivery.attempts).unwrap_or(i32::MAX),
            retry_since: w.delivery.retry_since.map(db_time),
            next_attempt_at: w.delivery.next_attempt_at.map(db_time),
            claimed_until: w.claimed_until.map(db_time),
            last_attempt_number: w.last_attempt_number,
            previous_secret: w.previous_secret.as_ref().map(|p| p.secret.clone()),
            previous_secret_until: w.previous_secret.as_ref().map(|p| db_time(p.until)),
        }
    }

    fn into_domain(self) -> DbResult<Webhook> {
        Ok(Webhook {
            id: parse_id(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            url: self.url,
            types: parse_types(self.types.split(',').filter(|t| !t.is_empty()))
                .map_err(DbError::corrupt)?,
            secret: self.secret,
            created_at: utc(self.created_at),
            status: WebhookStatus::parse(&self.status).map_err(DbError::corrupt)?,
            disabled_at: self.disabled_at.map(utc),
            disabled_reason: self.disabled_reason,
            failing_since: self.failing_since.map(utc),
            delivery: DeliveryState {
                position: self.position,
                attempts: u32::try_from(self.attempts).unwrap_or(0),
                retry_since: self.retry_since.map(utc),
                next_attempt_at: self.next_attempt_at.map(utc),
            },
            claimed_until: self.claimed_until.map(utc),
            last_attempt_number: self.last_attempt_number,
            previous_secret: previous_secret(self.previous_secret, self.previous_secret_until),
        })
    }
}

/// The previous secret of a row's two columns (both set, or none).
fn previous_secret(secret: Option<String>, until: Option<NaiveDateTime>) -> Option<PreviousSecret> {
    Some(PreviousSecret {
        secret: secret?,
        until: utc(until?),
    })
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = webhook_deliveries)]
struct AttemptRow {
    webhook_id: String,
    number: i64,
    organization_id: String,
    event_id: String,
    sequence: i64,
    attempted_at: NaiveDateTime,
    status_code: Option<i32>,
    latency_ms: i64,
    error: Option<String>,
    outcome: String,
}

impl From<&DeliveryAttempt> for AttemptRow {
    fn from(a: &DeliveryAttempt) -> Self {
        Self {
            webhook_id: a.webhook_id.to_string(),
            number: a.number,
            organization_id: a.organization_id.to_string(),
            event_id: a.event_id.to_string(),
            sequence: a.sequence,
            attempted_at: db_time(a.attempted_at),
            status_code: a.status_code.map(i32::from),
            latency_ms: i64::try_from(a.latency_ms).unwrap_or(i64::MAX),
            error: a.error.clone(),
            outcome: a.outcome.as_str().to_owned(),
        }
    }
}

impl AttemptRow {
    fn into_domain(self) -> DbResult<DeliveryAttempt> {
        Ok(DeliveryAttempt {
            webhook_id: parse_id(&self.webhook_id)?,
            organization_id: parse_id(&self.organization_id)?,
            number: self.number,
            event_id: parse_id(&self.event_id)?,
            sequence: self.sequence,
            attempted_at: utc(self.attempted_at),
            status_code: self.status_code.and_then(|c| u16::try_from(c).ok()),
            latency_ms: u64::try_from(self.latency_ms).unwrap_or(0),
            error: self.error,
            outcome: AttemptOutcome::parse(&self.outcome).map_err(DbError::corrupt)?,
        })
    }
}

impl WebhookRepository for Store {
    fn insert_webhook(
        &self,
        webhook: &Webhook,
    ) -> StoreResult<Result<Webhook, WebhookLimitReached>> {
        let org = webhook.organization_id.to_string();
        let webhook = webhook.clone();
        self.with("webhook", "webhook exists", |c| {
            write_transaction(c, |c| {
                // The organization's webhooks are counted under its write
                // lock: SQLite's BEGIN IMMEDIATE holds the database's; on
                // PostgreSQL the organization's row, locked FOR NO KEY
                // UPDATE (which rows referencing it do not wait for), so
                // two creates count one after the other.
                if let DbConnection::Postgres(pg) = c {
                    organizations::table
                        .filter(organizations::id.eq(&org))
                        .select(organizations::id)
                        .for_no_key_update()
                        .first::<String>(pg)
                        .optional()?;
                }
                let existing: i64 = webhooks::table
                    .filter(webhooks::organization_id.eq(&org))
                    .count()
                    .get_result(c)?;
                if let Err(limit) =
                    room_for_another(usize::try_from(existing).unwrap_or(usize::MAX))
                {
                    return Ok(Err(limit));
                }
                // It receives the events committed after it: those after the
                // last sequence now.
                let (head, _) = crate::events::positions(c, &org)?;
                let row = WebhookRow::new(&webhook, head);
                diesel::insert_into(webhooks::table)
                    .values(&row)
                    .execute(c)?;
                row.into_domain().map(Ok)
            })
        })
    }

    fn list_webhooks(&self, organization: OrganizationId) -> StoreResult<Vec<Webhook>> {
        self.read("webhook", |c| {
            webhooks::table
                .filter(webhooks::organization_id.eq(organization.to_string()))
                .order((webhooks::created_at.asc(), webhooks::id.asc()))
                .select(WebhookRow::as_select())
                .load(c)?
                .into_iter()
                .map(WebhookRow::into_domain)
                .collect()
        })
    }

    fn find_webhook(
        &self,
        organization: OrganizationId,
        id: WebhookId,
    ) -> StoreResult<Option<Webhook>> {
        self.read("webhook", |c| {
            webhooks::table
                .filter(webhooks::id.eq(id.to_string()))
                .filter(webhooks::organization_id.eq(organization.to_string()))
                .select(WebhookRow::as_select())
                .first(c)
                .optional()?
                .map(WebhookRow::into_domain)
                .transpose()
        })
    }

    fn replace_webhook_secrets(
        &self,
        organization: OrganizationId,
        id: WebhookId,
        expected: &str,
        secrets: &SigningSecrets,
    ) -> StoreResult<Option<Result<Webhook, SecretChangedMeanwhile>>> {
        let id = id.to_string();
        let org = organization.to_string();
        self.with("webhook", "", |c| {
            write_transaction(c, |c| {
                let mine = webhooks::table
                    .filter(webhooks::id.eq(&id))
                    .filter(webhooks::organization_id.eq(&org));
                // Only the secret's columns: the position, the retries and
                // the lease stay as the dispatcher keeps them.
                let changed = diesel::update(mine.filter(webhooks::secret.eq(expected)))
                    .set((
                        webhooks::secret.eq(&secrets.current),
                        webhooks::previous_secret
                            .eq(secrets.previous.as_ref().map(|p| p.secret.clone())),
                        webhooks::previous_secret_until
                            .eq(secrets.previous.as_ref().map(|p| db_time(p.until))),
                    ))
                    .execute(c)?;
                let Some(row) = mine.select(WebhookRow::as_select()).first(c).optional()? else {
                    return Ok(None);
                };
                if changed == 0 {
                    return Ok(Some(Err(SecretChangedMeanwhile)));
                }
                row.into_domain().map(|w| Some(Ok(w)))
            })
        })
    }

    fn delete_webhook(&self, organization: OrganizationId, id: WebhookId) -> StoreResult<bool> {
        let id = id.to_string();
        let org = organization.to_string();
        self.with("webhook", "", |c| {
            write_transaction(c, |c| {
                let owned = webhooks::table
                    .filter(webhooks::id.eq(&id))
                    .filter(webhooks::organization_id.eq(&org))
                    .select(webhooks::id)
                    .first::<String>(c)
                    .optional()?
                    .is_some();
                if !owned {
                    return Ok(false);
                }
                diesel::delete(
                    webhook_deliveries::table.filter(webhook_deliveries::webhook_id.eq(&id)),
                )
                .execute(c)?;
                diesel::delete(webhooks::table.filter(webhooks::id.eq(&id))).execute(c)?;
                Ok(true)
            })
        })
    }

    fn list_webhook_attempts(
        &self,
        organization: OrganizationId,
        id: WebhookId,
        before: Option<Cursor>,
        size: usize,
    ) -> StoreResult<Vec<DeliveryAttempt>> {
        let limit = i64::try_from(size).unwrap_or(i64::MAX);
        self.read("webhook", |c| {
            let mut select = webhook_deliveries::table
                .filter(webhook_deliveries::webhook_id.eq(id.to_string()))
                .filter(webhook_deliveries::organization_id.eq(organization.to_string()))
                .into_boxed();
            if let Some(before) = before {
                select = select.filter(webhook_deliveries::number.lt(before.0));
            }
            select
                .order(webhook_deliveries::number.desc())
                .limit(limit)
                .select(AttemptRow::as_select())
                .load(c)?
                .into_iter()
                .map(AttemptRow::into_domain)
                .collect()
        })
    }
}

/// The `WHERE` clause of a claim: active, due, not leased (or the lease ran
/// out), and with events after its position.
macro_rules! claimable {
    ($now:expr) => {
        webhooks::status
            .eq(WebhookStatus::Active.as_str())
            .and(
                webhooks::next_attempt_at
                    .is_null()
                    .or(webhooks::next_attempt_at.le($now)),
            )
            .and(
                webhooks::claimed_until
                    .is_null()
                    .or(webhooks::claimed_until.lt($now)),
            )
            .and(
                webhooks::position.nullable().lt(event_sequences::table
                    .filter(event_sequences::organization_id.eq(webhooks::organization_id))
                    .select(event_sequences::last_sequence)
                    .single_value()),
            )
    };
}

impl WebhookQueue for Store {
    fn webhook_backlog(&self) -> StoreResult<WebhookBacklog> {
        self.read("webhook", |c| {
            // Per active webhook behind its organization's head: the time of
            // the first event after its position that still exists (a
            // primary-key range lookup; the one right after may be pruned).
            let next: Vec<Option<NaiveDateTime>> = webhooks::table
                .filter(webhooks::status.eq(WebhookStatus::Active.as_str()))
                .filter(
                    webhooks::position.nullable().lt(event_sequences::table
                        .filter(event_sequences::organization_id.eq(webhooks::organization_id))
                        .select(event_sequences::last_sequence)
                        .single_value()),
                )
                .select(
                    events::table
                        .filter(events::organization_id.eq(webhooks::organization_id))
                        .filter(events::sequence.gt(webhooks::position))
                        .order(events::sequence.asc())
                        .select(events::occurred_at)
                        .single_value(),
                )
                .load(c)?;
            Ok(WebhookBacklog {
                behind: next.len() as u64,
                oldest_undelivered_at: next.into_iter().flatten().min().map(utc),
            })
        })
    }

    fn webhooks_due(&self, now: DateTime<Utc>) -> StoreResult<bool> {
        let now = db_time(now);
        self.with("webhook", "", |c| {
            Ok(webhooks::table
                .filter(claimable!(now))
                .select(webhooks::id)
                .first::<String>(c)
                .optional()?
                .is_some())
        })
    }

    fn claim_webhooks(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<Vec<Webhook>> {
        let now = db_time(now);
        let lease = db_time(lease_until);
        let limit = i64::try_from(limit.max(1)).unwrap_or(i64::MAX);
        self.with("webhook", "", |c| {
            write_transaction(c, |c| {
                let ids: Vec<String> = match &mut *c {
                    DbConnection::Postgres(pg) => webhooks::table
                        .filter(claimable!(now))
                        .order(webhooks::id.asc())
                        .limit(limit)
                        .select(webhooks::id)
                        .for_update()
                        .skip_locked()
                        .load(pg)?,
                    other => webhooks::table
                        .filter(claimable!(now))
                        .order(webhooks::id.asc())
                        .limit(limit)
                        .select(webhooks::id)
                        .load(other)?,
                };
                if ids.is_empty() {
                    return Ok(Vec::new());
                }
                diesel::update(webhooks::table.filter(webhooks::id.eq_any(&ids)))
                    .set(webhooks::claimed_until.eq(Some(lease)))
                    .execute(c)?;
                let rows: Vec<WebhookRow> = webhooks::table
                    .filter(webhooks::id.eq_any(&ids))
                    .order(webhooks::id.asc())
                    .select(WebhookRow::as_select())
                    .load(c)?;
                let mut claimed = Vec::with_capacity(rows.len());
                for row in rows {
                    let mut webhook = row.into_domain()?;
                    // Events pruned before they were delivered are gone: go
                    // on after them (with the retries of a pruned event).
                    let (_, pruned_through) =
                        crate::events::positions(c, &webhook.organization_id.to_string())?;
                    if let Some(delivery) = webhook.delivery.after_pruning(pruned_through) {
                        tracing::warn!(
                            "webhook {}: events up to {pruned_through} were pruned before delivery",
                            webhook.id
                        );
                        diesel::update(
                            webhooks::table.filter(webhooks::id.eq(webhook.id.to_string())),
                        )
                        .set((
                            webhooks::position.eq(delivery.position),
                            webhooks::attempts.eq(i32::try_from(delivery.attempts).unwrap_or(0)),
                            webhooks::retry_since.eq(delivery.retry_since.map(db_time)),
                            webhooks::next_attempt_at.eq(delivery.next_attempt_at.map(db_time)),
                        ))
                        .execute(c)?;
                        webhook.delivery = delivery;
                    }
                    claimed.push(webhook);
                }
                Ok(claimed)
            })
        })
    }

    fn save_webhook_progress(
        &self,
        id: WebhookId,
        lease: DateTime<Utc>,
        progress: &WebhookProgress,
    ) -> StoreResult<bool> {
        let id = id.to_string();
        let lease = db_time(lease);
        let rows: Vec<AttemptRow> = progress.attempts.iter().map(AttemptRow::from).collect();
        let d = progress.delivery;
        self.with("webhook", "", |c| {
            write_transaction(c, |c| {
                let target = webhooks::table
                    .filter(webhooks::id.eq(&id))
                    .filter(webhooks::claimed_until.eq(Some(lease)));
                let values = (
                    webhooks::position.eq(d.position),
                    webhooks::attempts.eq(i32::try_from(d.attempts).unwrap_or(i32::MAX)),
                    webhooks::retry_since.eq(d.retry_since.map(db_time)),
                    webhooks::next_attempt_at.eq(d.next_attempt_at.map(db_time)),
                    webhooks::failing_since.eq(progress.failing_since.map(db_time)),
                    webhooks::last_attempt_number.eq(progress.last_attempt_number),
                    webhooks::claimed_until.eq(progress.lease_until.map(db_time)),
                );
                let changed = match &progress.disable {
                    Some((at, reason)) => diesel::update(target)
                        .set((
                            values,
                            webhooks::status.eq(WebhookStatus::Disabled.as_str()),
                            webhooks::disabled_at.eq(Some(db_time(*at))),
                            webhooks::disabled_reason.eq(Some(reason)),
                        ))
                        .execute(c)?,
                    None => diesel::update(target).set(values).execute(c)?,
                };
                if changed == 0 {
                    return Ok(false);
                }
                for chunk in rows.chunks(INSERT_CHUNK) {
                    on_inner!(c, |c| diesel::insert_into(webhook_deliveries::table)
                        .values(chunk)
                        .execute(c))?;
                }
                Ok(true)
            })
        })
    }

    fn leased_webhook_secrets(
        &self,
        id: WebhookId,
        lease: DateTime<Utc>,
    ) -> StoreResult<Option<SigningSecrets>> {
        let id = id.to_string();
        let lease = db_time(lease);
        self.read("webhook", |c| {
            let row: Option<(String, Option<String>, Option<NaiveDateTime>)> = webhooks::table
                .filter(webhooks::id.eq(&id))
                .filter(webhooks::claimed_until.eq(Some(lease)))
                .select((
                    webhooks::secret,
                    webhooks::previous_secret,
                    webhooks::previous_secret_until,
                ))
                .first(c)
                .optional()?;
            Ok(row.map(|(current, previous, until)| SigningSecrets {
                current,
                previous: previous_secret(previous, until),
            }))
        })
    }

    fn prune_webhook_attempts(&self, cutoff: DateTime<Utc>, limit: usize) -> StoreResult<usize> {
        let cutoff = db_time(cutoff);
        let limit = i64::try_from(limit.max(1)).unwrap_or(i64::MAX);
        self.with("webhook", "", |c| {
            // Numbers grow with time per webhook: the old attempts of a
            // webhook are those up to its highest old number.
            let old: Vec<(String, i64)> = webhook_deliveries::table
                .filter(webhook_deliveries::attempted_at.lt(cutoff))
                .order(webhook_deliveries::attempted_at.asc())
                .limit(limit)
                .select((webhook_deliveries::webhook_id, webhook_deliveries::number))
                .load(c)?;
            let mut through: BTreeMap<String, i64> = BTreeMap::new();
            for (webhook, number) in old {
                let max = through.entry(webhook).or_insert(number);
                *max = (*max).max(number);
            }
            let mut deleted = 0;
            for (webhook, number) in through {
                deleted += write_transaction(c, |c| -> DbResult<usize> {
                    Ok(diesel::delete(
                        webhook_deliveries::table
                            .filter(webhook_deliveries::webhook_id.eq(&webhook))
                            .filter(webhook_deliveries::number.le(number))
                            .filter(webhook_deliveries::attempted_at.lt(cutoff)),
                    )
                    .execute(c)?)
                })?;
            }
            Ok(deleted)
        })
    }
}
