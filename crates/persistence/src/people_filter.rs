//! The domain's [`PersonFilter`] and sort order as SQL over `people` and
//! `person_emails`, with bind parameters (never values spliced into the text).
//!
//! - Case-insensitive fields compare folded columns (`user_name_lower`,
//!   `value_lower`, or the Unicode `LOWER(col)` for names, `equip_lower` on
//!   SQLite) with the folded value.
//! - Every leaf is two-valued: an absent (NULL) field never matches, except
//!   with `ne`, so `not (…)` behaves as the in-memory reference does.
//! - `co` / `sw` / `ew` use `instr` / `strpos` and `substr`, not `LIKE`, so no
//!   wildcard in a value needs escaping and case-exact fields stay case-exact on
//!   SQLite too. Ordering comparisons use the byte order (`COLLATE "C"` on
//!   PostgreSQL, SQLite's default binary collation), as does sorting;
//!   equality needs no `COLLATE` (byte equality in every deterministic
//!   collation), so the indexes in the default collation serve it.
//! - An email condition is `p.id IN (SELECT person_id FROM person_emails …)`
//!   over one address at a time.

use equip_domain::person_query::{
    fold_text, CompareOp, EmailField, EmailFilter, FieldKind, FilterValue, PersonField,
    PersonFilter, PersonQuery, SortOrder,
};

use crate::connection::{fold_function, Backend};
use crate::models::db_time;
use crate::sql_builder::{byte_order as collate, Bind, Sql};

/// Whether a query's statements come in a bounded number of shapes and are
/// worth keeping prepared: one condition, in the default order.
fn bounded_shape(query: &PersonQuery) -> bool {
    // No filter (the list): left to custom plans, which measured cheaper
    // than a kept generic plan for its LIMIT/OFFSET (docs/performance.md,
    // "Prepared statements").
    let leaf = match &query.filter {
        None => false,
        Some(PersonFilter::Compare(..) | PersonFilter::Present(_)) => true,
        Some(PersonFilter::AnyEmail(e)) => {
            matches!(e, EmailFilter::Compare(..) | EmailFilter::Present(_))
        }
        Some(_) => false,
    };
    leaf && query.sort.is_none()
}

/// Column expression of a person field (folded for case-insensitive text, by
/// the backend's Unicode case folding, [`fold_function`]).
fn person_column(f: PersonField, backend: Backend) -> String {
    let fold = |col: &str| format!("{}({col})", fold_function(backend));
    match f {
        PersonField::Id => "p.id".to_owned(),
        PersonField::ExternalId => "p.external_id".to_owned(),
        PersonField::UserName => "p.user_name_lower".to_owned(),
        PersonField::GivenName => fold("p.given_name"),
        PersonField::FamilyName => fold("p.family_name"),
        PersonField::DisplayName => fold("p.display_name"),
        PersonField::Active => "p.active".to_owned(),
        PersonField::Created => "p.created_at".to_owned(),
        PersonField::LastModified => "p.updated_at".to_owned(),
        PersonField::PackageId => "p.package_id".to_owned(),
        PersonField::StartDate => "p.start_date".to_owned(),
    }
}

fn email_column(f: EmailField, backend: Backend) -> String {
    match f {
        EmailField::Value => "e.value_lower".to_owned(),
        EmailField::Kind => format!("{}(e.kind)", fold_function(backend)),
        EmailField::Primary => "e.is_primary".to_owned(),
    }
}

fn bind_value(kind: FieldKind, v: &FilterValue) -> Bind {
    match v {
        // The forms the columns hold: the identifier key in `user_name_lower`
        // and `value_lower`, the backend's lowercase for names.
        FilterValue::Text(s) => Bind::Text(fold_text(kind, s)),
        FilterValue::Bool(b) => Bind::Bool(*b),
        FilterValue::Time(t) => Bind::Time(db_time(*t)),
        FilterValue::Date(d) => Bind::Date(*d),
    }
}

/// `col op value`, two-valued (also the group filter's, `crate::group_filter`).
pub(crate) fn compare(
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
    let ordering = matches!(
        op,
        CompareOp::Gt | CompareOp::Ge | CompareOp::Lt | CompareOp::Le
    );
    let collate = if ordering && matches!(kind, FieldKind::Text { .. } | FieldKind::Identifier) {
        collate(backend)
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

fn email_sql(sql: &mut Sql, backend: Backend, f: &EmailFilter) {
    match f {
        EmailFilter::Compare(field, op, v) => {
            let col = email_column(*field, backend);
            compare(sql, backend, &col, field.kind(), *op, v);
        }
        EmailFilter::Present(field) => {
            let col = email_column(*field, backend);
            sql.push_sql("(").push_sql(&col).push_sql(" IS NOT NULL)");
        }
        EmailFilter::And(a, b) => {
            sql.push_sql("(");
            email_sql(sql, backend, a);
            sql.push_sql(" AND ");
            email_sql(sql, backend, b);
            sql.push_sql(")");
        }
        EmailFilter::Or(a, b) => {
            sql.push_sql("(");
            email_sql(sql, backend, a);
            sql.push_sql(" OR ");
            email_sql(sql, backend, b);
            sql.push_sql(")");
        }
        EmailFilter::Not(a) => {
            sql.push_sql("(NOT ");
            email_sql(sql, backend, a);
            sql.push_sql(")");
        }
    }
}

/// Appends the condition of `f` on the row alias `p`.
fn filter_sql(sql: &mut Sql, backend: Backend, organization: &str, f: &PersonFilter) {
    match f {
        PersonFilter::Compare(field, op, v) => {
            let col = person_column(*field, backend);
            compare(sql, backend, &col, field.kind(), *op, v);
        }
        PersonFilter::Present(field) => {
            let col = person_column(*field, backend);
            sql.push_sql("(").push_sql(&col).push_sql(" IS NOT NULL");
            if matches!(field.kind(), FieldKind::Text { .. } | FieldKind::Identifier) {
                sql.push_sql(" AND ").push_sql(&col).push_sql(" <> ''");
            }
            sql.push_sql(")");
        }
        PersonFilter::AnyEmail(e) => {
            // Uncorrelated, so the database can start from the email index
            // (organization_id, value_lower) instead of probing every person.
            sql.push_sql(
                "p.id IN (SELECT e.person_id FROM person_emails e WHERE e.organization_id = ",
            );
            sql.push_bind(organization);
            sql.push_sql(" AND ");
            email_sql(sql, backend, e);
            sql.push_sql(")");
        }
        PersonFilter::And(a, b) => {
            sql.push_sql("(");
            filter_sql(sql, backend, organization, a);
            sql.push_sql(" AND ");
            filter_sql(sql, backend, organization, b);
            sql.push_sql(")");
        }
        PersonFilter::Or(a, b) => {
            sql.push_sql("(");
            filter_sql(sql, backend, organization, a);
            sql.push_sql(" OR ");
            filter_sql(sql, backend, organization, b);
            sql.push_sql(")");
        }
        PersonFilter::Not(a) => {
            sql.push_sql("(NOT ");
            filter_sql(sql, backend, organization, a);
            sql.push_sql(")");
        }
    }
}

/// `FROM people p WHERE <org> AND status = 'ACTIVE' [AND <filter>]`.
pub(crate) fn from_where(sql: &mut Sql, backend: Backend, organization: &str, query: &PersonQuery) {
    // SQLite: not kept prepared. Keeping them was measured on PostgreSQL
    // only (where each call was parsed and planned anew); SQLite keeps one
    // preparation per call.
    if backend == Backend::Sqlite || !bounded_shape(query) {
        sql.uncached();
    }
    sql.push_sql(" FROM people p WHERE p.organization_id = ");
    sql.push_bind(organization);
    sql.push_sql(" AND p.status = 'ACTIVE'");
    if let Some(f) = &query.filter {
        sql.push_sql(" AND ");
        filter_sql(sql, backend, organization, f);
    }
}

/// `ORDER BY …` (absent values last when ascending), ending with the creation
/// time and id so paging is stable, then `LIMIT` / `OFFSET`.
pub(crate) fn order_and_page(sql: &mut Sql, backend: Backend, query: &PersonQuery) {
    sql.push_sql(" ORDER BY ");
    if let Some(field) = query.sort {
        let col = person_column(field, backend);
        let dir = match query.order {
            SortOrder::Ascending => " ASC",
            SortOrder::Descending => " DESC",
        };
        // NULLs last in ascending order, first in descending (as the in-memory store).
        sql.push_sql("(")
            .push_sql(&col)
            .push_sql(" IS NULL)")
            .push_sql(dir)
            .push_sql(", ");
        sql.push_sql(&col);
        if matches!(field.kind(), FieldKind::Text { .. } | FieldKind::Identifier) {
            let c = collate(backend);
            sql.push_sql(c);
        }
        sql.push_sql(dir).push_sql(", ");
    }
    // Ids are lowercase hyphenated UUIDs: every collation orders them alike, so
    // the tie-break needs no COLLATE and the partial index
    // people_active_created_idx serves the default order.
    sql.push_sql("p.created_at ASC, p.id ASC LIMIT ");
    sql.push_bind(i64::from(query.count));
    sql.push_sql(" OFFSET ");
    sql.push_bind(Bind::BigInt(
        i64::try_from(query.start_index.saturating_sub(1)).unwrap_or(i64::MAX),
    ));
}

#[cfg(test)]
mod tests;
