//! The domain's filter tree ([`equip_domain::filter::Filter`]) as SQL, with
//! bind parameters (never values spliced into the text): one walk for every
//! resource ([`push_filter`], a closure per leaf) and one translation of a
//! condition on a column ([`push_condition`]). People (`crate::people_filter`)
//! and groups (`crate::group_filter`) bring only their columns and their
//! conditions on multi-valued attributes (a sub-query over another table).
//!
//! - `and` / `or` / `not` become `(a AND b)`, `(a OR b)`, `(NOT a)`, so the
//!   statement has the tree's shape: a filter of one condition is one of a
//!   bounded set of statements (kept prepared on PostgreSQL, see
//!   `crate::people_filter`), and every leaf is two-valued, so `not (…)`
//!   behaves as the in-memory reference does (`Filter::matches`).
//! - A leaf is two-valued: an absent (NULL) field never matches, except with
//!   `ne`. A value of another type than the field's, or `co` / `sw` / `ew` on
//!   a non-text field, matches nothing but an absent field with `ne` (as in
//!   the reference, also under `not`).
//! - `co` / `sw` / `ew` use `instr` / `strpos` and `substr`, not `LIKE`, so no
//!   wildcard in a value needs escaping and case-exact fields stay case-exact
//!   on SQLite too. Ordering comparisons use the byte order (`COLLATE "C"` on
//!   PostgreSQL, SQLite's default binary collation), as does sorting;
//!   equality needs no `COLLATE` (byte equality in every deterministic
//!   collation), so the indexes in the default collation serve it.

use equip_domain::filter::{
    fold_text, CompareOp, Condition, Field, FieldKind, Filter, FilterValue,
};
use equip_domain::person_query::SortOrder;

use crate::connection::Backend;
use crate::models::db_time;
use crate::sql_builder::{byte_order, Bind, Sql};

/// Appends `f`, each leaf written by `leaf`.
pub(crate) fn push_filter<L>(sql: &mut Sql, f: &Filter<L>, leaf: &mut impl FnMut(&mut Sql, &L)) {
    match f {
        Filter::Leaf(l) => leaf(sql, l),
        Filter::And(a, b) => {
            sql.push_sql("(");
            push_filter(sql, a, leaf);
            sql.push_sql(" AND ");
            push_filter(sql, b, leaf);
            sql.push_sql(")");
        }
        Filter::Or(a, b) => {
            sql.push_sql("(");
            push_filter(sql, a, leaf);
            sql.push_sql(" OR ");
            push_filter(sql, b, leaf);
            sql.push_sql(")");
        }
        Filter::Not(a) => {
            sql.push_sql("(NOT ");
            push_filter(sql, a, leaf);
            sql.push_sql(")");
        }
    }
}

/// What `present` means on a text column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Present {
    /// The column is not NULL.
    NotNull,
    /// The column is not NULL, and not empty when it holds text (people's
    /// optional texts).
    NotBlank,
}

/// Appends the condition `c` on the column `column(field)` (an expression,
/// folded as the field compares).
pub(crate) fn push_condition<F: Field>(
    sql: &mut Sql,
    backend: Backend,
    c: &Condition<F>,
    column: impl FnOnce(F) -> String,
    present: Present,
) {
    match c {
        Condition::Compare(field, op, v) => {
            let kind = field.kind();
            let col = column(*field);
            if v.fits(kind, *op) {
                compare(sql, backend, &col, kind, *op, v);
            } else if *op == CompareOp::Ne {
                sql.push_sql("(").push_sql(&col).push_sql(" IS NULL)");
            } else {
                sql.push_sql("(1 = 0)");
            }
        }
        Condition::Present(field) => {
            let col = column(*field);
            sql.push_sql("(").push_sql(&col).push_sql(" IS NOT NULL");
            if present == Present::NotBlank && field.kind().is_text() {
                sql.push_sql(" AND ").push_sql(&col).push_sql(" <> ''");
            }
            sql.push_sql(")");
        }
    }
}

fn bind_value(kind: FieldKind, v: &FilterValue) -> Bind {
    match v {
        // The forms the columns hold: the identifier key in `user_name_lower`,
        // `value_lower` and `display_name_key`, the backend's lowercase for
        // names.
        FilterValue::Text(s) => Bind::Text(fold_text(kind, s)),
        FilterValue::Bool(b) => Bind::Bool(*b),
        FilterValue::Time(t) => Bind::Time(db_time(*t)),
        FilterValue::Date(d) => Bind::Date(*d),
    }
}

/// `col op value`, two-valued, for a value that fits the field.
fn compare(
    sql: &mut Sql,
    backend: Backend,
    col: &str,
    kind: FieldKind,
    op: CompareOp,
    v: &FilterValue,
) {
    let b = bind_value(kind, v);
    // Only an ordering comparison needs the byte order. Equality is byte
    // equality under every deterministic collation (PostgreSQL compares
    // such texts with memcmp), so `eq` leaves the column's own collation:
    // the indexes (the unique `people_active_user_name_key`,
    // `person_emails_value_idx`, `people_external_id_idx`) are in the
    // database's default collation and serve only a comparison in it. With
    // `COLLATE "C"` on `eq`, `userName eq` (Okta's and Entra's lookup before
    // every create) read every person of the organization.
    let collate = if op.is_ordering() && kind.is_text() {
        byte_order(backend)
    } else {
        ""
    };
    match op {
        CompareOp::Ne => {
            sql.push_sql("(")
                .push_sql(col)
                .push_sql(" IS NULL OR ")
                .push_sql(col)
                .push_sql(" <> ");
            sql.push_bind(b).push_sql(")");
        }
        CompareOp::Co => {
            let f = match backend {
                Backend::Sqlite => "instr(",
                Backend::Postgres => "strpos(",
            };
            sql.push_sql("(")
                .push_sql(col)
                .push_sql(" IS NOT NULL AND ")
                .push_sql(f)
                .push_sql(col)
                .push_sql(", ");
            sql.push_bind(b).push_sql(") > 0)");
        }
        CompareOp::Sw => {
            sql.push_sql("(")
                .push_sql(col)
                .push_sql(" IS NOT NULL AND substr(")
                .push_sql(col)
                .push_sql(", 1, length(");
            sql.push_bind(b.clone()).push_sql(")) = ");
            sql.push_bind(b).push_sql(")");
        }
        CompareOp::Ew => {
            sql.push_sql("(")
                .push_sql(col)
                .push_sql(" IS NOT NULL AND length(")
                .push_sql(col)
                .push_sql(") >= length(");
            sql.push_bind(b.clone())
                .push_sql(") AND substr(")
                .push_sql(col)
                .push_sql(", length(")
                .push_sql(col);
            sql.push_sql(") - length(");
            sql.push_bind(b.clone()).push_sql(") + 1) = ");
            sql.push_bind(b).push_sql(")");
        }
        CompareOp::Eq | CompareOp::Gt | CompareOp::Ge | CompareOp::Lt | CompareOp::Le => {
            let o = match op {
                CompareOp::Eq => " = ",
                CompareOp::Gt => " > ",
                CompareOp::Ge => " >= ",
                CompareOp::Lt => " < ",
                _ => " <= ",
            };
            sql.push_sql("(")
                .push_sql(col)
                .push_sql(" IS NOT NULL AND ")
                .push_sql(col)
                .push_sql(collate)
                .push_sql(o);
            sql.push_bind(b).push_sql(collate).push_sql(")");
        }
    }
}

/// `ORDER BY …` of a listing whose rows are `alias`: by the sort column
/// (`sort`: its expression, how its field compares, the direction; absent
/// values last when ascending, first when descending, as the in-memory
/// reference; texts in byte order), then by creation time and id so that
/// paging is stable, then `LIMIT count OFFSET start_index - 1`.
///
/// Ids are lowercase hyphenated UUIDs: every collation orders them alike, so
/// the tie-break needs no `COLLATE` and the indexes on (organization,
/// creation time) serve the default order.
pub(crate) fn push_order_and_page(
    sql: &mut Sql,
    backend: Backend,
    sort: Option<(&str, FieldKind, SortOrder)>,
    alias: &str,
    count: u32,
    start_index: u64,
) {
    sql.push_sql(" ORDER BY ");
    if let Some((col, kind, order)) = sort {
        let dir = match order {
            SortOrder::Ascending => " ASC",
            SortOrder::Descending => " DESC",
        };
        sql.push_sql("(")
            .push_sql(col)
            .push_sql(" IS NULL)")
            .push_sql(dir)
            .push_sql(", ")
            .push_sql(col);
        if kind.is_text() {
            sql.push_sql(byte_order(backend));
        }
        sql.push_sql(dir).push_sql(", ");
    }
    sql.push_sql(alias)
        .push_sql(".created_at ASC, ")
        .push_sql(alias)
        .push_sql(".id ASC LIMIT ");
    sql.push_bind(i64::from(count));
    sql.push_sql(" OFFSET ");
    sql.push_bind(Bind::BigInt(
        i64::try_from(start_index.saturating_sub(1)).unwrap_or(i64::MAX),
    ));
}
