//! Events: written in the transaction of the change they record, read as the
//! feed and as histories, pruned after their retention.
//!
//! # Sequences in commit order
//!
//! A writing transaction collects its events in a [`Recorder`] and writes them
//! as its **last** statements before COMMIT ([`recorded`]): first it takes its
//! sequences by an upsert of the organization's `event_sequences` row
//! (`last_sequence = last_sequence + n … RETURNING`), then it inserts the
//! events (on PostgreSQL both in one statement; a person created through
//! SCIM Bulk or CSV is one statement with its event: [`write_recorded_pg`],
//! whose upsert still runs after the writes). On PostgreSQL the upsert locks the row until the transaction
//! ends, so a second writer of the same organization waits there until the
//! first has committed (and then reads its committed `last_sequence`) or
//! rolled back (and then reuses its numbers). Sequences are therefore given
//! out in commit order and without gaps: when a reader sees sequence n
//! committed, every lower sequence was committed before it. On SQLite every
//! write transaction holds the database's one write lock from `BEGIN
//! IMMEDIATE`, which gives the same order. docs/events.md has the whole
//! argument; `crates/server/tests/api/http_events.rs` tests it with two
//! instances.
//!
//! Writers of different organizations never wait for each other here; a
//! transaction that records events of several organizations (the outbox's
//! deliveries are one per transaction) takes their rows in organization-id
//! order, so two of them cannot deadlock.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use chrono::{DateTime, Utc};
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::upsert::excluded;

use equip_domain::event::{Actor, Event, EventType, NewEvent, RawChanges, Subject, SubjectType};
use equip_domain::event_feed::{Cursor, FeedMarks, FeedQuery, FeedRead};
use equip_domain::ids::{EventId, OrganizationId};

use crate::connection::{on_inner, write_transaction, DbConnection};
use crate::error::{DbError, DbResult};
use crate::models::{db_time, utc};
use crate::schema::{event_sequences, events};
use crate::sql_builder::Sql;

/// Rows per multi-row insert of events (10 binds each, under SQLite's
/// conservative 999 bind limit).
const INSERT_CHUNK: usize = 90;

/// Events this process has written (committed), for the metrics.
static EVENTS_WRITTEN: AtomicU64 = AtomicU64::new(0);

/// Events written (committed) by this process since it started, by every
/// store of it (`equip_events_written_total`, docs/reliability.md,
/// "Metrics").
#[must_use]
pub fn events_written() -> u64 {
    EVENTS_WRITTEN.load(Ordering::Relaxed)
}

fn count_written(n: usize) {
    EVENTS_WRITTEN.fetch_add(u64::try_from(n).unwrap_or(u64::MAX), Ordering::Relaxed);
}

/// The events of one write transaction, written just before it commits.
#[derive(Debug)]
pub(crate) struct Recorder {
    actor: Actor,
    pending: Vec<(String, DateTime<Utc>, NewEvent)>,
}

impl Recorder {
    pub(crate) fn new(actor: Actor) -> Self {
        Self {
            actor,
            pending: Vec::new(),
        }
    }

    /// Records `event` of organization `org` (as stored text), at `at`.
    pub(crate) fn push(&mut self, org: &str, at: DateTime<Utc>, event: NewEvent) {
        self.pending.push((org.to_owned(), at, event));
    }

    /// Records `event` when there is one (an update that changed something).
    pub(crate) fn push_some(&mut self, org: &str, at: DateTime<Utc>, event: Option<NewEvent>) {
        if let Some(event) = event {
            self.push(org, at, event);
        }
    }

    /// Writes the collected events: per organization (in id order), the
    /// sequences, then the rows.
    fn write(self, c: &mut DbConnection) -> DbResult<()> {
        let mut by_org: BTreeMap<String, Vec<(DateTime<Utc>, NewEvent)>> = BTreeMap::new();
        for (org, at, event) in self.pending {
            by_org.entry(org).or_default().push((at, event));
        }
        for (org, events) in by_org {
            match c {
                DbConnection::Postgres(_) => {
                    for chunk in events.chunks(INSERT_CHUNK) {
                        let mut sql = Sql::default();
                        sql.push_sql("WITH ");
                        push_numbered_insert(&mut sql, &self.actor, &org, chunk, 0)?;
                        sql.execute(c)?;
                    }
                }
                DbConnection::Sqlite(_) => {
                    let count = i64::try_from(events.len()).map_err(DbError::corrupt)?;
                    let last = take_sequences(c, &org, count)?;
                    let first = last - count + 1;
                    let rows: Vec<EventRow> = events
                        .iter()
                        .zip(first..)
                        .map(|((at, event), sequence)| {
                            EventRow::new(&org, sequence, &self.actor, *at, event)
                        })
                        .collect::<DbResult<_>>()?;
                    for chunk in rows.chunks(INSERT_CHUNK) {
                        on_inner!(c, |c| diesel::insert_into(events::table)
                            .values(chunk)
                            .execute(c))?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// PostgreSQL: appends `s AS (<upsert>) INSERT INTO events …` to a `WITH`
/// clause: the sequences of `events` taken and the events inserted in one
/// statement (one round trip instead of two). The upsert of
/// [`take_sequences`] is the common table expression whose `RETURNING`
/// numbers the rows of a `VALUES` list; it locks the organization's row until
/// the transaction ends, as there. With `after_writes` > 0 the clause already
/// holds writes `w0`, `w1`, … (with `RETURNING`): the upsert reads their
/// row counts, so it runs only once they are done, and the sequence stays the
/// last lock the statement takes (see [`write_recorded_pg`]).
fn push_numbered_insert(
    sql: &mut Sql,
    actor: &Actor,
    org: &str,
    events: &[(DateTime<Utc>, NewEvent)],
    after_writes: usize,
) -> DbResult<()> {
    let count = i64::try_from(events.len()).map_err(DbError::corrupt)?;
    sql.push_sql("s AS (INSERT INTO event_sequences (organization_id, last_sequence) SELECT ")
        .push_bind(org)
        .push_sql(", ")
        .push_bind(count);
    for i in 0..after_writes {
        sql.push_sql(if i == 0 { " FROM " } else { ", " })
            .push_sql(&format!("(SELECT count(*) FROM w{i}) AS n{i}"));
    }
    sql.push_sql(
        " ON CONFLICT (organization_id) DO UPDATE \
         SET last_sequence = event_sequences.last_sequence + excluded.last_sequence \
         RETURNING last_sequence) \
         INSERT INTO events (organization_id, sequence, id, \"type\", occurred_at, actor_type, \
         actor_id, subject_type, subject_id, changes, actor_email) \
         SELECT v.organization_id, s.last_sequence - ",
    )
    .push_bind(count)
    .push_sql(
        " + v.n, v.id, v.kind, v.occurred_at, v.actor_type, v.actor_id, v.subject_type, \
         v.subject_id, v.changes, v.actor_email FROM s CROSS JOIN (VALUES ",
    );
    for (n, (at, event)) in (1_i64..).zip(events) {
        let row = EventRow::new(org, n, actor, *at, event)?;
        if n > 1 {
            sql.push_sql(", ");
        }
        sql.push_sql("(")
            .push_bind(row.organization_id)
            .push_sql(", ")
            .push_bind(row.sequence)
            .push_sql(", ")
            .push_bind(row.id)
            .push_sql(", ")
            .push_bind(row.kind)
            .push_sql(", ")
            .push_bind(row.occurred_at)
            .push_sql(", ")
            .push_bind(row.actor_type)
            .push_sql(", ")
            .push_bind(row.actor_id)
            .push_sql(", ")
            .push_bind(row.subject_type)
            .push_sql(", ")
            .push_bind(row.subject_id)
            .push_sql(", ")
            .push_bind(row.changes)
            .push_sql(", ")
            .push_bind(row.actor_email)
            .push_sql(")");
    }
    sql.push_sql(
        ") AS v (organization_id, n, id, kind, occurred_at, actor_type, actor_id, \
         subject_type, subject_id, changes, actor_email)",
    );
    if events.len() > 1 {
        // One shape per number of rows: keep only the common one prepared.
        sql.uncached();
    }
    Ok(())
}

/// PostgreSQL: `writes` (Diesel statements returning rows: inserts with a
/// `RETURNING` clause, locking reads) and `event`, which records them, as
/// **one** statement and so one transaction of its own: `WITH w0 AS
/// (<write>), w1 AS (…), s AS (<upsert>) INSERT INTO events …`. One round
/// trip where [`recorded`] takes `BEGIN`, the writes, the events and
/// `COMMIT`: a person created through SCIM Bulk or CSV is one statement.
///
/// The order inside the statement is the one [`recorded`] keeps: the upsert
/// of the sequence reads the writes' row counts, so the writes (and any
/// lock they wait for, as a unique index entry of a concurrent transaction)
/// are done before the organization's sequence row is locked, and that lock
/// is held from there to the commit right after. Foreign keys are checked at
/// the end of the statement (so a write may refer to a row another one
/// inserts), which is after the sequence is taken: a referenced row that
/// another transaction may lock (a package an import updates) must be
/// locked by a write of its own first (`SELECT … FOR KEY SHARE`), or the
/// two transactions could wait for each other.
pub(crate) fn write_recorded_pg(
    c: &mut PgConnection,
    actor: &Actor,
    org: &str,
    at: DateTime<Utc>,
    event: NewEvent,
    writes: &[&dyn QueryFragment<Pg>],
) -> DbResult<()> {
    let mut events = Sql::default();
    push_numbered_insert(&mut events, actor, org, &[(at, event)], writes.len())?;
    WithWrites {
        writes,
        then: &events,
    }
    .execute(c)?;
    // One statement: committed when it returns (outside a transaction).
    count_written(1);
    Ok(())
}

/// Runs `writes` as one statement (`WITH w0 AS (…), … SELECT 1`), inside
/// the caller's transaction: a person and their emails in one round trip
/// when people are created together (their events are written at the end of
/// the transaction, [`recorded`]).
pub(crate) fn write_together_pg(
    c: &mut PgConnection,
    writes: &[&dyn QueryFragment<Pg>],
) -> DbResult<()> {
    let mut then = Sql::default();
    then.push_sql("done AS (SELECT 1) SELECT 1");
    WithWrites {
        writes,
        then: &then,
    }
    .execute(c)?;
    Ok(())
}

/// Statements of [`write_recorded_pg`] with more writes than this are not
/// kept prepared (each number of writes is a statement of its own).
const CACHED_WRITES_MAX: usize = 4;

/// `WITH w0 AS (<writes[0]>), … <then>`, where `then` continues the `WITH`
/// clause (see [`write_recorded_pg`]).
struct WithWrites<'a> {
    writes: &'a [&'a dyn QueryFragment<Pg>],
    then: &'a Sql,
}

impl QueryFragment<Pg> for WithWrites<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        if self.writes.len() > CACHED_WRITES_MAX {
            // Open-ended shapes (a person with many emails) are not kept
            // prepared on the connection.
            out.unsafe_to_cache_prepared();
        }
        out.push_sql("WITH ");
        for (i, write) in self.writes.iter().enumerate() {
            out.push_sql(&format!("w{i} AS ("));
            write.walk_ast(out.reborrow())?;
            out.push_sql("), ");
        }
        self.then.walk_ast(out.reborrow())
    }
}

impl QueryId for WithWrites<'_> {
    type QueryId = ();
    // Cached by SQL text, as `Sql`.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl RunQueryDsl<PgConnection> for WithWrites<'_> {}

/// A write transaction (as [`write_transaction`]) whose events, collected by
/// `body` in the [`Recorder`], are written as its last statements, so an
/// event exists if and only if its change committed.
pub(crate) fn recorded<T, E>(
    c: &mut DbConnection,
    actor: &Actor,
    mut body: impl FnMut(&mut DbConnection, &mut Recorder) -> Result<T, E>,
) -> Result<T, E>
where
    E: From<DbError> + From<diesel::result::Error> + crate::error::LockConflict,
{
    let mut written = 0;
    let value = write_transaction(c, |c| {
        let mut recorder = Recorder::new(actor.clone());
        let value = body(c, &mut recorder)?;
        written = recorder.pending.len();
        recorder.write(c)?;
        Ok::<T, E>(value)
    })?;
    count_written(written);
    Ok(value)
}

/// Advances the organization's last sequence by `count`; returns the new
/// last one. Locks the organization's row until the transaction ends.
fn take_sequences(c: &mut DbConnection, org: &str, count: i64) -> DbResult<i64> {
    let last = on_inner!(c, |c| diesel::insert_into(event_sequences::table)
        .values((
            event_sequences::organization_id.eq(org),
            event_sequences::last_sequence.eq(count),
        ))
        .on_conflict(event_sequences::organization_id)
        .do_update()
        .set(
            event_sequences::last_sequence
                .eq(event_sequences::last_sequence + excluded(event_sequences::last_sequence)),
        )
        .returning(event_sequences::last_sequence)
        .get_result::<i64>(c))?;
    Ok(last)
}

#[derive(Insertable, Queryable, Selectable)]
#[diesel(table_name = events)]
struct EventRow {
    organization_id: String,
    sequence: i64,
    id: String,
    kind: String,
    occurred_at: chrono::NaiveDateTime,
    actor_type: String,
    actor_id: Option<String>,
    subject_type: String,
    subject_id: String,
    changes: Option<String>,
    actor_email: Option<String>,
}

impl EventRow {
    fn new(
        org: &str,
        sequence: i64,
        actor: &Actor,
        at: DateTime<Utc>,
        e: &NewEvent,
    ) -> DbResult<Self> {
        let changes = if e.changes.is_empty() {
            None
        } else {
            Some(serde_json::to_string(&e.changes).map_err(DbError::corrupt)?)
        };
        let (actor_id, actor_email) = actor.stored_parts();
        Ok(Self {
            organization_id: org.to_owned(),
            sequence,
            id: EventId::new().to_string(),
            kind: e.kind.as_str().to_owned(),
            occurred_at: db_time(at),
            actor_type: actor.kind().as_str().to_owned(),
            actor_id,
            subject_type: e.subject.kind.as_str().to_owned(),
            subject_id: e.subject.id.hyphenated().to_string(),
            changes,
            actor_email,
        })
    }

    fn into_domain(self) -> DbResult<Event> {
        let changes = RawChanges::from_text(self.changes).map_err(DbError::corrupt)?;
        Ok(Event {
            id: EventId::parse(&self.id).map_err(DbError::corrupt)?,
            organization_id: OrganizationId::parse(&self.organization_id)
                .map_err(DbError::corrupt)?,
            sequence: self.sequence,
            kind: EventType::parse(&self.kind).map_err(DbError::corrupt)?,
            occurred_at: utc(self.occurred_at),
            actor: Actor::from_parts(
                &self.actor_type,
                self.actor_id.as_deref(),
                self.actor_email.as_deref(),
            )
            .map_err(DbError::corrupt)?,
            subject: Subject {
                kind: SubjectType::parse(&self.subject_type).map_err(DbError::corrupt)?,
                id: uuid::Uuid::parse_str(&self.subject_id).map_err(DbError::corrupt)?,
            },
            changes,
        })
    }
}

/// The organization's last sequence and how far it was pruned (0, 0 before
/// its first event).
pub(crate) fn positions(c: &mut DbConnection, org: &str) -> DbResult<(i64, i64)> {
    Ok(event_sequences::table
        .filter(event_sequences::organization_id.eq(org))
        .select((
            event_sequences::last_sequence,
            event_sequences::pruned_through,
        ))
        .first::<(i64, i64)>(c)
        .optional()?
        .unwrap_or((0, 0)))
}

/// What [`feed_positions`] reads.
#[derive(diesel::QueryableByName)]
struct FeedPositionsRow {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    head: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    pruned_through: i64,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    head_id: Option<String>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
    after_id: Option<String>,
}

/// The organization's last sequence, how far it was pruned, and the ids of
/// the events at the head and at `after` ([`FeedMarks`]), in one statement,
/// so that they agree with each other even while events are pruned: a
/// position's id is its event's, or, when the position is where pruning
/// stopped, the id kept of the last event pruned.
fn feed_positions(c: &mut DbConnection, org: &str, after: i64) -> DbResult<(i64, i64, FeedMarks)> {
    let mut sql = Sql::default();
    sql.push_sql(
        "SELECT s.last_sequence AS head, s.pruned_through AS pruned_through, \
         COALESCE(h.id, CASE WHEN s.pruned_through = s.last_sequence \
         THEN s.pruned_through_id END) AS head_id, \
         COALESCE(a.id, CASE WHEN s.pruned_through = ",
    )
    .push_bind(after)
    .push_sql(
        " THEN s.pruned_through_id END) AS after_id \
         FROM event_sequences s \
         LEFT JOIN events h ON h.organization_id = s.organization_id \
         AND h.sequence = s.last_sequence \
         LEFT JOIN events a ON a.organization_id = s.organization_id AND a.sequence = ",
    )
    .push_bind(after)
    .push_sql(" WHERE s.organization_id = ")
    .push_bind(org);
    let Some(row) = sql.load::<FeedPositionsRow>(c)?.into_iter().next() else {
        return Ok((0, 0, FeedMarks::default()));
    };
    let mark = |id: Option<String>| {
        id.map(|id| EventId::parse(&id).map_err(DbError::corrupt))
            .transpose()
    };
    let marks = FeedMarks {
        after: if after > 0 { mark(row.after_id)? } else { None },
        head: if row.head > 0 {
            mark(row.head_id)?
        } else {
            None
        },
    };
    Ok((row.head, row.pruned_through, marks))
}

/// The feed: the head (and the [`FeedMarks`]) first, then the events (see
/// [`FeedRead::Events`]).
pub(crate) fn read_feed(
    c: &mut DbConnection,
    organization: OrganizationId,
    query: &FeedQuery,
) -> DbResult<FeedRead> {
    let org = organization.to_string();
    let (head, pruned_through, marks) =
        feed_positions(c, &org, query.after.map_or(0, |cursor| cursor.0))?;
    let after = match query.start(head, pruned_through) {
        Ok(after) => after,
        Err(refused) => return Ok(refused),
    };
    let mut select = events::table
        .filter(events::organization_id.eq(&org))
        .filter(events::sequence.gt(after))
        .into_boxed();
    if !query.types.is_empty() {
        let types: Vec<&str> = query.types.iter().map(|t| t.as_str()).collect();
        select = select.filter(events::kind.eq_any(types));
    }
    if let Some(id) = query.subject_id {
        select = select.filter(events::subject_id.eq(id.hyphenated().to_string()));
    }
    let limit = i64::try_from(query.size).map_err(DbError::corrupt)?;
    let rows: Vec<EventRow> = select
        .order(events::sequence.asc())
        .limit(limit)
        .select(EventRow::as_select())
        .load(c)?;
    let events = rows
        .into_iter()
        .map(EventRow::into_domain)
        .collect::<DbResult<_>>()?;
    Ok(FeedRead::Events {
        events,
        head,
        marks,
    })
}

/// A subject's events, newest first.
pub(crate) fn read_history(
    c: &mut DbConnection,
    organization: OrganizationId,
    subject: Subject,
    before: Option<Cursor>,
    size: usize,
) -> DbResult<Vec<Event>> {
    let mut select = events::table
        .filter(events::organization_id.eq(organization.to_string()))
        .filter(events::subject_id.eq(subject.id.hyphenated().to_string()))
        .filter(events::subject_type.eq(subject.kind.as_str()))
        .into_boxed();
    if let Some(before) = before {
        select = select.filter(events::sequence.lt(before.0));
    }
    let limit = i64::try_from(size).map_err(DbError::corrupt)?;
    select
        .order(events::sequence.desc())
        .limit(limit)
        .select(EventRow::as_select())
        .load::<EventRow>(c)?
        .into_iter()
        .map(EventRow::into_domain)
        .collect()
}

/// Deletes, per organization, the oldest events up to the first one at or
/// after `cutoff` (so what remains has no holes), at most `limit` in all.
pub(crate) fn prune(c: &mut DbConnection, cutoff: DateTime<Utc>, limit: usize) -> DbResult<usize> {
    let orgs: Vec<(String, i64)> = event_sequences::table
        .select((
            event_sequences::organization_id,
            event_sequences::pruned_through,
        ))
        .order(event_sequences::organization_id.asc())
        .load(c)?;
    let cutoff = db_time(cutoff);
    let mut deleted = 0;
    for (org, pruned_through) in orgs {
        if deleted >= limit {
            break;
        }
        let batch = i64::try_from(limit - deleted).map_err(DbError::corrupt)?;
        let oldest: Vec<(i64, chrono::NaiveDateTime, String)> = events::table
            .filter(events::organization_id.eq(&org))
            .filter(events::sequence.gt(pruned_through))
            .order(events::sequence.asc())
            .limit(batch)
            .select((events::sequence, events::occurred_at, events::id))
            .load(c)?;
        // The last event pruned: its id stays, so that a feed cursor at its
        // position can still be checked (`FeedMarks`).
        let Some((through, through_id)) = oldest
            .iter()
            .take_while(|(_, at, _)| *at < cutoff)
            .map(|(sequence, _, id)| (*sequence, id))
            .last()
        else {
            continue;
        };
        deleted += write_transaction(c, |c| -> DbResult<usize> {
            let n = diesel::delete(
                events::table
                    .filter(events::organization_id.eq(&org))
                    .filter(events::sequence.le(through)),
            )
            .execute(c)?;
            diesel::update(
                event_sequences::table
                    .filter(event_sequences::organization_id.eq(&org))
                    .filter(event_sequences::pruned_through.lt(through)),
            )
            .set((
                event_sequences::pruned_through.eq(through),
                event_sequences::pruned_through_id.eq(through_id),
            ))
            .execute(c)?;
            Ok(n)
        })?;
    }
    Ok(deleted)
}
