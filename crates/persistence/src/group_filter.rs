//! The domain's [`GroupFilter`] and sort order as SQL over `groups` (alias
//! `g`) and `group_members` (alias `gm`), with bind parameters, agreeing with
//! the in-memory reference (`GroupFilter::matches`, `sort_groups`).
//!
//! - `displayName` compares `display_name_key` (the name's identifier key,
//!   the column of the unique index `groups_display_name_key`) with the
//!   value's key: `eq` is served by that index; `co` / `sw` / `ew` and the
//!   orderings work on the key too. `id` and `externalId` compare exactly,
//!   `meta.created` / `meta.lastModified` as times.
//! - Conditions and `and` / `or` / `not` are written by the one filter walk,
//!   [`crate::filter_sql`]: two-valued, an absent field matches only `ne`,
//!   orderings in byte order, a value of another type than the field's
//!   matching nothing but an absent field with `ne`.
//! - `present` is `IS NOT NULL` (the reference: the field has a value).
//! - A condition on members is `EXISTS (SELECT 1 FROM group_members gm
//!   WHERE gm.group_id = g.id AND …)`: answered from the primary key
//!   `(group_id, person_id)`, never by reading a group's members.

use equip_domain::filter::Condition;
use equip_domain::group_query::{GroupField, GroupFilter, GroupLeaf, GroupQuery, MemberField};

use crate::connection::Backend;
use crate::filter_sql::{push_condition, push_filter, push_order_and_page, Present};
use crate::sql_builder::Sql;

/// Whether a query's statements come in a bounded number of shapes and are
/// worth keeping prepared (PostgreSQL): one condition, in the default order.
fn bounded_shape(query: &GroupQuery) -> bool {
    let leaf = match query.filter.as_ref().and_then(|f| f.as_leaf()) {
        None => false,
        Some(GroupLeaf::Field(_)) => true,
        Some(GroupLeaf::AnyMember(m)) => m.as_leaf().is_some(),
    };
    leaf && query.sort.is_none()
}

/// Column of a group field (`display_name_key` for the name: the folded form
/// it compares and sorts in).
fn column(f: GroupField) -> &'static str {
    match f {
        GroupField::Id => "g.id",
        GroupField::ExternalId => "g.external_id",
        GroupField::DisplayName => "g.display_name_key",
        GroupField::Created => "g.created_at",
        GroupField::LastModified => "g.updated_at",
    }
}

/// Appends the condition of `f` on the row alias `g`.
fn filter_sql(sql: &mut Sql, backend: Backend, f: &GroupFilter) {
    push_filter(sql, f, &mut |sql, leaf| match leaf {
        GroupLeaf::Field(c) => {
            push_condition(sql, backend, c, |f| column(f).to_owned(), Present::NotNull);
        }
        GroupLeaf::AnyMember(m) => {
            sql.push_sql("EXISTS (SELECT 1 FROM group_members gm WHERE gm.group_id = g.id AND ");
            push_filter(sql, m, &mut |sql, c| match c {
                // Every member has an id.
                Condition::Present(MemberField::Value) => {
                    sql.push_sql("(1 = 1)");
                }
                Condition::Compare(..) => push_condition(
                    sql,
                    backend,
                    c,
                    |MemberField::Value| "gm.person_id".to_owned(),
                    Present::NotNull,
                ),
            });
            sql.push_sql(")");
        }
    });
}

/// `FROM groups g WHERE g.organization_id = ? [AND <filter>]`.
pub(crate) fn from_where(sql: &mut Sql, backend: Backend, organization: &str, query: &GroupQuery) {
    // As people_filter: kept prepared on PostgreSQL for the bounded shapes only.
    if backend == Backend::Sqlite || !bounded_shape(query) {
        sql.uncached();
    }
    sql.push_sql(" FROM groups g WHERE g.organization_id = ");
    sql.push_bind(organization);
    if let Some(f) = &query.filter {
        sql.push_sql(" AND ");
        filter_sql(sql, backend, f);
    }
}

/// `ORDER BY …` (the sort field, then creation time and id;
/// [`push_order_and_page`]), then `LIMIT` / `OFFSET`. The index
/// `groups_organization_created_idx` serves the default order.
pub(crate) fn order_and_page(sql: &mut Sql, backend: Backend, query: &GroupQuery) {
    push_order_and_page(
        sql,
        backend,
        query
            .sort
            .map(|field| (column(field), field.kind(), query.order)),
        "g",
        query.count,
        query.start_index,
    );
}

#[cfg(test)]
mod tests;
