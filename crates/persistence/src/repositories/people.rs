//! [`PersonRepository`] for [`Store`].

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use diesel::connection::SimpleConnection;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::QueryFragment;

use equip_domain::error::StoreResult;
use equip_domain::event::{EventType, NewEvent};
use equip_domain::group::membership::rename_touches_groups;
use equip_domain::ids::{InventoryItemId, OrganizationId, PersonId};
use equip_domain::person::directory::{DirectoryPage, DirectoryQuery, OffboardingTimes};
use equip_domain::person::offboarding::{self, OffboardingFacts};
use equip_domain::person::StoredPersonState;
use equip_domain::person::{Person, PersonStatus};
use equip_domain::person_query::{PersonPage, PersonQuery};
use equip_domain::ports::{insert_one_at_a_time, Offboarding, PersonRepository, PersonWrite};

use crate::connection::{on_inner, DbConnection};
use crate::error::{DbError, DbResult};
use crate::events::{recorded, write_recorded_pg, Recorder};
use crate::membership;
use crate::models::{db_time, parse_id, utc, PersonEmailRow, PersonRow, PersonRows};
use crate::people_filter::{
    directory_from_where, directory_order_and_page, from_where, order_and_page,
};
use crate::schema::{
    inventory_items, packages, people, people_active_counts, person_emails, person_offboardings,
    return_order_items,
};
use crate::sql_builder::Sql;
use crate::sql_builder::ID_CHUNK;
use crate::sql_builder::{CountRow, IdRow};

use crate::store::Store;

const DUPLICATE_USER_NAME: &str = "another user of the organization already has this userName";

/// SQLite: creates between two WAL checkpoints run by creates (about 3,000
/// WAL pages at ten pages a create). A checkpoint inside a commit (SQLite's
/// default) runs while the writer mutex is held and makes every other create
/// wait; run outside it every 300 creates, it raises the creates' throughput
/// at the same CPU per create, where every 100 would cost more CPU
/// (docs/performance.md, "SCIM users", "WAL checkpoints off the creates' writer section").
const CHECKPOINT_EVERY: u64 = 300;

/// SQLite: people with a package written per transaction (each may order
/// equipment, which holds the one writer for milliseconds per joiner).
const JOINERS_TOGETHER: usize = 8;

/// One person and their emails, in one statement (joined), so no transaction
/// is needed for a consistent read; the statement is prepared once per connection.
fn load_one(c: &mut DbConnection, org: &str, id: &str) -> DbResult<Option<Person>> {
    // On the backend's own connection: through the multi-backend connection
    // the statement was prepared again on every call.
    let rows: Vec<(PersonRow, Option<PersonEmailRow>)> = on_inner!(c, |c| people::table
        .left_join(
            person_emails::table.on(person_emails::person_id
                .eq(people::id)
                .and(person_emails::organization_id.eq(people::organization_id))),
        )
        .filter(people::id.eq(id))
        .filter(people::organization_id.eq(org))
        .order(person_emails::position.asc())
        .select((
            PersonRow::as_select(),
            Option::<PersonEmailRow>::as_select(),
        ))
        .load(c))?;
    let mut rows = rows.into_iter();
    let Some((person, first)) = rows.next() else {
        return Ok(None);
    };
    let emails = first
        .into_iter()
        .chain(rows.filter_map(|(_, e)| e))
        .collect();
    PersonRows { person, emails }.into_domain().map(Some)
}

/// The number of active people of `org`, kept by triggers in
/// `people_active_counts` (see the baseline migrations).
fn active_people(conn: &mut DbConnection, org: &str) -> DbResult<u64> {
    let n: Option<i64> = people_active_counts::table
        .filter(people_active_counts::organization_id.eq(org))
        .select(people_active_counts::n)
        .first(conn)
        .optional()?;
    Ok(n.map_or(0, |n| u64::try_from(n).unwrap_or(0)))
}

pub(crate) fn load_people(
    conn: &mut DbConnection,
    org: &str,
    ids: &[String],
) -> DbResult<Vec<Person>> {
    if let [id] = ids {
        // The common case of a filter (Okta's and Entra's lookups).
        return Ok(load_one(conn, org, id)?.into_iter().collect());
    }
    if ids.len() > ID_CHUNK {
        // A chunk of ids per statement: a group write reaching 50,000 people
        // named more than SQLite's 32,766 bound values in one.
        let mut people = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(ID_CHUNK) {
            people.extend(load_people(conn, org, chunk)?);
        }
        return Ok(people);
    }
    let rows: Vec<PersonRow> = people::table
        .filter(people::organization_id.eq(org))
        .filter(people::id.eq_any(ids))
        .select(PersonRow::as_select())
        .load(conn)?;
    let mut emails: HashMap<String, Vec<PersonEmailRow>> = HashMap::new();
    // By person id only: with the organization in the condition too, SQLite
    // prefers the (organization_id, value_lower) index and scans every email
    // of the organization. The ids come from an organization-scoped query,
    // and the organization is checked on each row below.
    for e in person_emails::table
        .filter(person_emails::person_id.eq_any(ids))
        .order((
            person_emails::person_id.asc(),
            person_emails::position.asc(),
        ))
        .select(PersonEmailRow::as_select())
        .load(conn)?
    {
        if e.organization_id == org {
            emails.entry(e.person_id.clone()).or_default().push(e);
        }
    }
    let mut by_id: HashMap<String, Person> = HashMap::new();
    for person in rows {
        let id = person.id.clone();
        let emails = emails.remove(&id).unwrap_or_default();
        by_id.insert(id, PersonRows { person, emails }.into_domain()?);
    }
    Ok(ids.iter().filter_map(|id| by_id.remove(id)).collect())
}

fn insert_emails(conn: &mut DbConnection, emails: &[PersonEmailRow]) -> DbResult<()> {
    if !emails.is_empty() {
        on_inner!(conn, |c| diesel::insert_into(person_emails::table)
            .values(emails)
            .execute(c))?;
    }
    Ok(())
}

/// A person's row and emails.
fn insert_rows(c: &mut DbConnection, rows: &PersonRows) -> DbResult<()> {
    diesel::insert_into(people::table)
        .values(&rows.person)
        .execute(c)?;
    insert_emails(c, &rows.emails)
}

/// Whether `e` refuses one person's rows (a clash of userNames, a missing
/// package, a broken check), not the whole write.
fn refuses_the_row(e: &DbError) -> bool {
    use diesel::result::DatabaseErrorKind as Kind;
    matches!(
        e,
        DbError::Corrupt(_)
            | DbError::Diesel(diesel::result::Error::DatabaseError(
                Kind::UniqueViolation
                    | Kind::ForeignKeyViolation
                    | Kind::CheckViolation
                    | Kind::NotNullViolation,
                _,
            ))
    )
}

/// PostgreSQL: `write` given the statements that insert a person and their
/// emails (one insert per email: single-row inserts keep the statement
/// prepared, a multi-row one is planned anew each time), then `extra`, to
/// be run as one statement.
fn with_person_writes_pg<T>(
    rows: &PersonRows,
    extra: Option<&dyn QueryFragment<Pg>>,
    write: impl FnOnce(&[&dyn QueryFragment<Pg>]) -> DbResult<T>,
) -> DbResult<T> {
    let person_row = diesel::insert_into(people::table)
        .values(&rows.person)
        .returning(people::id);
    let email_rows: Vec<_> = rows
        .emails
        .iter()
        .map(|email| {
            diesel::insert_into(person_emails::table)
                .values(email)
                .returning(person_emails::person_id)
        })
        .collect();
    let mut writes: Vec<&dyn QueryFragment<Pg>> = vec![&person_row];
    writes.extend(email_rows.iter().map(|w| w as &dyn QueryFragment<Pg>));
    writes.extend(extra);
    write(&writes)
}

/// `write` (people creates). PostgreSQL: as it is. SQLite: in the database's
/// writer queue ([`Store::sqlite_writer`]) without checkpointing the WAL in
/// its commit. SQLite checkpoints the WAL inside the commit that crosses
/// 1,000 pages, which here would hold the
/// mutex: every other create waited for it (and its fsync). A create's own
/// commit does not checkpoint; every [`CHECKPOINT_EVERY`] creates, one
/// checkpoints after releasing the mutex ([`Store::people_created`];
/// PASSIVE: it never blocks a writer or a reader).
fn creates_together<T>(
    store: &Store,
    c: &mut DbConnection,
    write: impl FnOnce(&mut DbConnection) -> DbResult<T>,
) -> DbResult<T> {
    if matches!(c, DbConnection::Postgres(_)) {
        return write(c);
    }
    let _writer = store.sqlite_writer(c);
    c.batch_execute("PRAGMA wal_autocheckpoint = 0")?;
    let written = write(c);
    // SQLite's default, as every connection of the pool has it.
    if let Err(e) = c.batch_execute("PRAGMA wal_autocheckpoint = 1000") {
        tracing::warn!("could not restore wal_autocheckpoint: {e}");
    }
    written
}

impl Store {
    /// Whether a package some of `people` are given has contents (their
    /// creates will order equipment). When it cannot be read: yes.
    fn some_package_has_contents(&self, people: &[Person]) -> bool {
        let mut packages: Vec<String> = people
            .iter()
            .filter_map(|p| p.package_id.map(|id| id.to_string()))
            .collect();
        packages.sort_unstable();
        packages.dedup();
        let Some(org) = people.first().map(|p| p.organization_id.to_string()) else {
            return false;
        };
        if packages.is_empty() {
            return false;
        }
        self.read("package", |c| {
            crate::package_contents::contents_of(c, &org, &packages)
        })
        .map_or(true, |contents| !contents.is_empty())
    }

    /// PostgreSQL: the people of one call in one transaction with one
    /// durable commit (a commit waits for the WAL flush: one wait per batch
    /// instead of one per person), without savepoints, whose round trips
    /// cost as much as the writes. A person whose userName is taken — by a
    /// stored person, read once for the batch, or by an earlier person of the
    /// batch — is refused before anything is written, as the unique index
    /// would; each other person and their emails are one statement. Should a
    /// write still fail (a userName taken meanwhile by a concurrent create, a
    /// package deleted meanwhile), nothing of the batch was written and its
    /// people are written one at a time, each refused or written on its own.
    fn insert_people_pg(&self, people: &[Person]) -> Vec<StoreResult<()>> {
        let org = people
            .first()
            .map(|p| p.organization_id.to_string())
            .unwrap_or_default();
        let batch = self.with("person", DUPLICATE_USER_NAME, |c| {
            let rows: Vec<DbResult<PersonRows>> =
                people.iter().map(PersonRows::from_domain).collect();
            let names: Vec<String> = rows
                .iter()
                .filter_map(|r| r.as_ref().ok())
                .map(|r| r.person.user_name_lower.clone())
                .collect();
            let taken: std::collections::HashSet<String> = people::table
                .filter(people::organization_id.eq(&org))
                .filter(people::status.eq("ACTIVE"))
                .filter(people::user_name_lower.eq_any(&names))
                .select(people::user_name_lower)
                .load::<String>(c)?
                .into_iter()
                .collect();
            let each = recorded(c, &self.actor, |c, events| -> DbResult<Vec<DbResult<()>>> {
                let DbConnection::Postgres(pg) = c else {
                    return Err(DbError::corrupt("a PostgreSQL batch on SQLite"));
                };
                // Run again from the start after a lock conflict
                // (`write_transaction`): the names taken before this attempt.
                let mut taken = taken.clone();
                let mut each = Vec::with_capacity(people.len());
                for (person, rows) in people.iter().zip(&rows) {
                    let rows = match rows {
                        Ok(rows) => rows,
                        Err(_) => {
                            // The same refusal again (the error is not Clone).
                            each.push(PersonRows::from_domain(person).map(|_| ()));
                            continue;
                        }
                    };
                    if !taken.insert(rows.person.user_name_lower.clone()) {
                        // What the unique index would have answered (and is
                        // mapped to 409 `uniqueness` with every other one).
                        each.push(Err(DbError::Diesel(diesel::result::Error::DatabaseError(
                            diesel::result::DatabaseErrorKind::UniqueViolation,
                            Box::new(DUPLICATE_USER_NAME.to_owned()),
                        ))));
                        continue;
                    }
                    with_person_writes_pg(rows, None, |writes| {
                        crate::events::write_together_pg(pg, writes)
                    })?;
                    events.push(
                        &person.organization_id.to_string(),
                        person.updated_at,
                        NewEvent::created(EventType::PersonCreated, person),
                    );
                    each.push(Ok(()));
                }
                orders_of_created(c, events, &org, people, &each)?;
                Ok(each)
            })?;
            let created = each.iter().filter(|r| r.is_ok()).count();
            self.people_created(c, created as u64);
            Ok(each)
        });
        // Any other failure: nothing of the batch was written; each on its own.
        self.settle_batch(people, batch, |_| {
            insert_one_at_a_time(people, |p| self.insert_person(p))
        })
    }

    /// The results of people created together: each person's own, or, when
    /// the batch as a whole failed, [`Self::after_a_lost_batch`] for an
    /// unavailable database and `otherwise` for any other failure.
    fn settle_batch(
        &self,
        people: &[Person],
        batch: StoreResult<Vec<DbResult<()>>>,
        otherwise: impl FnOnce(&equip_domain::StoreError) -> Vec<StoreResult<()>>,
    ) -> Vec<StoreResult<()>> {
        match batch {
            Ok(each) => each
                .into_iter()
                .map(|r| r.map_err(|e| e.into_store("person", DUPLICATE_USER_NAME)))
                .collect(),
            Err(equip_domain::StoreError::Unavailable(cause)) => {
                self.after_a_lost_batch(people, &cause)
            }
            Err(e) => otherwise(&e),
        }
    }

    /// People created together whose connection was lost (or whose store
    /// became unavailable) mid-batch. Their one transaction committed whole
    /// or not at all, and the commit's answer may be what was lost: which of
    /// them are stored, under the ids they were written with, is read on a
    /// fresh connection. Those are reported written; the others are written
    /// again one at a time (a person the batch refused is refused again, with
    /// its own reason). So a 201 is never missing for a stored person, nor
    /// given for one that is not.
    fn after_a_lost_batch(&self, people: &[Person], cause: &str) -> Vec<StoreResult<()>> {
        tracing::warn!(
            "{} people created together met an unavailable database ({cause}); \
             checking which were stored",
            people.len()
        );
        let ids: Vec<String> = people.iter().map(|p| p.id.to_string()).collect();
        let org = people
            .first()
            .map(|p| p.organization_id.to_string())
            .unwrap_or_default();
        let read = || {
            self.read("person", |c| {
                Ok(people::table
                    .filter(people::organization_id.eq(&org))
                    .filter(people::id.eq_any(&ids))
                    .select(people::id)
                    .load::<String>(c)?)
            })
        };
        // The fresh connection may be lost too (a failover ends every
        // session): a few tries before the batch is given up as unavailable.
        let mut stored = read();
        for _ in 0..2 {
            if !matches!(stored, Err(equip_domain::StoreError::Unavailable(_))) {
                break;
            }
            stored = read();
        }
        let stored: std::collections::HashSet<String> = match stored {
            Ok(stored) => stored.into_iter().collect(),
            Err(e) => return people.iter().map(|_| Err(e.clone())).collect(),
        };
        insert_one_at_a_time(people, |p| {
            if stored.contains(&p.id.to_string()) {
                Ok(())
            } else {
                self.insert_person(p)
            }
        })
    }

    /// After `n` people were created (committed) on `c`: SQLite checkpoints
    /// the WAL every [`CHECKPOINT_EVERY`] creates on this database (by this
    /// process); a write session refreshes the planner's statistics now and then.
    fn people_created(&self, c: &mut DbConnection, n: u64) {
        if n == 0 {
            return;
        }
        let crossed = self.checkpoint_due(n, CHECKPOINT_EVERY);
        if crossed && matches!(c, DbConnection::Sqlite(_)) {
            // The creates are committed: a failed checkpoint is for the log.
            if let Err(e) = c.batch_execute("PRAGMA wal_checkpoint(PASSIVE)") {
                tracing::warn!("WAL checkpoint after people creates failed: {e}");
            }
        }
        for _ in 0..n {
            self.note_people_inserted(c);
        }
    }
}

/// After people were created together (`each`: whether each was): the
/// orders of those created with a package.
fn orders_of_created(
    c: &mut DbConnection,
    events: &mut Recorder,
    org: &str,
    people: &[Person],
    each: &[DbResult<()>],
) -> DbResult<()> {
    let with_package: Vec<String> = people
        .iter()
        .zip(each)
        .filter(|(p, written)| written.is_ok() && p.package_id.is_some())
        .map(|(p, _)| p.id.to_string())
        .collect();
    let Some(at) = people.iter().map(|p| p.updated_at).max() else {
        return Ok(());
    };
    crate::orders::provisioned(c, events, org, &with_package, at)
}

/// The stored (status, version) of a person.
fn state_of(conn: &mut DbConnection, org: &str, id: &str) -> DbResult<Option<(String, i64)>> {
    Ok(people::table
        .filter(people::id.eq(id))
        .filter(people::organization_id.eq(org))
        .select((people::status, people::version))
        .first(conn)
        .optional()?)
}

fn not_written(conn: &mut DbConnection, org: &str, id: &str) -> DbResult<Option<i64>> {
    Ok(match state_of(conn, org, id)? {
        Some((status, version)) if status == "ACTIVE" => Some(version),
        _ => None,
    })
}

impl PersonRepository for Store {
    fn find_person(
        &self,
        organization: OrganizationId,
        id: PersonId,
    ) -> StoreResult<Option<Person>> {
        let org = organization.to_string();
        let id = id.to_string();
        self.read("person", |c| load_one(c, &org, &id))
    }

    fn list_people(
        &self,
        organization: OrganizationId,
        query: &PersonQuery,
    ) -> StoreResult<PersonPage> {
        let org = organization.to_string();
        let backend = self.backend();
        self.read("person", |c| {
            // SQLite: one read transaction, so the page, its count and its
            // people come from one snapshot. PostgreSQL (READ COMMITTED)
            // takes a snapshot per statement inside a transaction too: its
            // BEGIN and COMMIT were two round trips that changed nothing.
            let page_of = |c: &mut DbConnection| -> DbResult<PersonPage> {
                let count_all = |c: &mut DbConnection| -> DbResult<u64> {
                    if query.filter.is_none() {
                        // Every active person: the maintained count.
                        return active_people(c, &org);
                    }
                    let mut count = Sql::default();
                    count.push_sql("SELECT COUNT(*) AS n");
                    from_where(&mut count, backend, &org, query);
                    Ok(count
                        .load::<CountRow>(c)?
                        .first()
                        .map_or(0, |r| u64::try_from(r.n).unwrap_or(0)))
                };
                if query.count == 0 {
                    return Ok(PersonPage {
                        total: count_all(c)?,
                        people: Vec::new(),
                    });
                }
                let mut page = Sql::default();
                page.push_sql("SELECT p.id AS id");
                from_where(&mut page, backend, &org, query);
                order_and_page(&mut page, backend, query);
                let ids: Vec<String> = page.load::<IdRow>(c)?.into_iter().map(|r| r.id).collect();
                // A first page that is not full holds every match: no COUNT
                // needed (Okta's lookup by userName before each create).
                crate::error::still_wanted()?;
                let total = if query.start_index <= 1 && ids.len() < query.count as usize {
                    ids.len() as u64
                } else {
                    count_all(c)?
                };
                crate::error::still_wanted()?;
                let people = load_people(c, &org, &ids)?;
                Ok(PersonPage { total, people })
            };
            match c {
                DbConnection::Sqlite(_) => c.transaction(page_of),
                DbConnection::Postgres(_) => page_of(c),
            }
        })
    }

    fn list_directory(
        &self,
        organization: OrganizationId,
        query: &DirectoryQuery,
    ) -> StoreResult<DirectoryPage> {
        let org = organization.to_string();
        let backend = self.backend();
        self.read("person", |c| {
            // SQLite: one read transaction, so the page and its count come
            // from one snapshot (as the SCIM list).
            let page_of = |c: &mut DbConnection| -> DbResult<DirectoryPage> {
                let mut count = Sql::default();
                count.push_sql("SELECT COUNT(*) AS n");
                directory_from_where(&mut count, backend, &org, query);
                let total_records = count
                    .load::<CountRow>(c)?
                    .first()
                    .map_or(0, |r| u64::try_from(r.n).unwrap_or(0));
                crate::error::still_wanted()?;
                let mut page = Sql::default();
                page.push_sql("SELECT p.id AS id");
                directory_from_where(&mut page, backend, &org, query);
                directory_order_and_page(&mut page, backend, query);
                let ids: Vec<String> = page.load::<IdRow>(c)?.into_iter().map(|r| r.id).collect();
                crate::error::still_wanted()?;
                let people = load_people(c, &org, &ids)?;
                Ok(DirectoryPage {
                    people,
                    total_records,
                })
            };
            match c {
                DbConnection::Sqlite(_) => c.transaction(page_of),
                DbConnection::Postgres(_) => page_of(c),
            }
        })
    }

    fn offboarding_times(
        &self,
        organization: OrganizationId,
        people: &[PersonId],
    ) -> StoreResult<HashMap<PersonId, OffboardingTimes>> {
        let org = organization.to_string();
        let ids: Vec<String> = people.iter().map(ToString::to_string).collect();
        self.read("person", |c| {
            let mut times = HashMap::new();
            for chunk in ids.chunks(ID_CHUNK) {
                let rows: Vec<(String, chrono::NaiveDateTime, Option<chrono::NaiveDateTime>)> =
                    person_offboardings::table
                        .filter(person_offboardings::organization_id.eq(&org))
                        .filter(person_offboardings::person_id.eq_any(chunk))
                        .select((
                            person_offboardings::person_id,
                            person_offboardings::started_at,
                            person_offboardings::offboarded_at,
                        ))
                        .load(c)?;
                for (id, started, done) in rows {
                    times.insert(
                        parse_id(&id)?,
                        OffboardingTimes {
                            started_at: Some(utc(started)),
                            offboarded_at: done.map(utc),
                        },
                    );
                }
            }
            Ok(times)
        })
    }

    fn insert_person(&self, person: &Person) -> StoreResult<()> {
        self.with("person", DUPLICATE_USER_NAME, |c| {
            let rows = PersonRows::from_domain(person)?;
            let event = NewEvent::created(EventType::PersonCreated, person);
            let org = &rows.person.organization_id;
            match c {
                // The person, the emails and the event: one statement (a
                // person with a package also gets their order: below).
                DbConnection::Postgres(pg) if rows.person.package_id.is_none() => {
                    // The package's foreign key is checked at the end of
                    // the statement, after the sequence is taken: its lock
                    // (KEY SHARE, which an import updating the package waits
                    // for and holds) is taken first, by a step of its own.
                    let package = rows.person.package_id.as_ref().map(|id| {
                        packages::table
                            .filter(packages::organization_id.eq(org))
                            .filter(packages::id.eq(id))
                            .select(packages::id)
                            .for_key_share()
                    });
                    let package = package.as_ref().map(|p| p as &dyn QueryFragment<Pg>);
                    with_person_writes_pg(&rows, package, |writes| {
                        write_recorded_pg(pg, &self.actor, org, person.updated_at, event, writes)
                    })?;
                }
                _ => {
                    creates_together(self, c, |c| {
                        recorded(c, &self.actor, |c, events| {
                            match c {
                                DbConnection::Postgres(pg) => {
                                    with_person_writes_pg(&rows, None, |writes| {
                                        crate::events::write_together_pg(pg, writes)
                                    })?;
                                }
                                DbConnection::Sqlite(_) => insert_rows(c, &rows)?,
                            }
                            events.push(org, person.updated_at, event.clone());
                            if rows.person.package_id.is_some() {
                                let id = std::slice::from_ref(&rows.person.id);
                                crate::orders::provisioned(c, events, org, id, person.updated_at)?;
                            }
                            Ok(())
                        })
                    })?;
                }
            }
            self.people_created(c, 1);
            Ok(())
        })
    }

    /// SQLite: the people of one call in one transaction (each in a
    /// savepoint of its own, so a refused one leaves the others written),
    /// and their events written together at its end: a SQLite commit writes
    /// every page it changed to the WAL, and the pages of the people, their
    /// indexes and the events are shared by the batch instead of written
    /// once per person (docs/performance.md, "Bulk and CSV uploads", "Creates
    /// written together"). PostgreSQL: one
    /// statement each, as [`Self::insert_person`].
    fn insert_people(&self, people: &[Person]) -> Vec<StoreResult<()>> {
        if people.len() < 2 {
            return insert_one_at_a_time(people, |p| self.insert_person(p));
        }
        if self.backend() == crate::connection::Backend::Postgres {
            return self.insert_people_pg(people);
        }
        // SQLite has one writer, and a batch that gives people a package
        // also orders their equipment (3-10 ms a joiner for two lines,
        // docs/performance.md, "Joiners"): a create on another connection
        // would wait for the whole batch. Such batches commit a few people
        // at a time, letting queued writers in between.
        if people.len() > JOINERS_TOGETHER && self.some_package_has_contents(people) {
            let mut each = Vec::with_capacity(people.len());
            for (i, chunk) in people.chunks(JOINERS_TOGETHER).enumerate() {
                if i > 0 {
                    self.let_other_writers_in();
                }
                each.extend(self.insert_people(chunk));
            }
            return each;
        }
        // One transaction, a savepoint per person, one (durable) commit for
        // them all: on PostgreSQL a commit waits for the WAL flush, so the
        // batch makes one wait where one-by-one creates made one each.
        let batch = self.with("person", DUPLICATE_USER_NAME, |c| {
            let each = creates_together(self, c, |c| {
                recorded(c, &self.actor, |c, events| -> DbResult<Vec<DbResult<()>>> {
                    let mut each = Vec::with_capacity(people.len());
                    for person in people {
                        let written = PersonRows::from_domain(person)
                            .and_then(|rows| c.transaction(|c| insert_rows(c, &rows)));
                        match written {
                            Ok(()) => {
                                events.push(
                                    &person.organization_id.to_string(),
                                    person.updated_at,
                                    NewEvent::created(EventType::PersonCreated, person),
                                );
                                each.push(Ok(()));
                            }
                            Err(e) if refuses_the_row(&e) => each.push(Err(e)),
                            // Not this person's doing: nothing of the call is written.
                            Err(e) => return Err(e),
                        }
                    }
                    let org = people
                        .first()
                        .map(|p| p.organization_id.to_string())
                        .unwrap_or_default();
                    orders_of_created(c, events, &org, people, &each)?;
                    Ok(each)
                })
            })?;
            let created = each.iter().filter(|r| r.is_ok()).count();
            self.people_created(c, created as u64);
            Ok(each)
        });
        self.settle_batch(people, batch, |e| {
            people.iter().map(|_| Err(e.clone())).collect()
        })
    }

    fn update_person(&self, current: &Person, person: &Person) -> StoreResult<PersonWrite> {
        let expected_version = current.version;
        self.with("person", DUPLICATE_USER_NAME, |c| {
            let rows = PersonRows::from_domain(person)?;
            let p = rows.person;
            let _writer = self.sqlite_writer(c);
            recorded(c, &self.actor, |c, events| {
                // The groups show the userName as their members' display.
                let old_name: Option<String> = people::table
                    .filter(people::id.eq(&p.id))
                    .filter(people::organization_id.eq(&p.organization_id))
                    .select(people::user_name)
                    .first(c)
                    .optional()?;
                let n = diesel::update(
                    people::table
                        .filter(people::id.eq(&p.id))
                        .filter(people::organization_id.eq(&p.organization_id))
                        .filter(people::status.eq("ACTIVE"))
                        .filter(people::version.eq(expected_version)),
                )
                .set((
                    people::external_id.eq(&p.external_id),
                    people::user_name.eq(&p.user_name),
                    people::user_name_lower.eq(&p.user_name_lower),
                    people::given_name.eq(&p.given_name),
                    people::family_name.eq(&p.family_name),
                    people::display_name.eq(&p.display_name),
                    people::phone_numbers.eq(&p.phone_numbers),
                    people::addresses.eq(&p.addresses),
                    people::active.eq(p.active),
                    people::package_id.eq(&p.package_id),
                    people::start_date.eq(p.start_date),
                    people::skip_user_activation.eq(p.skip_user_activation),
                    people::cpf_number.eq(&p.cpf_number),
                    people::updated_at.eq(p.updated_at),
                    people::version.eq(p.version),
                    people::formatted_name.eq(&p.formatted_name),
                    people::middle_name.eq(&p.middle_name),
                    people::honorific_prefix.eq(&p.honorific_prefix),
                    people::honorific_suffix.eq(&p.honorific_suffix),
                    people::nick_name.eq(&p.nick_name),
                    people::title.eq(&p.title),
                    people::user_type.eq(&p.user_type),
                    people::preferred_language.eq(&p.preferred_language),
                    people::locale.eq(&p.locale),
                    people::timezone.eq(&p.timezone),
                    people::profile_url.eq(&p.profile_url),
                    people::profile_lists.eq(&p.profile_lists),
                ))
                .execute(c)?;
                if n == 0 {
                    return Ok(match not_written(c, &p.organization_id, &p.id)? {
                        Some(current) => PersonWrite::Stale { current },
                        None => PersonWrite::Missing,
                    });
                }
                diesel::delete(
                    person_emails::table
                        .filter(person_emails::organization_id.eq(&p.organization_id))
                        .filter(person_emails::person_id.eq(&p.id)),
                )
                .execute(c)?;
                insert_emails(c, &rows.emails)?;
                if old_name
                    .as_deref()
                    .is_some_and(|old| rename_touches_groups(old, &p.user_name))
                {
                    let groups = membership::groups_of_person(c, &p.organization_id, &p.id)?;
                    membership::touch_groups(c, &groups, p.updated_at, 0)?;
                }
                // The inventory listing shows (and sorts by) the assignee's userName.
                crate::listing::refresh(
                    c,
                    &p.organization_id,
                    crate::listing::Scope::Assignees(std::slice::from_ref(&p.id)),
                )?;
                let event = NewEvent::updated(EventType::PersonUpdated, current, person);
                events.push_some(&p.organization_id, person.updated_at, event);
                if equip_domain::orders::plan::update_matters(current, person) {
                    let id = std::slice::from_ref(&p.id);
                    crate::orders::provisioned(
                        c,
                        events,
                        &p.organization_id,
                        id,
                        person.updated_at,
                    )?;
                }
                Ok(PersonWrite::Done)
            })
        })
    }

    fn offboard_person(
        &self,
        organization: OrganizationId,
        id: PersonId,
        expected_version: Option<i64>,
        at: DateTime<Utc>,
    ) -> StoreResult<Offboarding> {
        let org = organization.to_string();
        let person = id;
        let id = id.to_string();
        self.with("person", "", |c| {
            let _writer = self.sqlite_writer(c);
            recorded(c, &self.actor, |c, events| {
                // The facts: the person (locked), then their groups
                // (locked) and the items deployed to them.
                let version = match offboarding::admit(lock_person(c, &org, &id)?, expected_version)
                {
                    Ok(version) => version,
                    Err(refusal) => return Ok(refusal),
                };
                let facts = OffboardingFacts {
                    groups: membership::groups_of_person(c, &org, &id)?,
                    deployed_without_return: deployed_without_return(c, &org, &id)?,
                    open_lines: crate::returns::open_lines_of_person(c, &org, &id)?,
                };
                // The decision, written as it is.
                let plan = offboarding::plan(organization, person, version, &facts, at);
                let now = db_time(plan.updated_at);
                diesel::update(
                    people::table
                        .filter(people::id.eq(&id))
                        .filter(people::organization_id.eq(&org)),
                )
                .set((
                    people::status.eq(plan.status.as_str()),
                    people::version.eq(plan.version),
                    people::updated_at.eq(now),
                ))
                .execute(c)?;
                // A person offboards once (only an ACTIVE one is admitted).
                diesel::delete(
                    person_offboardings::table.filter(person_offboardings::person_id.eq(&id)),
                )
                .execute(c)?;
                diesel::insert_into(person_offboardings::table)
                    .values((
                        person_offboardings::person_id.eq(&id),
                        person_offboardings::organization_id.eq(&org),
                        person_offboardings::started_at.eq(db_time(at)),
                        person_offboardings::offboarded_at
                            .eq((plan.status == PersonStatus::Offboarded).then(|| db_time(at))),
                    ))
                    .execute(c)?;
                membership::leave_groups(c, &org, &plan.leaving)?;
                if let Some(order) = &plan.returns {
                    crate::returns::insert_order(c, &org, &order.order(organization))?;
                }
                for event in &plan.events {
                    events.push(&org, at, event.clone());
                }
                // Offboarding cancels what the person's order has not shipped.
                crate::orders::provisioned(c, events, &org, std::slice::from_ref(&id), at)?;
                Ok(plan.outcome())
            })
        })
    }
}

/// The stored status and version of a person, locked (PostgreSQL:
/// `FOR UPDATE`; SQLite: the write transaction holds the database) until
/// the transaction ends.
pub(crate) fn lock_person(
    c: &mut DbConnection,
    org: &str,
    id: &str,
) -> DbResult<Option<StoredPersonState>> {
    let row = people::table
        .filter(people::id.eq(id))
        .filter(people::organization_id.eq(org))
        .select((people::status, people::version));
    let found: Option<(String, i64)> = match c {
        DbConnection::Postgres(pg) => row.for_update().first(pg).optional()?,
        DbConnection::Sqlite(lite) => row.first(lite).optional()?,
    };
    found
        .map(|(status, version)| {
            Ok(StoredPersonState {
                status: PersonStatus::parse(&status).map_err(DbError::corrupt)?,
                version,
            })
        })
        .transpose()
}

/// The items deployed to the person without an active return, in id order.
fn deployed_without_return(
    c: &mut DbConnection,
    org: &str,
    person: &str,
) -> DbResult<Vec<InventoryItemId>> {
    let active_returns = return_order_items::table
        .filter(return_order_items::organization_id.eq(org))
        .filter(return_order_items::active.eq(true))
        .select(return_order_items::inventory_item_id);
    let items: Vec<String> = inventory_items::table
        .filter(inventory_items::organization_id.eq(org))
        .filter(inventory_items::assignee_type.eq("PERSON"))
        .filter(inventory_items::assignee_id.eq(person))
        .filter(inventory_items::deploy_status.eq("DEPLOYED"))
        .filter(inventory_items::id.ne_all(active_returns))
        .order(inventory_items::id.asc())
        .select(inventory_items::id)
        .load(c)?;
    items.iter().map(|id| parse_id(id)).collect()
}
