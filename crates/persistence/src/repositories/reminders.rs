//! [`ReminderRepository`] and [`OutboxRepository`] for [`Store`]: reminders
//! and their emails written in one transaction, and the dispatcher's claims.
//!
//! Claiming: one write transaction selects due, unleased messages and sets
//! their lease (`claimed_until`). On PostgreSQL the select takes row locks with
//! `FOR UPDATE SKIP LOCKED`, so concurrent dispatchers (other processes, other
//! hosts) pass over each other's rows instead of waiting or double-claiming; a
//! row another claimer committed meanwhile is re-checked against the `WHERE`
//! clause under the lock and skipped. On SQLite the transaction starts with
//! `BEGIN IMMEDIATE`: one writer at a time, across processes too. Marking the
//! outcome checks the lease value, so a dispatcher whose lease ran out can no
//! longer mark a message that another dispatcher has claimed since.

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::dsl::{count_star, min};
use diesel::prelude::*;

use equip_domain::catalog::Package;
use equip_domain::error::StoreResult;
use equip_domain::event::{EventType, NewEvent};
use equip_domain::ids::{OrganizationId, OutboxMessageId, PackageId, PersonId, ReminderId};
use equip_domain::orders::OrderStatus;
use equip_domain::ports::{OutboxRepository, ReminderRepository};
use equip_domain::reminder::{
    AfterFailure, DeliveryStatus, OutboxMessage, OutboxStats, Reminder, ReminderDelivery,
};

use crate::connection::{write_transaction, DbConnection};
use crate::error::{DbError, DbResult};
use crate::events::{recorded, Recorder};
use crate::models::{db_time, parse_id, utc, PackageRow};
use crate::schema::{orders, outbox_messages, packages, reminders};
use crate::store::Store;

/// Longest stored `last_error` (characters).
const MAX_ERROR_CHARS: usize = 2000;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = reminders, treat_none_as_default_value = false)]
struct ReminderRow {
    id: String,
    organization_id: String,
    person_id: String,
    sender_person_id: Option<String>,
    status: String,
    created_at: NaiveDateTime,
}

impl From<&Reminder> for ReminderRow {
    fn from(r: &Reminder) -> Self {
        Self {
            id: r.id.to_string(),
            organization_id: r.organization_id.to_string(),
            person_id: r.person_id.to_string(),
            sender_person_id: r.sender_person_id.map(|s| s.to_string()),
            status: r.status.as_str().to_owned(),
            created_at: db_time(r.created_at),
        }
    }
}

fn status(raw: &str) -> DbResult<DeliveryStatus> {
    DeliveryStatus::parse(raw).map_err(|e| DbError::corrupt(e.to_string()))
}

impl ReminderRow {
    fn into_domain(self) -> DbResult<Reminder> {
        Ok(Reminder {
            id: parse_id(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            person_id: parse_id(&self.person_id)?,
            sender_person_id: self
                .sender_person_id
                .as_deref()
                .map(parse_id::<PersonId>)
                .transpose()?,
            status: status(&self.status)?,
            created_at: utc(self.created_at),
        })
    }
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = outbox_messages, treat_none_as_default_value = false)]
struct OutboxRow {
    id: String,
    organization_id: String,
    reminder_id: String,
    recipient: String,
    subject: String,
    body_text: String,
    body_html: String,
    status: String,
    attempts: i32,
    next_attempt_at: NaiveDateTime,
    last_error: Option<String>,
    sent_at: Option<NaiveDateTime>,
    claimed_until: Option<NaiveDateTime>,
    created_at: NaiveDateTime,
}

impl From<&OutboxMessage> for OutboxRow {
    fn from(m: &OutboxMessage) -> Self {
        Self {
            id: m.id.to_string(),
            organization_id: m.organization_id.to_string(),
            reminder_id: m.reminder_id.to_string(),
            recipient: m.recipient.clone(),
            subject: m.subject.clone(),
            body_text: m.body_text.clone(),
            body_html: m.body_html.clone(),
            status: m.status.as_str().to_owned(),
            attempts: m.attempts,
            next_attempt_at: db_time(m.next_attempt_at),
            last_error: m.last_error.clone(),
            sent_at: m.sent_at.map(db_time),
            claimed_until: m.claimed_until.map(db_time),
            created_at: db_time(m.created_at),
        }
    }
}

impl OutboxRow {
    fn into_domain(self) -> DbResult<OutboxMessage> {
        Ok(OutboxMessage {
            id: parse_id(&self.id)?,
            organization_id: parse_id(&self.organization_id)?,
            reminder_id: parse_id(&self.reminder_id)?,
            recipient: self.recipient,
            subject: self.subject,
            body_text: self.body_text,
            body_html: self.body_html,
            status: status(&self.status)?,
            attempts: self.attempts,
            next_attempt_at: utc(self.next_attempt_at),
            last_error: self.last_error,
            sent_at: self.sent_at.map(utc),
            claimed_until: self.claimed_until.map(utc),
            created_at: utc(self.created_at),
        })
    }
}

impl ReminderRepository for Store {
    fn find_reminder_package(
        &self,
        organization: OrganizationId,
        id: PackageId,
    ) -> StoreResult<Option<Package>> {
        self.with("package", "", |c| {
            packages::table
                .filter(packages::id.eq(id.to_string()))
                .filter(packages::organization_id.eq(organization.to_string()))
                .select(PackageRow::as_select())
                .first(c)
                .optional()?
                .map(PackageRow::into_domain)
                .transpose()
        })
    }

    fn find_reminder_order_status(
        &self,
        organization: OrganizationId,
        person: PersonId,
    ) -> StoreResult<Option<OrderStatus>> {
        self.read("order", |c| {
            let status: Option<String> = orders::table
                .filter(orders::organization_id.eq(organization.to_string()))
                .filter(orders::person_id.eq(person.to_string()))
                .filter(orders::status.ne(OrderStatus::Cancelled.as_str()))
                .select(orders::status)
                .first(c)
                .optional()?;
            status
                .map(|s| OrderStatus::parse(&s).map_err(DbError::corrupt))
                .transpose()
        })
    }

    fn insert_reminder(&self, reminder: &Reminder, message: &OutboxMessage) -> StoreResult<()> {
        let event = NewEvent::created(EventType::ReminderCreated, reminder);
        let at = reminder.created_at;
        let reminder = ReminderRow::from(reminder);
        let message = OutboxRow::from(message);
        self.with("reminder", "reminder exists", |c| {
            recorded(c, &self.actor, |c, events| {
                diesel::insert_into(reminders::table)
                    .values(&reminder)
                    .execute(c)?;
                diesel::insert_into(outbox_messages::table)
                    .values(&message)
                    .execute(c)?;
                events.push(&reminder.organization_id, at, event.clone());
                Ok::<_, DbError>(())
            })
        })
    }

    fn list_reminders(
        &self,
        organization: OrganizationId,
        person: PersonId,
    ) -> StoreResult<Vec<ReminderDelivery>> {
        self.with("reminder", "", |c| {
            let rows: Vec<(ReminderRow, OutboxRow)> = reminders::table
                .inner_join(
                    outbox_messages::table.on(outbox_messages::reminder_id
                        .eq(reminders::id)
                        .and(outbox_messages::organization_id.eq(reminders::organization_id))),
                )
                .filter(reminders::organization_id.eq(organization.to_string()))
                .filter(reminders::person_id.eq(person.to_string()))
                .order((reminders::created_at.desc(), reminders::id.desc()))
                .select((ReminderRow::as_select(), OutboxRow::as_select()))
                .load(c)?;
            rows.into_iter()
                .map(|(r, m)| {
                    let mut reminder = r.into_domain()?;
                    let m = m.into_domain()?;
                    reminder.status = m.status;
                    Ok(ReminderDelivery {
                        reminder,
                        attempts: m.attempts,
                        next_attempt_at: m.next_attempt_at,
                        last_error: m.last_error,
                        sent_at: m.sent_at,
                    })
                })
                .collect()
        })
    }
}

/// The `WHERE` clause of a claim: pending, due, and not leased (or the lease ran out).
macro_rules! due {
    ($now:expr) => {
        outbox_messages::status
            .eq(DeliveryStatus::Pending.as_str())
            .and(outbox_messages::next_attempt_at.le($now))
            .and(
                outbox_messages::claimed_until
                    .is_null()
                    .or(outbox_messages::claimed_until.lt($now)),
            )
    };
}

/// Sets the reminder of outbox message `id` to `status` (SENT or DEAD) and
/// records its event.
fn settle_reminder(
    c: &mut DbConnection,
    events: &mut Recorder,
    id: &str,
    status: DeliveryStatus,
    at: DateTime<Utc>,
) -> DbResult<()> {
    let (reminder, org): (String, String) = outbox_messages::table
        .filter(outbox_messages::id.eq(id))
        .select((
            outbox_messages::reminder_id,
            outbox_messages::organization_id,
        ))
        .first(c)?;
    diesel::update(reminders::table.filter(reminders::id.eq(&reminder)))
        .set(reminders::status.eq(status.as_str()))
        .execute(c)?;
    let reminder = ReminderId::parse(&reminder).map_err(DbError::corrupt)?;
    let delivered = status == DeliveryStatus::Sent;
    events.push(&org, at, NewEvent::reminder_settled(reminder, delivered));
    Ok(())
}

impl OutboxRepository for Store {
    fn claim_outbox_messages(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
    ) -> StoreResult<Vec<OutboxMessage>> {
        let now = db_time(now);
        let lease = db_time(lease_until);
        let limit = i64::try_from(limit.max(1)).unwrap_or(i64::MAX);
        self.with("outboxMessage", "", |c| {
            write_transaction(c, |c| {
                let ids: Vec<String> = match &mut *c {
                    DbConnection::Postgres(pg) => outbox_messages::table
                        .filter(due!(now))
                        .order((
                            outbox_messages::next_attempt_at.asc(),
                            outbox_messages::id.asc(),
                        ))
                        .limit(limit)
                        .select(outbox_messages::id)
                        .for_update()
                        .skip_locked()
                        .load(pg)?,
                    other => outbox_messages::table
                        .filter(due!(now))
                        .order((
                            outbox_messages::next_attempt_at.asc(),
                            outbox_messages::id.asc(),
                        ))
                        .limit(limit)
                        .select(outbox_messages::id)
                        .load(other)?,
                };
                if ids.is_empty() {
                    return Ok(Vec::new());
                }
                diesel::update(outbox_messages::table.filter(outbox_messages::id.eq_any(&ids)))
                    .set((
                        outbox_messages::claimed_until.eq(Some(lease)),
                        outbox_messages::attempts.eq(outbox_messages::attempts + 1),
                    ))
                    .execute(c)?;
                outbox_messages::table
                    .filter(outbox_messages::id.eq_any(&ids))
                    .order((
                        outbox_messages::next_attempt_at.asc(),
                        outbox_messages::id.asc(),
                    ))
                    .select(OutboxRow::as_select())
                    .load(c)?
                    .into_iter()
                    .map(OutboxRow::into_domain)
                    .collect::<DbResult<Vec<_>>>()
            })
        })
    }

    fn mark_outbox_sent(
        &self,
        id: OutboxMessageId,
        lease: DateTime<Utc>,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let id = id.to_string();
        let lease = db_time(lease);
        let sent_at = at;
        let at = db_time(at);
        self.with("outboxMessage", "", |c| {
            recorded(c, &self.actor, |c, events| {
                let changed = diesel::update(
                    outbox_messages::table
                        .filter(outbox_messages::id.eq(&id))
                        .filter(outbox_messages::claimed_until.eq(Some(lease)))
                        .filter(outbox_messages::status.eq(DeliveryStatus::Pending.as_str())),
                )
                .set((
                    outbox_messages::status.eq(DeliveryStatus::Sent.as_str()),
                    outbox_messages::sent_at.eq(Some(at)),
                    outbox_messages::claimed_until.eq(None::<NaiveDateTime>),
                ))
                .execute(c)?;
                if changed == 0 {
                    return Ok(false);
                }
                settle_reminder(c, events, &id, DeliveryStatus::Sent, sent_at)?;
                Ok::<_, DbError>(true)
            })
        })
    }

    fn mark_outbox_failed(
        &self,
        id: OutboxMessageId,
        lease: DateTime<Utc>,
        outcome: AfterFailure,
        error: &str,
    ) -> StoreResult<bool> {
        let id = id.to_string();
        let lease = db_time(lease);
        let error: String = error.chars().take(MAX_ERROR_CHARS).collect();
        let (status, next) = match outcome {
            AfterFailure::RetryAt(at) => (DeliveryStatus::Pending, Some(db_time(at))),
            AfterFailure::Dead => (DeliveryStatus::Dead, None),
        };
        self.with("outboxMessage", "", |c| {
            recorded(c, &self.actor, |c, events| {
                let target = outbox_messages::table
                    .filter(outbox_messages::id.eq(&id))
                    .filter(outbox_messages::claimed_until.eq(Some(lease)))
                    .filter(outbox_messages::status.eq(DeliveryStatus::Pending.as_str()));
                let values = (
                    outbox_messages::status.eq(status.as_str()),
                    outbox_messages::last_error.eq(Some(&error)),
                    outbox_messages::claimed_until.eq(None::<NaiveDateTime>),
                );
                let changed = match next {
                    Some(next) => diesel::update(target)
                        .set((values, outbox_messages::next_attempt_at.eq(next)))
                        .execute(c)?,
                    None => diesel::update(target).set(values).execute(c)?,
                };
                if changed == 0 {
                    return Ok(false);
                }
                if status != DeliveryStatus::Pending {
                    settle_reminder(c, events, &id, status, Utc::now())?;
                }
                Ok::<_, DbError>(true)
            })
        })
    }

    fn outbox_stats(&self) -> StoreResult<OutboxStats> {
        self.with("outboxMessage", "", |c| {
            let (pending, oldest): (i64, Option<NaiveDateTime>) = outbox_messages::table
                .filter(outbox_messages::status.eq(DeliveryStatus::Pending.as_str()))
                .select((count_star(), min(outbox_messages::created_at)))
                .first(c)?;
            let dead: i64 = outbox_messages::table
                .filter(outbox_messages::status.eq(DeliveryStatus::Dead.as_str()))
                .select(count_star())
                .first(c)?;
            Ok(OutboxStats {
                pending: u64::try_from(pending).unwrap_or(0),
                dead: u64::try_from(dead).unwrap_or(0),
                oldest_pending_created_at: oldest.map(utc),
            })
        })
    }
}
