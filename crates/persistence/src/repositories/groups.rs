//! [`GroupRepository`] for [`Store`].
//!
//! A write reads the facts the domain's rules need
//! (`equip_domain::group::membership`) in one write transaction that holds
//! the group's row lock (PostgreSQL `FOR UPDATE`; SQLite `BEGIN IMMEDIATE`),
//! so concurrent changes of one group's members all apply and the member
//! count decided is the one committed; then it writes what was decided, as
//! deltas in SQL (the memberships in `crate::membership`). No method reads a
//! group's members unless it returns them
//! ([`GroupRepository::group_members`]) or a replace removes them. A refused
//! write (`Missing`, `Stale`, `NotPeople`, `TooManyMembers`) rolls the
//! transaction back: nothing of it is kept. Lock order: see `crate::membership`.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::event::NewEvent;
use equip_domain::group::membership::{decide_create, decide_delete, decide_update, MembersFacts};
use equip_domain::group::{Group, Member, PersonGroup};
use equip_domain::group_query::{GroupPage, GroupQuery};
use equip_domain::ids::{GroupId, OrganizationId, PackageId, PersonId};
use equip_domain::orders::plan::{affected_by_group, Affected};
use equip_domain::ports::{GroupChange, GroupRepository, GroupWrite};
use equip_domain::text::identifier_key;

use crate::connection::DbConnection;
use crate::error::{DbError, DbResult};
use crate::events::{recorded, Recorder};
use crate::group_filter::{from_where, order_and_page};
use crate::membership::{add_members, members_among, members_except, not_people, remove_members};
use crate::models::{db_time, parse_id, GroupRow, MemberRow};
use crate::schema::{group_members, groups, people};
use crate::sql_builder::{texts, CountRow, Sql, ID_CHUNK};
use crate::store::Store;

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

impl crate::error::LockConflict for Abort {
    fn is_lock_conflict(&self) -> bool {
        matches!(self, Self::Db(err) if err.is_lock_conflict())
    }
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

/// The group's row and member count, locked until the transaction ends on
/// PostgreSQL (on SQLite the write transaction already holds the database's
/// write lock).
fn lock_group(c: &mut DbConnection, org: &str, id: &str) -> DbResult<Option<(Group, u64)>> {
    let row = groups::table
        .filter(groups::id.eq(id))
        .filter(groups::organization_id.eq(org));
    let found: Option<(GroupRow, i64)> = match c {
        DbConnection::Postgres(pg) => row
            .select((GroupRow::as_select(), groups::member_count))
            .for_update()
            .first(pg)
            .optional()?,
        DbConnection::Sqlite(lite) => row
            .select((GroupRow::as_select(), groups::member_count))
            .first(lite)
            .optional()?,
    };
    found
        .map(|(row, n)| Ok((row.into_domain()?, u64::try_from(n).unwrap_or(0))))
        .transpose()
}

/// Fails unless a write of memberships changed as many rows as decided:
/// the group's row lock keeps its members as the facts read them, so a
/// difference means the member count would no longer be the members'.
fn as_decided(what: &str, written: usize, decided: usize) -> DbResult<()> {
    if written == decided {
        Ok(())
    } else {
        Err(DbError::corrupt(format!(
            "{what}: {written} membership rows written where {decided} were decided"
        )))
    }
}

fn signed(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Records `events` of the organization at `at`.
fn record_all(events: &mut Recorder, org: &str, at: DateTime<Utc>, decided: Vec<NewEvent>) {
    for event in decided {
        events.push(org, at, event);
    }
}

/// After a group write: the orders of the people whose effective package
/// it may have changed (`equip_domain::orders::plan::affected_by_group`),
/// planned and written in the same transaction. `group`: the group's id
/// and its (package, precedence) before and after; `moved`: who joined and
/// who left.
fn orders_after(
    c: &mut DbConnection,
    events: &mut Recorder,
    org: &str,
    group: GroupSides<'_>,
    moved: (&[PersonId], &[PersonId]),
    at: DateTime<Utc>,
) -> DbResult<()> {
    let (gid, before, after) = group;
    let joining: BTreeSet<PersonId> = moved.0.iter().copied().collect();
    let leaving: BTreeSet<PersonId> = moved.1.iter().copied().collect();
    let people = match affected_by_group(before, after, &joining, &leaving) {
        Affected::Nobody => return Ok(()),
        Affected::These(people) => people,
        Affected::EveryMember(mut people) => {
            people.extend(members_except(c, gid, &[])?);
            people
        }
    };
    crate::orders::provisioned(c, events, org, &texts(&people), at)
}

/// A group's id and its (package, precedence) before and after a write.
type GroupSides<'a> = (
    &'a str,
    Option<(Option<PackageId>, i32)>,
    Option<(Option<PackageId>, i32)>,
);

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
            let _writer = self.sqlite_writer(c);
            settle(recorded(c, &self.actor, |c, events| {
                let org = &row.organization_id;
                let missing = not_people(c, org, &joining)?;
                let decided = decide_create(group, members, missing);
                // Unique name and package of the organization: the
                // database's constraints (Duplicate, MissingReference)
                // answer before a refusal of the members.
                diesel::insert_into(groups::table).values(&row).execute(c)?;
                let created = match decided {
                    Ok(created) => created,
                    Err(refusal) => return refuse(refusal.into()),
                };
                let added = add_members(c, org, &row.id, &texts(&created.joining))?;
                as_decided("group create", added, created.joining.len())?;
                if created.member_count > 0 {
                    diesel::update(groups::table.filter(groups::id.eq(&row.id)))
                        .set(groups::member_count.eq(signed(created.member_count)))
                        .execute(c)?;
                }
                record_all(events, org, group.updated_at, created.events);
                orders_after(
                    c,
                    events,
                    org,
                    (&row.id, None, Some((group.package_id, group.precedence))),
                    (&created.joining, &[]),
                    group.updated_at,
                )?;
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
        let named = texts(&change.members.named());
        self.with("group", DUPLICATE_DISPLAY_NAME, |c| {
            let _writer = self.sqlite_writer(c);
            settle(recorded(c, &self.actor, |c, events| {
                // The facts. People first, then the group (the lock order).
                let not_people = not_people(c, &org, &joining)?;
                let Some((current, member_count)) = lock_group(c, &org, &gid)? else {
                    return refuse(GroupWrite::Missing);
                };
                let facts = MembersFacts {
                    not_people,
                    member_count,
                    named_members: members_among(c, &gid, &named)?,
                    unnamed_members: if change.members.replaces() {
                        members_except(c, &gid, &named)?
                    } else {
                        BTreeSet::new()
                    },
                };
                // The decision, then what it decided written.
                let update = match decide_update(&current, change, &facts) {
                    Ok(update) => update,
                    Err(refusal) => return refuse(refusal.into()),
                };
                if update.fields_changed {
                    let next = &update.fields;
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
                let plan = match update.outcome {
                    Ok(plan) => plan,
                    Err(refusal) => return refuse(refusal.into()),
                };
                let Some(written) = &plan.written else {
                    return Ok(plan.answer(&current));
                };
                let removed = remove_members(c, &gid, &texts(&plan.leaving))?;
                as_decided("group update", removed, plan.leaving.len())?;
                let added = add_members(c, &org, &gid, &texts(&plan.joining))?;
                as_decided("group update", added, plan.joining.len())?;
                let updated_at = db_time(written.updated_at);
                diesel::update(groups::table.filter(groups::id.eq(&gid)))
                    .set((
                        groups::version.eq(written.version),
                        groups::updated_at.eq(updated_at),
                        groups::member_count.eq(signed(plan.member_count)),
                    ))
                    .execute(c)?;
                // The group as stored (times to the database's precision).
                let mut stored = written.clone();
                stored.updated_at = updated_at.and_utc();
                record_all(events, &org, stored.updated_at, plan.events);
                orders_after(
                    c,
                    events,
                    &org,
                    (
                        &gid,
                        Some((current.package_id, current.precedence)),
                        Some((stored.package_id, stored.precedence)),
                    ),
                    (&plan.joining, &plan.leaving),
                    stored.updated_at,
                )?;
                Ok(GroupWrite::Done(stored))
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
            let _writer = self.sqlite_writer(c);
            settle(recorded(c, &self.actor, |c, events| {
                let Some((current, _)) = lock_group(c, &org, &gid)? else {
                    return refuse(GroupWrite::Missing);
                };
                let decided = match decide_delete(&current, expected_version) {
                    Ok(decided) => decided,
                    Err(refusal) => return refuse(refusal.into()),
                };
                let members: Vec<PersonId> = if current.package_id.is_some() {
                    members_except(c, &gid, &[])?.into_iter().collect()
                } else {
                    Vec::new()
                };
                diesel::delete(group_members::table.filter(group_members::group_id.eq(&gid)))
                    .execute(c)?;
                diesel::delete(
                    groups::table
                        .filter(groups::id.eq(&gid))
                        .filter(groups::organization_id.eq(&org)),
                )
                .execute(c)?;
                let at = Utc::now();
                record_all(events, &org, at, decided);
                orders_after(
                    c,
                    events,
                    &org,
                    (&gid, Some((current.package_id, current.precedence)), None),
                    (&[], &members),
                    at,
                )?;
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
        self.read("group", |c| crate::membership::person_groups(c, &org, &ids))
    }
}
