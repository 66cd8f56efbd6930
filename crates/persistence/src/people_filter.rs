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

use chrono::{NaiveDate, NaiveDateTime};

use equip_domain::person_query::{
    fold_text, CompareOp, EmailField, EmailFilter, FieldKind, FilterValue, PersonField,
    PersonFilter, PersonQuery, SortOrder,
};

use crate::connection::{fold_function, Backend};
use crate::models::db_time;

/// A bind parameter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Bind {
    Text(String),
    Bool(bool),
    Time(NaiveDateTime),
    Date(NaiveDate),
    BigInt(i64),
}

/// SQL text with its binds, rendered for one backend.
pub(crate) struct Sql {
    backend: Backend,
    pub text: String,
    pub binds: Vec<Bind>,
    /// Where each bind's placeholder is in `text` (start, end), in bind order.
    marks: Vec<(usize, usize)>,
    /// Whether PostgreSQL may keep the statement prepared on the connection
    /// ([`Prepared`]): only statements of a bounded number of shapes.
    pub cacheable: bool,
}

impl Sql {
    pub(crate) fn new(backend: Backend) -> Self {
        Self {
            backend,
            text: String::new(),
            binds: Vec::new(),
            marks: Vec::new(),
            cacheable: false,
        }
    }

    pub(crate) fn push(&mut self, s: &str) -> &mut Self {
        self.text.push_str(s);
        self
    }

    pub(crate) fn bind(&mut self, b: Bind) -> &mut Self {
        self.binds.push(b);
        let start = self.text.len();
        match self.backend {
            Backend::Sqlite => self.text.push('?'),
            Backend::Postgres => {
                self.text.push('$');
                self.text.push_str(&self.binds.len().to_string());
            }
        }
        self.marks.push((start, self.text.len()));
        self
    }

    fn collate(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite => "",
            Backend::Postgres => " COLLATE \"C\"",
        }
    }
}

/// A PostgreSQL [`Sql`] as a Diesel query that the connection prepares once
/// and keeps (keyed by its text) when [`Sql::cacheable`]: `diesel::sql_query`
/// is never kept, so each call was parsed and planned anew. Only statements
/// of a bounded number of shapes are kept (the connection's statement cache
/// has no bound): a single condition, in the default order.
pub(crate) struct Prepared<'a>(pub &'a Sql);

impl diesel::query_builder::QueryId for Prepared<'_> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl diesel::query_builder::Query for Prepared<'_> {
    type SqlType = diesel::sql_types::Untyped;
}

impl<C> diesel::query_dsl::RunQueryDsl<C> for Prepared<'_> {}

impl diesel::query_builder::QueryFragment<diesel::pg::Pg> for Prepared<'_> {
    fn walk_ast<'b>(
        &'b self,
        mut out: diesel::query_builder::AstPass<'_, 'b, diesel::pg::Pg>,
    ) -> diesel::QueryResult<()> {
        use diesel::sql_types as t;
        if !self.0.cacheable {
            out.unsafe_to_cache_prepared();
        }
        // Diesel writes each placeholder itself ($1, $2, … in order), as
        // `Sql::bind` did.
        let mut at = 0;
        for (&(start, end), bind) in self.0.marks.iter().zip(&self.0.binds) {
            out.push_sql(self.0.text.get(at..start).unwrap_or_default());
            match bind {
                Bind::Text(v) => out.push_bind_param::<t::Text, String>(v)?,
                Bind::Bool(v) => out.push_bind_param::<t::Bool, bool>(v)?,
                Bind::Time(v) => out.push_bind_param::<t::Timestamp, NaiveDateTime>(v)?,
                Bind::Date(v) => out.push_bind_param::<t::Date, NaiveDate>(v)?,
                Bind::BigInt(v) => out.push_bind_param::<t::BigInt, i64>(v)?,
            }
            at = end;
        }
        out.push_sql(self.0.text.get(at..).unwrap_or_default());
        Ok(())
    }
}

/// Whether a query's statements come in a bounded number of shapes and are
/// worth keeping prepared: one condition, in the default order.
fn bounded_shape(query: &PersonQuery) -> bool {
    // No filter (the list): left to custom plans. With it kept prepared
    // the PostgreSQL page cost 3.6 -> 7.4 ms of database CPU in one noisy
    // run (cause not isolated: the generic plan for LIMIT/OFFSET, or the
    // fresh statistics).
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

/// `col op value`, two-valued.
fn compare(sql: &mut Sql, col: &str, kind: FieldKind, op: CompareOp, v: &FilterValue) {
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
        sql.collate()
    } else {
        ""
    };
    match op {
        CompareOp::Ne => {
            sql.push("(")
                .push(col)
                .push(" IS NULL OR ")
                .push(col)
                .push(" <> ");
            sql.bind(b).push(")");
        }
        CompareOp::Co => {
            let f = match sql.backend {
                Backend::Sqlite => "instr(",
                Backend::Postgres => "strpos(",
            };
            sql.push("(")
                .push(col)
                .push(" IS NOT NULL AND ")
                .push(f)
                .push(col)
                .push(", ");
            sql.bind(b).push(") > 0)");
        }
        CompareOp::Sw => {
            sql.push("(")
                .push(col)
                .push(" IS NOT NULL AND substr(")
                .push(col)
                .push(", 1, length(");
            sql.bind(b.clone()).push(")) = ");
            sql.bind(b).push(")");
        }
        CompareOp::Ew => {
            sql.push("(")
                .push(col)
                .push(" IS NOT NULL AND length(")
                .push(col)
                .push(") >= length(");
            sql.bind(b.clone())
                .push(") AND substr(")
                .push(col)
                .push(", length(")
                .push(col);
            sql.push(") - length(");
            sql.bind(b.clone()).push(") + 1) = ");
            sql.bind(b).push(")");
        }
        CompareOp::Eq | CompareOp::Gt | CompareOp::Ge | CompareOp::Lt | CompareOp::Le => {
            let o = match op {
                CompareOp::Eq => " = ",
                CompareOp::Gt => " > ",
                CompareOp::Ge => " >= ",
                CompareOp::Lt => " < ",
                _ => " <= ",
            };
            sql.push("(")
                .push(col)
                .push(" IS NOT NULL AND ")
                .push(col)
                .push(collate)
                .push(o);
            sql.bind(b).push(collate).push(")");
        }
    }
}

fn email_sql(sql: &mut Sql, f: &EmailFilter) {
    match f {
        EmailFilter::Compare(field, op, v) => {
            let col = email_column(*field, sql.backend);
            compare(sql, &col, field.kind(), *op, v);
        }
        EmailFilter::Present(field) => {
            let col = email_column(*field, sql.backend);
            sql.push("(").push(&col).push(" IS NOT NULL)");
        }
        EmailFilter::And(a, b) => {
            sql.push("(");
            email_sql(sql, a);
            sql.push(" AND ");
            email_sql(sql, b);
            sql.push(")");
        }
        EmailFilter::Or(a, b) => {
            sql.push("(");
            email_sql(sql, a);
            sql.push(" OR ");
            email_sql(sql, b);
            sql.push(")");
        }
        EmailFilter::Not(a) => {
            sql.push("(NOT ");
            email_sql(sql, a);
            sql.push(")");
        }
    }
}

/// Appends the condition of `f` on the row alias `p`.
pub(crate) fn filter_sql(sql: &mut Sql, organization: &str, f: &PersonFilter) {
    match f {
        PersonFilter::Compare(field, op, v) => {
            let col = person_column(*field, sql.backend);
            compare(sql, &col, field.kind(), *op, v);
        }
        PersonFilter::Present(field) => {
            let col = person_column(*field, sql.backend);
            sql.push("(").push(&col).push(" IS NOT NULL");
            if matches!(field.kind(), FieldKind::Text { .. } | FieldKind::Identifier) {
                sql.push(" AND ").push(&col).push(" <> ''");
            }
            sql.push(")");
        }
        PersonFilter::AnyEmail(e) => {
            // Uncorrelated, so the database can start from the email index
            // (organization_id, value_lower) instead of probing every person.
            sql.push("p.id IN (SELECT e.person_id FROM person_emails e WHERE e.organization_id = ");
            sql.bind(Bind::Text(organization.to_owned()));
            sql.push(" AND ");
            email_sql(sql, e);
            sql.push(")");
        }
        PersonFilter::And(a, b) => {
            sql.push("(");
            filter_sql(sql, organization, a);
            sql.push(" AND ");
            filter_sql(sql, organization, b);
            sql.push(")");
        }
        PersonFilter::Or(a, b) => {
            sql.push("(");
            filter_sql(sql, organization, a);
            sql.push(" OR ");
            filter_sql(sql, organization, b);
            sql.push(")");
        }
        PersonFilter::Not(a) => {
            sql.push("(NOT ");
            filter_sql(sql, organization, a);
            sql.push(")");
        }
    }
}

/// `FROM people p WHERE <org> AND status = 'ACTIVE' [AND <filter>]`.
pub(crate) fn from_where(sql: &mut Sql, organization: &str, query: &PersonQuery) {
    sql.cacheable = bounded_shape(query);
    sql.push(" FROM people p WHERE p.organization_id = ");
    sql.bind(Bind::Text(organization.to_owned()));
    sql.push(" AND p.status = 'ACTIVE'");
    if let Some(f) = &query.filter {
        sql.push(" AND ");
        filter_sql(sql, organization, f);
    }
}

/// `ORDER BY …` (absent values last when ascending), ending with the creation
/// time and id so paging is stable, then `LIMIT` / `OFFSET`.
pub(crate) fn order_and_page(sql: &mut Sql, query: &PersonQuery) {
    sql.push(" ORDER BY ");
    if let Some(field) = query.sort {
        let col = person_column(field, sql.backend);
        let dir = match query.order {
            SortOrder::Ascending => " ASC",
            SortOrder::Descending => " DESC",
        };
        // NULLs last in ascending order, first in descending (as the in-memory store).
        sql.push("(")
            .push(&col)
            .push(" IS NULL)")
            .push(dir)
            .push(", ");
        sql.push(&col);
        if matches!(field.kind(), FieldKind::Text { .. } | FieldKind::Identifier) {
            let c = sql.collate();
            sql.push(c);
        }
        sql.push(dir).push(", ");
    }
    // Ids are lowercase hyphenated UUIDs: every collation orders them alike, so
    // the tie-break needs no COLLATE and the partial index
    // people_active_created_idx serves the default order.
    sql.push("p.created_at ASC, p.id ASC LIMIT ");
    sql.bind(Bind::BigInt(i64::from(query.count)));
    sql.push(" OFFSET ");
    sql.bind(Bind::BigInt(
        i64::try_from(query.start_index.saturating_sub(1)).unwrap_or(i64::MAX),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use equip_domain::person_query::PersonQuery;

    #[test]
    fn values_are_bound_and_placeholders_follow_the_backend() {
        let q = PersonQuery {
            filter: Some(PersonFilter::And(
                Box::new(PersonFilter::Compare(
                    PersonField::UserName,
                    CompareOp::Eq,
                    FilterValue::Text("Ada@X.example".into()),
                )),
                Box::new(PersonFilter::AnyEmail(EmailFilter::Compare(
                    EmailField::Value,
                    CompareOp::Co,
                    FilterValue::Text("'; DROP TABLE people; --".into()),
                ))),
            )),
            ..PersonQuery::default()
        };
        let mut pg = Sql::new(Backend::Postgres);
        from_where(&mut pg, "org", &q);
        assert!(pg.text.contains("$1") && pg.text.contains("$3"));
        assert!(!pg.text.contains("DROP"));
        assert_eq!(pg.binds[1], Bind::Text("ada@x.example".into()));
        let mut lite = Sql::new(Backend::Sqlite);
        from_where(&mut lite, "org", &q);
        assert!(lite.text.contains('?') && !lite.text.contains('$'));
        // Two conditions: not kept prepared (shapes without bound).
        assert!(!pg.cacheable);
    }

    #[test]
    fn equality_keeps_the_column_collation_and_ordering_compares_bytes() {
        let query = |op| PersonQuery {
            filter: Some(PersonFilter::Compare(
                PersonField::UserName,
                op,
                FilterValue::Text("ada@x.example".into()),
            )),
            ..PersonQuery::default()
        };
        let mut eq = Sql::new(Backend::Postgres);
        from_where(&mut eq, "org", &query(CompareOp::Eq));
        // The unique index (organization_id, user_name_lower) is in the
        // database's collation: `COLLATE "C"` here would keep it out.
        assert!(!eq.text.contains("COLLATE"), "{}", eq.text);
        assert!(eq.cacheable);
        let mut gt = Sql::new(Backend::Postgres);
        from_where(&mut gt, "org", &query(CompareOp::Gt));
        assert!(gt.text.contains("COLLATE \"C\""), "{}", gt.text);
        let sorted = PersonQuery {
            sort: Some(PersonField::UserName),
            ..query(CompareOp::Eq)
        };
        let mut s = Sql::new(Backend::Postgres);
        from_where(&mut s, "org", &sorted);
        assert!(!s.cacheable);
    }
}
