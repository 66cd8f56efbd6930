//! The domain's [`PersonFilter`] and sort order as SQL over `people` and
//! `person_emails`: the people's leaves of the one filter walk
//! ([`crate::filter_sql`], which says how conditions and `and` / `or` /
//! `not` are written).
//!
//! - Case-insensitive fields compare folded columns (`user_name_lower`,
//!   `value_lower`, or the Unicode `LOWER(col)` for names, `equip_lower` on
//!   SQLite) with the folded value.
//! - `present` on a text field is also "not empty".
//! - An email condition is `p.id IN (SELECT person_id FROM person_emails …)`
//!   over one address at a time.

use equip_domain::person_query::{
    EmailField, PersonField, PersonFilter, PersonLeaf, PersonQuery, ProfileText,
};

use equip_domain::person::directory::DirectoryQuery;

use crate::connection::{fold_function, Backend};
use crate::filter_sql::{push_condition, push_filter, push_order_and_page, Present};
use crate::sql_builder::{byte_order, Bind, Sql};

/// Whether a query's statements come in a bounded number of shapes and are
/// worth keeping prepared: one condition, in the default order.
fn bounded_shape(query: &PersonQuery) -> bool {
    // No filter (the list): left to custom plans, which measured cheaper
    // than a kept generic plan for its LIMIT/OFFSET (docs/performance.md,
    // "Prepared statements").
    let leaf = match query.filter.as_ref().and_then(|f| f.as_leaf()) {
        None => false,
        Some(PersonLeaf::Field(_)) => true,
        Some(PersonLeaf::AnyEmail(e)) => e.as_leaf().is_some(),
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
        PersonField::Profile(t) => fold(profile_column(t)),
    }
}

/// The column of a profile text.
const fn profile_column(t: ProfileText) -> &'static str {
    match t {
        ProfileText::FormattedName => "p.formatted_name",
        ProfileText::MiddleName => "p.middle_name",
        ProfileText::HonorificPrefix => "p.honorific_prefix",
        ProfileText::HonorificSuffix => "p.honorific_suffix",
        ProfileText::NickName => "p.nick_name",
        ProfileText::Title => "p.title",
        ProfileText::UserType => "p.user_type",
        ProfileText::PreferredLanguage => "p.preferred_language",
        ProfileText::Locale => "p.locale",
        ProfileText::Timezone => "p.timezone",
        ProfileText::ProfileUrl => "p.profile_url",
    }
}

fn email_column(f: EmailField, backend: Backend) -> String {
    match f {
        EmailField::Value => "e.value_lower".to_owned(),
        EmailField::Kind => format!("{}(e.kind)", fold_function(backend)),
        EmailField::Primary => "e.is_primary".to_owned(),
    }
}

/// Appends the condition of `f` on the row alias `p`.
fn filter_sql(sql: &mut Sql, backend: Backend, organization: &str, f: &PersonFilter) {
    push_filter(sql, f, &mut |sql, leaf| match leaf {
        PersonLeaf::Field(c) => {
            push_condition(
                sql,
                backend,
                c,
                |f| person_column(f, backend),
                Present::NotBlank,
            );
        }
        PersonLeaf::AnyEmail(e) => {
            // Uncorrelated, so the database can start from the email index
            // (organization_id, value_lower) instead of probing every person.
            sql.push_sql(
                "p.id IN (SELECT e.person_id FROM person_emails e WHERE e.organization_id = ",
            );
            sql.push_bind(organization);
            sql.push_sql(" AND ");
            push_filter(sql, e, &mut |sql, c| {
                push_condition(
                    sql,
                    backend,
                    c,
                    |f| email_column(f, backend),
                    Present::NotNull,
                );
            });
            sql.push_sql(")");
        }
    });
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

/// `ORDER BY …` (the sort field, then the creation time and id, so paging is
/// stable; [`push_order_and_page`]), then `LIMIT` / `OFFSET`. The partial
/// index `people_active_created_idx` serves the default order.
pub(crate) fn order_and_page(sql: &mut Sql, backend: Backend, query: &PersonQuery) {
    let sort = query
        .sort
        .map(|field| (person_column(field, backend), field.kind()));
    push_order_and_page(
        sql,
        backend,
        sort.as_ref()
            .map(|(col, kind)| (col.as_str(), *kind, query.order)),
        "p",
        query.count,
        query.start_index,
    );
}

/// The people directory (`GET /api/v1/people`): `FROM people p WHERE
/// <org> [AND status = …] [AND <search>]`, every status unless the query
/// names one; the search is [`DirectoryQuery::search_filter`] as SCIM's
/// filters are written.
pub(crate) fn directory_from_where(
    sql: &mut Sql,
    backend: Backend,
    organization: &str,
    query: &DirectoryQuery,
) {
    sql.uncached();
    sql.push_sql(" FROM people p WHERE p.organization_id = ");
    sql.push_bind(organization);
    if let Some(status) = query.status {
        sql.push_sql(" AND p.status = ");
        sql.push_bind(status.as_str());
    }
    if let Some(f) = query.search_filter() {
        sql.push_sql(" AND ");
        filter_sql(sql, backend, organization, &f);
    }
}

/// The directory's order (`equip_domain::person::directory::directory_order`:
/// family name, then given name, folded, absent last, then id, all in byte
/// order), then `LIMIT` / `OFFSET`.
pub(crate) fn directory_order_and_page(sql: &mut Sql, backend: Backend, query: &DirectoryQuery) {
    let bytes = byte_order(backend);
    sql.push_sql(" ORDER BY ");
    for field in [PersonField::FamilyName, PersonField::GivenName] {
        let col = person_column(field, backend);
        sql.push_sql("(")
            .push_sql(&col)
            .push_sql(" IS NULL) ASC, ")
            .push_sql(&col)
            .push_sql(bytes)
            .push_sql(" ASC, ");
    }
    sql.push_sql("p.id").push_sql(bytes).push_sql(" ASC LIMIT ");
    sql.push_bind(i64::from(query.size()));
    sql.push_sql(" OFFSET ");
    sql.push_bind(Bind::BigInt(
        i64::try_from(query.offset()).unwrap_or(i64::MAX),
    ));
}

#[cfg(test)]
mod tests;
