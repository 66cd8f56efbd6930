//! Group memberships in SQL, shared by the people, group and import writes:
//! the facts the domain's membership rules read
//! (`equip_domain::group::membership`) and the writes of what they decided.
//! Each runs in the caller's write transaction.
//!
//! Members are rows of `group_members`; nothing here reads a group's whole
//! member list except the members a replace does not name (who leave).
//! Locks on PostgreSQL are taken people first, then groups, as offboarding
//! takes them (the person's row, then their groups): the people joining a
//! group are locked `FOR SHARE` when they are checked
//! ([`provisioned_people`]), so a concurrent offboarding waits for the write
//! that adds them (and then removes the memberships it made) instead of
//! missing them.

use std::collections::{BTreeSet, HashSet};

use chrono::NaiveDateTime;
use diesel::prelude::*;

use equip_domain::group::membership::LeavingEveryGroup;
use equip_domain::group::PersonGroup;
use equip_domain::ids::{GroupId, PersonId};

use crate::connection::{Backend, DbConnection};
use crate::error::{DbError, DbResult};
use crate::models::{db_time, parse_id, PersonGroupRow};
use crate::schema::{group_members, groups, people};
use crate::sql_builder::{texts, IdRow, Sql, ID_CHUNK};

/// Which of `ids` (one chunk) are provisioned (ACTIVE) people of the
/// organization. On PostgreSQL they stay locked `FOR SHARE` until the
/// transaction ends (see the module docs).
pub(crate) fn provisioned_people(
    c: &mut DbConnection,
    org: &str,
    ids: &[String],
) -> DbResult<Vec<String>> {
    let active = people::table
        .filter(people::organization_id.eq(org))
        .filter(people::status.eq("ACTIVE"))
        .filter(people::id.eq_any(ids))
        .select(people::id);
    Ok(match c {
        DbConnection::Postgres(pg) => active.for_share().load(pg)?,
        DbConnection::Sqlite(lite) => active.load(lite)?,
    })
}

/// Which of `ids` are not provisioned people of the organization, in the
/// order of `ids` (the people found stay locked on PostgreSQL).
pub(crate) fn not_people(
    c: &mut DbConnection,
    org: &str,
    ids: &[String],
) -> DbResult<Vec<PersonId>> {
    let mut found: HashSet<String> = HashSet::new();
    for chunk in ids.chunks(ID_CHUNK) {
        found.extend(provisioned_people(c, org, chunk)?);
    }
    ids.iter()
        .filter(|id| !found.contains(id.as_str()))
        .map(|id| parse_id(id))
        .collect()
}

/// Which of the people `ids` are members of the group (by the primary key:
/// the group's other members are not read).
pub(crate) fn members_among(
    c: &mut DbConnection,
    group: &str,
    ids: &[String],
) -> DbResult<BTreeSet<PersonId>> {
    let mut found = BTreeSet::new();
    for chunk in ids.chunks(ID_CHUNK) {
        let rows: Vec<String> = group_members::table
            .filter(group_members::group_id.eq(group))
            .filter(group_members::person_id.eq_any(chunk))
            .select(group_members::person_id)
            .load(c)?;
        for id in rows {
            found.insert(parse_id(&id)?);
        }
    }
    Ok(found)
}

/// The members of the group who are not in `named`. The set goes in as
/// one JSON array (a `NOT IN` cannot be cut into chunks), read by the
/// backend's JSON table function; the database compares it with the
/// group's members by the primary key.
pub(crate) fn members_except(
    c: &mut DbConnection,
    group: &str,
    named: &[String],
) -> DbResult<BTreeSet<PersonId>> {
    let ids: Vec<String> = if named.is_empty() {
        group_members::table
            .filter(group_members::group_id.eq(group))
            .select(group_members::person_id)
            .load(c)?
    } else {
        let list = serde_json::to_string(named)
            .map_err(|e| DbError::corrupt(format!("cannot encode member ids: {e}")))?;
        let mut sql = Sql::default();
        match c.backend() {
            Backend::Sqlite => {
                sql.push_sql("SELECT person_id AS id FROM group_members WHERE group_id = ")
                    .push_bind(group)
                    .push_sql(" AND person_id NOT IN (SELECT value FROM json_each(")
                    .push_bind(list)
                    .push_sql("))");
            }
            Backend::Postgres => {
                // NOT EXISTS: an anti-join, whatever the planner guesses of
                // the set's size (a NOT IN that does not fit its hash would
                // probe the list once per member).
                sql.push_sql(
                    "SELECT gm.person_id AS id FROM group_members gm WHERE gm.group_id = ",
                )
                .push_bind(group)
                .push_sql(" AND NOT EXISTS (SELECT 1 FROM json_array_elements_text(CAST(")
                .push_bind(list)
                .push_sql(" AS json)) AS k(id) WHERE k.id = gm.person_id)");
            }
        }
        sql.load::<IdRow>(c)?.into_iter().map(|r| r.id).collect()
    };
    ids.iter().map(|id| parse_id(id)).collect()
}

/// Adds the people `ids` (checked before) to the group; present ones stay.
/// How many rows were inserted.
pub(crate) fn add_members(
    c: &mut DbConnection,
    org: &str,
    group: &str,
    ids: &[String],
) -> DbResult<usize> {
    let mut inserted = 0;
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
        inserted += sql.load::<IdRow>(c)?.len();
    }
    Ok(inserted)
}

/// Removes the people `ids` from the group; absent ones are no change.
/// How many rows were deleted.
pub(crate) fn remove_members(c: &mut DbConnection, group: &str, ids: &[String]) -> DbResult<usize> {
    let mut deleted = 0;
    for chunk in ids.chunks(ID_CHUNK) {
        deleted += diesel::delete(
            group_members::table
                .filter(group_members::group_id.eq(group))
                .filter(group_members::person_id.eq_any(chunk)),
        )
        .execute(c)?;
    }
    Ok(deleted)
}

/// The groups of the organization `person` is in, in id order. On
/// PostgreSQL they are locked (in that order, so that concurrent writes for
/// people sharing groups cannot deadlock) until the transaction ends.
///
/// The memberships are read again, in a statement of their own, once the
/// groups are locked: on PostgreSQL a `SELECT … FOR UPDATE` that waited for
/// a group's lock rechecks the group's row but not the subquery that chose
/// it, so a write that removed the person from the group while we waited
/// (a PATCH of the group) would otherwise still count here, and the group
/// would lose one member twice. The second read runs after the locks are
/// held and sees what was committed before them.
pub(crate) fn groups_of_person(
    c: &mut DbConnection,
    org: &str,
    person: &str,
) -> DbResult<Vec<GroupId>> {
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
        DbConnection::Postgres(pg) => {
            let locked: Vec<String> = theirs.for_update().load(pg)?;
            let mut still = Vec::with_capacity(locked.len());
            for chunk in locked.chunks(ID_CHUNK) {
                still.extend(
                    group_members::table
                        .filter(group_members::person_id.eq(person))
                        .filter(group_members::organization_id.eq(org))
                        .filter(group_members::group_id.eq_any(chunk))
                        .select(group_members::group_id)
                        .load::<String>(pg)?,
                );
            }
            still.sort_unstable();
            still
        }
        DbConnection::Sqlite(lite) => theirs.load(lite)?,
    };
    ids.iter().map(|id| parse_id(id)).collect()
}

/// Each of `groups` gets a new version (its version plus one), last
/// changed `at`, and its member count moves by `count_delta`.
pub(crate) fn touch_groups(
    c: &mut DbConnection,
    groups: &[GroupId],
    at: NaiveDateTime,
    count_delta: i64,
) -> DbResult<()> {
    for chunk in texts(groups).chunks(ID_CHUNK) {
        diesel::update(groups::table.filter(groups::id.eq_any(chunk)))
            .set((
                groups::version.eq(groups::version + 1),
                groups::updated_at.eq(at),
                groups::member_count.eq(groups::member_count + count_delta),
            ))
            .execute(c)?;
    }
    Ok(())
}

/// Writes a person leaving every group, as the domain decided it: their
/// memberships go, each group left gets a new version and one member less.
/// The groups are the ones [`groups_of_person`] read (and locked) in the
/// same transaction.
pub(crate) fn leave_groups(
    c: &mut DbConnection,
    org: &str,
    leaving: &LeavingEveryGroup,
) -> DbResult<()> {
    if leaving.groups.is_empty() {
        return Ok(());
    }
    touch_groups(c, &leaving.groups, db_time(leaving.at), -1)?;
    diesel::delete(
        group_members::table
            .filter(group_members::person_id.eq(leaving.person.to_string()))
            .filter(group_members::organization_id.eq(org)),
    )
    .execute(c)?;
    Ok(())
}

/// The groups (with their package and precedence) of each of `people` (ids
/// as text, sorted), in (person, group) id order.
pub(crate) fn person_groups(
    c: &mut DbConnection,
    org: &str,
    people: &[String],
) -> DbResult<Vec<(PersonId, PersonGroup)>> {
    let mut out = Vec::new();
    // From the person index (person_id, group_id) to each group's row.
    for chunk in people.chunks(ID_CHUNK) {
        let rows: Vec<PersonGroupRow> = group_members::table
            .inner_join(groups::table.on(groups::id.eq(group_members::group_id)))
            .filter(group_members::person_id.eq_any(chunk))
            .filter(group_members::organization_id.eq(org))
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
}
