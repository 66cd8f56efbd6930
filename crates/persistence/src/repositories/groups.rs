//! [`GroupRepository`] for [`Store`].
//!
//! Members are rows of `group_members`; no method reads a group's members
//! unless it returns them ([`GroupRepository::group_members`]). A change of
//! members is applied as deltas in SQL (`INSERT … SELECT … ON CONFLICT DO
//! NOTHING` for those joining, `DELETE … IN (…)` for those leaving, in
//! chunks of [`ID_CHUNK`] ids), in one write transaction that holds the
//! group's row lock (PostgreSQL `FOR UPDATE`; SQLite `BEGIN IMMEDIATE`), so
//! concurrent changes of one group's members all apply and the member count
//! checked is the one committed. A refused write (`Missing`, `Stale`,
//! `NotPeople`, `TooManyMembers`) rolls the transaction back: nothing of it
//! is kept.
//!
//! Locks on PostgreSQL are taken people first, then groups, as offboarding
//! takes them (the person's row, then their groups): the people joining are
//! locked `FOR SHARE` when they are checked, so a concurrent offboarding
//! waits for the write that adds them (and then removes the memberships it
//! made) instead of missing them.

use std::collections::{BTreeSet, HashSet};

use chrono::{DateTime, NaiveDateTime, Utc};
use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::event::{EventType, EventView, NewEvent};
use equip_domain::group::{Group, Member, MembersChange, PersonGroup, MAX_MEMBERS};
use equip_domain::group_query::{GroupPage, GroupQuery};
use equip_domain::ids::{GroupId, OrganizationId, PersonId};
use equip_domain::ports::{GroupChange, GroupRepository, GroupWrite};
use equip_domain::text::identifier_key;

use crate::connection::{Backend, DbConnection};
use crate::error::{DbError, DbResult};
use crate::events::{recorded, Recorder};
use crate::group_filter::{from_where, order_and_page};
use crate::models::{db_time, parse_id, GroupRow, MemberRow, PersonGroupRow};
use crate::schema::{group_members, groups, people};
use crate::sql_builder::{texts, CountRow, IdRow, Sql, ID_CHUNK};
use crate::store::Store;

use super::people::sqlite_writer;

const DUPLICATE_DISPLAY_NAME: &str =
    "another group of the organization already has this displayName";

/// The columns of a group row, as the page statement selects them.
const GROUP_COLUMNS: &str = "g.id, g.organization_id, g.external_id, g.display_name, \
     g.display_name_key, g.package_id, g.precedence, g.created_at, g.updated_at, g.version";

/// How a group write transaction ends other than by committing: a refusal
/// (returned as the write's answer after the rollback) or a failure.
enum Abort {
    Refused(Box<GroupWrite>),
    Db(DbError),
}

/// Ends the transaction with `write` as its answer, after the rollback.
fn refuse<T>(write: GroupWrite) -> Result<T, Abort> {
    Err(Abort::Refused(Box::new(write)))
}

impl From<diesel::result::Error> for Abort {
    fn from(err: diesel::result::Error) -> Self {
        Self::Db(DbError::Diesel(err))
    }
}

impl From<DbError> for Abort {
    fn from(err: DbError) -> Self {
        Self::Db(err)
    }
}

/// The answer of a write transaction: refusals are answers (rolled back).
fn settle(result: Result<GroupWrite, Abort>) -> DbResult<GroupWrite> {
    match result {
        Ok(w) => Ok(w),
        Err(Abort::Refused(w)) => Ok(*w),
        Err(Abort::Db(e)) => Err(e),
    }
}

/// Which of `ids` are not provisioned (ACTIVE) people of the organization,
/// in the order of `ids`. On PostgreSQL the people found stay locked
/// `FOR SHARE` until the transaction ends (see the module docs).
fn not_people(c: &mut DbConnection, org: &str, ids: &[String]) -> DbResult<Vec<PersonId>> {
    let mut found: HashSet<String> = HashSet::new();
    for chunk in ids.chunks(ID_CHUNK) {
        let active = people::table
            .filter(people::organization_id.eq(org))
            .filter(people::status.eq("ACTIVE"))
            .filter(people::id.eq_any(chunk))
            .select(people::id);
        let rows: Vec<String> = match c {
            DbConnection::Postgres(pg) => active.for_share().load(pg)?,
            DbConnection::Sqlite(lite) => active.load(lite)?,
        };
        found.extend(rows);
    }
    ids.iter()
        .filter(|id| !found.contains(id.as_str()))
        .map(|id| parse_id(id))
        .collect()
}

/// The group's row, locked until the transaction ends on PostgreSQL (on
/// SQLite the write transaction already holds the database's write lock).
fn lock_group(c: &mut DbConnection, org: &str, id: &str) -> DbResult<Option<GroupRow>> {
    let row = groups::table
        .filter(groups::id.eq(id))
        .filter(groups::organization_id.eq(org));
    Ok(match c {
        DbConnection::Postgres(pg) => row
            .select(GroupRow::as_select())
            .for_update()
            .first(pg)
            .optional()?,
        DbConnection::Sqlite(lite) => row.select(GroupRow::as_select()).first(lite).optional()?,
    })
}

/// Adds the people `ids` (checked before) to the group; present ones stay.
/// Returns how many rows were inserted.
fn add_members(
    c: &mut DbConnection,
    org: &str,
    group: &str,
    ids: &[String],
) -> DbResult<Vec<String>> {
    let mut inserted = Vec::new();
    for chunk in ids.chunks(ID_CHUNK) {
        // INSERT … SELECT: one bind per id. The WHERE clause also keeps
        // SQLite from reading ON CONFLICT as a join constraint.
        let mut sql = Sql::default();
        sql.push_sql(
            "INSERT INTO group_members (organization_id, group_id, person_id) \
             SELECT p.organization_id, ",
        )
        .push_bind(group)
        .push_sql(", p.id FROM people p WHERE p.organization_id = ")
        .push_bind(org)
        .push_sql(" AND p.id")
        .push_any_of(chunk)
        .push_sql(" ON CONFLICT DO NOTHING RETURNING person_id AS id");
        inserted.extend(sql.load::<IdRow>(c)?.into_iter().map(|r| r.id));
    }
    Ok(inserted)
}

/// Removes the people `ids` from the group; absent ones are no change.
/// Returns the people whose rows were deleted.
fn remove_members(c: &mut DbConnection, group: &str, ids: &[String]) -> DbResult<Vec<String>> {
    let mut deleted = Vec::new();
    for chunk in ids.chunks(ID_CHUNK) {
        deleted.extend(
            diesel::delete(
                group_members::table
                    .filter(group_members::group_id.eq(group))
                    .filter(group_members::person_id.eq_any(chunk)),
            )
            .returning(group_members::person_id)
            .get_results::<String>(c)?,
        );
    }
    Ok(deleted)
}

/// Removes every member of the group who is not in `keep`. The set goes in
/// as one JSON array (a `NOT IN` cannot be cut into chunks), read by the
/// backend's JSON table function; the database compares it with the
/// group's members by the primary key, without sending them back.
fn remove_members_except(
    c: &mut DbConnection,
    group: &str,
    keep: &[String],
) -> DbResult<Vec<String>> {
    if keep.is_empty() {
        return Ok(
            diesel::delete(group_members::table.filter(group_members::group_id.eq(group)))
                .returning(group_members::person_id)
                .get_results::<String>(c)?,
        );
    }
    let list = serde_json::to_string(keep)
        .map_err(|e| DbError::corrupt(format!("cannot encode member ids: {e}")))?;
    let mut sql = Sql::default();
    match c.backend() {
        Backend::Sqlite => {
            sql.push_sql("DELETE FROM group_members WHERE group_id = ")
                .push_bind(group)
                .push_sql(" AND person_id NOT IN (SELECT value FROM json_each(")
                .push_bind(list)
                .push_sql(")) RETURNING person_id AS id");
        }
        Backend::Postgres => {
            // NOT EXISTS: an anti-join, whatever the planner guesses of the
            // set's size (a NOT IN that does not fit its hash would probe
            // the list once per member).
            sql.push_sql("DELETE FROM group_members gm WHERE gm.group_id = ")
                .push_bind(group)
                .push_sql(" AND NOT EXISTS (SELECT 1 FROM json_array_elements_text(CAST(")
                .push_bind(list)
                .push_sql(
                    " AS json)) AS k(id) WHERE k.id = gm.person_id) RETURNING gm.person_id AS id",
                );
        }
    }
    Ok(sql.load::<IdRow>(c)?.into_iter().map(|r| r.id).collect())
}

/// Moves the group's member count by `delta` (inserted minus deleted rows,
/// in the caller's transaction, the group's row locked); the count after.
/// The count is kept, never computed: a group of 100,000 members is not
/// counted to check the limit.
fn adjust_member_count(c: &mut DbConnection, group: &str, delta: i64) -> DbResult<u64> {
    let target = groups::table.filter(groups::id.eq(group));
    if delta != 0 {
        diesel::update(target)
            .set(groups::member_count.eq(groups::member_count + delta))
            .execute(c)?;
    }
    let n: i64 = target.select(groups::member_count).first(c)?;
    Ok(u64::try_from(n).unwrap_or(0))
}

fn signed(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Applies `change` to the group's members; returns how many membership
/// rows were inserted and deleted. Refuses (to roll back) a group that
/// would hold more than [`MAX_MEMBERS`].
fn apply_members(
    c: &mut DbConnection,
    org: &str,
    group: &str,
    change: &MembersChange,
) -> Result<Membership, Abort> {
    match change {
        MembersChange::Keep => Ok(Membership::default()),
        MembersChange::Delta { add, remove } => {
            let left = remove_members(c, group, &texts(remove))?;
            let joined = add_members(c, org, group, &texts(add))?;
            let count = adjust_member_count(c, group, signed(joined.len()) - signed(left.len()))?;
            if !joined.is_empty() && count > MAX_MEMBERS {
                return refuse(GroupWrite::TooManyMembers);
            }
            Ok(Membership { joined, left })
        }
        // The members become exactly the set (checked people): its size is
        // the count.
        MembersChange::Replace(set) => {
            if set.len() as u64 > MAX_MEMBERS {
                return refuse(GroupWrite::TooManyMembers);
            }
            let ids = texts(set);
            let left = remove_members_except(c, group, &ids)?;
            let joined = add_members(c, org, group, &ids)?;
            adjust_member_count(c, group, signed(joined.len()) - signed(left.len()))?;
            Ok(Membership { joined, left })
        }
    }
}

/// Who joined and who left a group in one write.
#[derive(Debug, Default)]
struct Membership {
    joined: Vec<String>,
    left: Vec<String>,
}

impl Membership {
    fn is_empty(&self) -> bool {
        self.joined.is_empty() && self.left.is_empty()
    }

    /// Records a `group.member_added` / `group.member_removed` event per person.
    fn record(
        &self,
        events: &mut Recorder,
        org: &str,
        group: GroupId,
        at: DateTime<Utc>,
    ) -> DbResult<()> {
        for (ids, joined) in [(&self.joined, true), (&self.left, false)] {
            for id in ids {
                events.push(org, at, NewEvent::membership(group, parse_id(id)?, joined));
            }
        }
        Ok(())
    }
}

/// The groups `person` is in get a new version (last change `at`) and their
/// member count moves by `count_delta`, in the caller's transaction. On
/// PostgreSQL the groups are locked in id order first, so that concurrent
/// writes for people sharing groups cannot deadlock. Whether there were any.
fn touch_groups_of(
    c: &mut DbConnection,
    org: &str,
    person: &str,
    at: NaiveDateTime,
    count_delta: i64,
) -> DbResult<Vec<String>> {
    let theirs = groups::table
        .filter(groups::organization_id.eq(org))
        .filter(
            groups::id.eq_any(
                group_members::table
                    .filter(group_members::person_id.eq(person))
                    .filter(group_members::organization_id.eq(org))
                    .select(group_members::group_id),
            ),
        )
        .order(groups::id.asc())
        .select(groups::id);
    let ids: Vec<String> = match c {
        DbConnection::Postgres(pg) => theirs.for_update().load(pg)?,
        DbConnection::Sqlite(lite) => theirs.load(lite)?,
    };
    for chunk in ids.chunks(ID_CHUNK) {
        diesel::update(groups::table.filter(groups::id.eq_any(chunk)))
            .set((
                groups::version.eq(groups::version + 1),
                groups::updated_at.eq(at),
                groups::member_count.eq(groups::member_count + count_delta),
            ))
            .execute(c)?;
    }
    Ok(ids)
}

/// Offboarding, in the caller's transaction: removes `person` from every
/// group of the organization, increasing each of those groups' version and
/// setting its last change time to `at`. Returns the groups' ids.
pub(crate) fn leave_every_group(
    c: &mut DbConnection,
    org: &str,
    person: &str,
    at: NaiveDateTime,
) -> DbResult<Vec<String>> {
    let left = touch_groups_of(c, org, person, at, -1)?;
    if !left.is_empty() {
        diesel::delete(
            group_members::table
                .filter(group_members::person_id.eq(person))
                .filter(group_members::organization_id.eq(org)),
        )
        .execute(c)?;
    }
    Ok(left)
}

/// A member's userName changed (in the caller's transaction): each group
/// showing them (as a member's `display`) gets a new version, so that its
/// entity tag follows.
pub(crate) fn member_renamed(
    c: &mut DbConnection,
    org: &str,
    person: &str,
    at: NaiveDateTime,
) -> DbResult<()> {
    touch_groups_of(c, org, person, at, 0).map(|_| ())
}

impl GroupRepository for Store {
    fn find_group(&self, organization: OrganizationId, id: GroupId) -> StoreResult<Option<Group>> {
        let org = organization.to_string();
        let id = id.to_string();
        self.read("group", |c| {
            groups::table
                .filter(groups::id.eq(&id))
                .filter(groups::organization_id.eq(&org))
                .select(GroupRow::as_select())
                .first(c)
                .optional()?
                .map(GroupRow::into_domain)
                .transpose()
        })
    }

    fn list_groups(
        &self,
        organization: OrganizationId,
        query: &GroupQuery,
    ) -> StoreResult<GroupPage> {
        let org = organization.to_string();
        let backend = self.backend();
        self.read("group", |c| {
            let page_of = |c: &mut DbConnection| -> DbResult<GroupPage> {
                let count_all = |c: &mut DbConnection| -> DbResult<u64> {
                    let mut count = Sql::default();
                    count.push_sql("SELECT COUNT(*) AS n");
                    from_where(&mut count, backend, &org, query);
                    Ok(count
                        .load::<CountRow>(c)?
                        .first()
                        .map_or(0, |r| u64::try_from(r.n).unwrap_or(0)))
                };
                if query.count == 0 {
                    return Ok(GroupPage {
                        total: count_all(c)?,
                        groups: Vec::new(),
                    });
                }
                let mut page = Sql::default();
                page.push_sql("SELECT ").push_sql(GROUP_COLUMNS);
                from_where(&mut page, backend, &org, query);
                order_and_page(&mut page, backend, query);
                let rows = page.load::<GroupRow>(c)?;
                // A first page that is not full holds every match.
                let total = if query.start_index <= 1 && rows.len() < query.count as usize {
                    rows.len() as u64
                } else {
                    crate::error::still_wanted()?;
                    count_all(c)?
                };
                let groups = rows
                    .into_iter()
                    .map(GroupRow::into_domain)
                    .collect::<DbResult<Vec<_>>>()?;
                Ok(GroupPage { total, groups })
            };
            // SQLite: one read transaction, so the page and its count come
            // from one snapshot (as people lists do).
            match c {
                DbConnection::Sqlite(_) => c.transaction(page_of),
                DbConnection::Postgres(_) => page_of(c),
            }
        })
    }

    fn group_members(
        &self,
        organization: OrganizationId,
        groups: &[GroupId],
    ) -> StoreResult<Vec<(GroupId, Member)>> {
        let org = organization.to_string();
        let ids: BTreeSet<String> = groups.iter().map(ToString::to_string).collect();
        let ids: Vec<String> = ids.into_iter().collect();
        self.read("group", |c| {
            let mut out = Vec::new();
            // One statement for a page of groups (more only past ID_CHUNK).
            // The membership's organization is its group's (composite
            // foreign key), so it scopes the groups without a join.
            for chunk in ids.chunks(ID_CHUNK) {
                let rows: Vec<MemberRow> = group_members::table
                    .inner_join(
                        people::table.on(people::id
                            .eq(group_members::person_id)
                            .and(people::organization_id.eq(group_members::organization_id))),
                    )
                    .filter(group_members::organization_id.eq(&org))
                    .filter(group_members::group_id.eq_any(chunk))
                    .order((
                        group_members::group_id.asc(),
                        group_members::person_id.asc(),
                    ))
                    .select((
                        group_members::group_id,
                        group_members::person_id,
                        people::user_name,
                    ))
                    .load(c)?;
                for row in rows {
                    out.push(row.into_domain()?);
                }
            }
            Ok(out)
        })
    }

    fn member_counts(
        &self,
        organization: OrganizationId,
        groups: &[GroupId],
    ) -> StoreResult<Vec<(GroupId, u64)>> {
        let org = organization.to_string();
        let ids: Vec<String> = groups.iter().map(ToString::to_string).collect();
        self.read("group", |c| {
            let mut out = Vec::new();
            for chunk in ids.chunks(ID_CHUNK) {
                let rows: Vec<(String, i64)> = groups::table
                    .filter(groups::organization_id.eq(&org))
                    .filter(groups::id.eq_any(chunk))
                    .select((groups::id, groups::member_count))
                    .load(c)?;
                for (id, n) in rows {
                    out.push((parse_id(&id)?, u64::try_from(n).unwrap_or(0)));
                }
            }
            Ok(out)
        })
    }

    fn insert_group(&self, group: &Group, members: &BTreeSet<PersonId>) -> StoreResult<GroupWrite> {
        let row = GroupRow::from(group);
        let joining = texts(members);
        self.with("group", DUPLICATE_DISPLAY_NAME, |c| {
            let _writer = sqlite_writer(c);
            settle(recorded(c, self.actor, |c, events| {
                let missing = not_people(c, &row.organization_id, &joining)?;
                // Unique name and package of the organization: the
                // database's constraints (Duplicate, MissingReference).
                diesel::insert_into(groups::table).values(&row).execute(c)?;
                if !missing.is_empty() {
                    return refuse(GroupWrite::NotPeople(missing));
                }
                if joining.len() as u64 > MAX_MEMBERS {
                    return refuse(GroupWrite::TooManyMembers);
                }
                let joined = add_members(c, &row.organization_id, &row.id, &joining)?;
                adjust_member_count(c, &row.id, signed(joined.len()))?;
                let org = &row.organization_id;
                let at = group.updated_at;
                events.push(org, at, NewEvent::created(EventType::GroupCreated, group));
                Membership {
                    joined,
                    left: Vec::new(),
                }
                .record(events, org, group.id, at)?;
                Ok(GroupWrite::Done(row.clone().into_domain()?))
            }))
        })
    }

    fn update_group(
        &self,
        organization: OrganizationId,
        id: GroupId,
        change: &GroupChange,
    ) -> StoreResult<GroupWrite> {
        let org = organization.to_string();
        let gid = id.to_string();
        let joining = texts(&change.members.joining());
        self.with("group", DUPLICATE_DISPLAY_NAME, |c| {
            let _writer = sqlite_writer(c);
            settle(recorded(c, self.actor, |c, events| {
                // People first, then the group (the module's lock order).
                let missing = not_people(c, &org, &joining)?;
                let Some(row) = lock_group(c, &org, &gid)? else {
                    return refuse(GroupWrite::Missing);
                };
                let current = row.into_domain()?;
                let mut next = match change.fields_on(&current) {
                    Ok(next) => next,
                    Err(current) => return refuse(GroupWrite::Stale { current }),
                };
                let fields_changed = next.fields() != current.fields();
                if fields_changed {
                    diesel::update(groups::table.filter(groups::id.eq(&gid)))
                        .set((
                            groups::external_id.eq(&next.external_id),
                            groups::display_name.eq(&next.display_name),
                            groups::display_name_key.eq(identifier_key(&next.display_name)),
                            groups::package_id.eq(next.package_id.map(|p| p.to_string())),
                            groups::precedence.eq(next.precedence),
                        ))
                        .execute(c)?;
                }
                if !missing.is_empty() {
                    return refuse(GroupWrite::NotPeople(missing));
                }
                let membership = apply_members(c, &org, &gid, &change.members)?;
                if !fields_changed && membership.is_empty() {
                    return Ok(GroupWrite::Done(current));
                }
                let updated_at = db_time(change.at).max(db_time(current.updated_at));
                // The row is locked (or the database is, on SQLite): the
                // version read above is the one this increments.
                diesel::update(groups::table.filter(groups::id.eq(&gid)))
                    .set((
                        groups::version.eq(groups::version + 1),
                        groups::updated_at.eq(updated_at),
                    ))
                    .execute(c)?;
                next.version = current.version + 1;
                next.updated_at = updated_at.and_utc();
                let event = NewEvent::updated(EventType::GroupUpdated, &current, &next);
                events.push_some(&org, next.updated_at, event);
                membership.record(events, &org, id, next.updated_at)?;
                Ok(GroupWrite::Done(next))
            }))
        })
    }

    fn delete_group(
        &self,
        organization: OrganizationId,
        id: GroupId,
        expected_version: Option<i64>,
    ) -> StoreResult<GroupWrite> {
        let org = organization.to_string();
        let gid = id.to_string();
        self.with("group", "", |c| {
            let _writer = sqlite_writer(c);
            settle(recorded(c, self.actor, |c, events| {
                let Some(row) = lock_group(c, &org, &gid)? else {
                    return refuse(GroupWrite::Missing);
                };
                let current = row.into_domain()?;
                if expected_version.is_some_and(|v| v != current.version) {
                    return refuse(GroupWrite::Stale {
                        current: current.version,
                    });
                }
                diesel::delete(group_members::table.filter(group_members::group_id.eq(&gid)))
                    .execute(c)?;
                diesel::delete(
                    groups::table
                        .filter(groups::id.eq(&gid))
                        .filter(groups::organization_id.eq(&org)),
                )
                .execute(c)?;
                let event = NewEvent::bare(EventType::GroupDeleted, current.subject());
                events.push(&org, Utc::now(), event);
                Ok(GroupWrite::Done(current))
            }))
        })
    }

    fn groups_of_people(
        &self,
        organization: OrganizationId,
        people: &[PersonId],
    ) -> StoreResult<Vec<(PersonId, PersonGroup)>> {
        let org = organization.to_string();
        let ids: BTreeSet<String> = people.iter().map(ToString::to_string).collect();
        let ids: Vec<String> = ids.into_iter().collect();
        self.read("group", |c| {
            let mut out = Vec::new();
            // From the person index (person_id, group_id) to each group's row.
            for chunk in ids.chunks(ID_CHUNK) {
                let rows: Vec<PersonGroupRow> = group_members::table
                    .inner_join(groups::table.on(groups::id.eq(group_members::group_id)))
                    .filter(group_members::person_id.eq_any(chunk))
                    .filter(group_members::organization_id.eq(&org))
                    .order((
                        group_members::person_id.asc(),
                        group_members::group_id.asc(),
                    ))
                    .select((
                        group_members::person_id,
                        groups::id,
                        groups::display_name,
                        groups::package_id,
                        groups::precedence,
                    ))
                    .load(c)?;
                for row in rows {
                    out.push(row.into_domain()?);
                }
            }
            Ok(out)
        })
    }
}
