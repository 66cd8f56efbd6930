//! The inventory filter as SQL: the conditions after `WHERE l.organization_id
//! = ?` over the `inventory_listing` row alias `l`, with bound values.
//!
//! - Text keys that have a byte-order index on PostgreSQL (`category`,
//!   `sku_id`, `serial_number`) compare with `COLLATE "C"` there, so that the
//!   index serves the comparison.
//! - One value is an equality, several an `IN` list (see
//!   [`Sql::push_any_of`]).
//! - The assigned-email filter is resolved to person ids first
//!   ([`people_with_email`]), so that the planner uses the assignee index.
//! - Search: SQLite answers three characters or more through the trigram
//!   index `inventory_search`, then checks `search_text` as stored; shorter
//!   searches and PostgreSQL use an escaped `LIKE` over `search_text`.

use diesel::prelude::*;

use equip_domain::inventory_query::{AssigneeFilter, InventoryFilter};

use crate::connection::{on_inner, Backend, DbConnection};
use crate::error::DbResult;
use crate::schema::person_emails;
use crate::sql_builder::{byte_order, Sql};

/// Appends the conditions of `f` (each ` AND …`) to `st`.
pub(crate) fn push_filter(
    st: &mut Sql,
    backend: Backend,
    f: &InventoryFilter,
    email_people: &[String],
) {
    // PostgreSQL compares these in byte order ("C"), as their indexes are built,
    // so that the indexes serve the comparisons.
    // Every field is named, so that a new filter does not compile until it is
    // given its SQL here.
    let InventoryFilter {
        person,
        warehouse_id,
        office_id,
        categories,
        deploy_statuses,
        // Answered without SQL (`services::inventory::list_inventory_page`).
        matches_nothing: _,
        sku_ids,
        search,
        updated_from,
        updated_to,
        serial_numbers,
        vendor_skus,
    } = f;
    let keyed = |col: &str| format!("{col}{}", byte_order(backend));
    if !deploy_statuses.is_empty() {
        let statuses: Vec<&str> = deploy_statuses.iter().map(|s| s.as_str()).collect();
        st.push_sql(" AND l.deploy_status").push_any_of(&statuses);
    }
    if !categories.is_empty() {
        st.push_sql(&format!(" AND {}", keyed("l.category")))
            .push_any_of(categories);
    }
    if !sku_ids.is_empty() {
        let ids: Vec<String> = sku_ids.iter().map(ToString::to_string).collect();
        st.push_sql(&format!(" AND {}", keyed("l.sku_id")))
            .push_any_of(&ids);
    }
    if !serial_numbers.is_empty() {
        st.push_sql(&format!(" AND {}", keyed("l.serial_number")))
            .push_any_of(serial_numbers);
    }
    if !vendor_skus.is_empty() {
        st.push_sql(" AND l.vendor_sku").push_any_of(vendor_skus);
    }
    if let Some(from) = *updated_from {
        st.push_sql(" AND l.updated_at >= ").push_bind(from);
    }
    if let Some(to) = *updated_to {
        st.push_sql(" AND l.updated_at <= ").push_bind(to);
    }
    match person {
        Some(AssigneeFilter::Person(id)) => {
            st.push_sql(" AND l.assignee_type = 'PERSON' AND l.assignee_id = ")
                .push_bind(id.to_string());
        }
        Some(AssigneeFilter::Email(_)) => {
            // Resolved to person ids beforehand (see `people_with_email`), so
            // that the planner uses the assignee index.
            st.push_sql(" AND l.assignee_type = 'PERSON' AND l.assignee_id IN ")
                .push_text_list(email_people.iter().map(String::as_str));
        }
        None => {}
    }
    if let Some(id) = *warehouse_id {
        st.push_sql(" AND l.assignee_type = 'WAREHOUSE' AND l.assignee_id = ")
            .push_bind(id.to_string());
    }
    if let Some(id) = *office_id {
        st.push_sql(" AND l.assignee_type = 'OFFICE' AND l.assignee_id = ")
            .push_bind(id.to_string());
    }
    if let Some(search) = search {
        match backend {
            Backend::Sqlite if search.chars().count() >= 3 => {
                // The trigram index answers a quoted phrase as a substring
                // match, case-insensitively by its own Unicode folding, which
                // also equates letters that `search_text`'s folding keeps apart
                // (`ſ` and `s`, the Kelvin sign and `k`): its candidates are
                // checked against `search_text` as stored.
                st.push_sql(
                    " AND l.row_id IN (SELECT rowid FROM inventory_search WHERE inventory_search MATCH ",
                )
                .push_bind(format!("\"{}\"", search.replace('"', "\"\"")))
                .push_sql(") AND instr(l.search_text, ")
                .push_bind(search.as_str())
                .push_sql(") > 0");
            }
            _ => {
                let escaped = search
                    .replace('\\', "\\\\")
                    .replace('%', "\\%")
                    .replace('_', "\\_");
                st.push_sql(" AND l.search_text LIKE ")
                    .push_bind(format!("%{escaped}%"))
                    .push_sql(" ESCAPE '\\'");
            }
        }
    }
}

/// The people of the organization with `email` (case-insensitive) among their
/// addresses.
pub(crate) fn people_with_email(
    c: &mut DbConnection,
    org: &str,
    email: &str,
) -> DbResult<Vec<String>> {
    // On the backend's own connection, so that it is prepared once per
    // connection (see `find_api_key_by_prefix`).
    let mut ids: Vec<String> = on_inner!(c, |c| person_emails::table
        .filter(person_emails::organization_id.eq(org))
        .filter(person_emails::value_lower.eq(equip_domain::text::identifier_key(email)))
        .select(person_emails::person_id)
        .load(c))?;
    ids.sort();
    ids.dedup();
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use equip_domain::inventory_query::{InventoryQuery, RawInventoryQuery};

    use super::*;
    use crate::sql_builder::Bind;

    fn filter(raw: RawInventoryQuery) -> InventoryFilter {
        InventoryQuery::parse(&raw).unwrap().filter().clone()
    }

    fn rendered(f: &InventoryFilter, backend: Backend, email_people: &[String]) -> String {
        let mut st = Sql::default();
        push_filter(&mut st, backend, f, email_people);
        st.rendered(backend)
    }

    #[test]
    fn statuses_and_categories() {
        let f = filter(RawInventoryQuery {
            deploy_statuses: vec!["DEPLOYED,AVAILABLE".into()],
            categories: vec!["LAPTOP".into()],
            ..RawInventoryQuery::default()
        });
        assert_eq!(
            rendered(&f, Backend::Sqlite, &[]),
            " AND l.deploy_status IN (?, ?) AND l.category = ? \
             -- binds: [\"DEPLOYED\", \"AVAILABLE\", \"laptop\"]"
        );
        assert_eq!(
            rendered(&f, Backend::Postgres, &[]),
            " AND l.deploy_status IN ($1, $2) AND l.category COLLATE \"C\" = $3 \
             -- binds: [\"DEPLOYED\", \"AVAILABLE\", \"laptop\"]"
        );
    }

    #[test]
    fn search_uses_the_trigram_index_on_sqlite_and_like_elsewhere() {
        let f = filter(RawInventoryQuery {
            search_string: Some("Mac_Book%".into()),
            ..RawInventoryQuery::default()
        });
        assert_eq!(
            rendered(&f, Backend::Sqlite, &[]),
            " AND l.row_id IN (SELECT rowid FROM inventory_search WHERE inventory_search \
             MATCH ?) AND instr(l.search_text, ?) > 0 \
             -- binds: [\"\\\"mac_book%\\\"\", \"mac_book%\"]"
        );
        assert_eq!(
            rendered(&f, Backend::Postgres, &[]),
            " AND l.search_text LIKE $1 ESCAPE '\\' -- binds: [\"%mac\\\\_book\\\\%%\"]"
        );
        // Too short for trigrams: LIKE on SQLite too.
        let short = filter(RawInventoryQuery {
            search_string: Some("ab".into()),
            ..RawInventoryQuery::default()
        });
        assert_eq!(
            rendered(&short, Backend::Sqlite, &[]),
            " AND l.search_text LIKE ? ESCAPE '\\' -- binds: [\"%ab%\"]"
        );
    }

    #[test]
    fn person_and_email_filters() {
        let person = "6f1c1f8e-2f5b-4a51-9d4e-3c1a2b3c4d5e";
        let f = filter(RawInventoryQuery {
            person_id: Some(person.into()),
            ..RawInventoryQuery::default()
        });
        assert_eq!(
            rendered(&f, Backend::Postgres, &[]),
            format!(
                " AND l.assignee_type = 'PERSON' AND l.assignee_id = $1 -- binds: [\"{person}\"]"
            )
        );
        let by_email = filter(RawInventoryQuery {
            assigned_email: Some("Ada@Example.com".into()),
            ..RawInventoryQuery::default()
        });
        let people = vec!["a".to_owned(), "b".to_owned()];
        let mut st = Sql::default();
        push_filter(&mut st, Backend::Sqlite, &by_email, &people);
        assert_eq!(
            st.text(Backend::Sqlite),
            " AND l.assignee_type = 'PERSON' AND l.assignee_id IN (?, ?)"
        );
        assert_eq!(
            st.binds(),
            vec![Bind::Text("a".into()), Bind::Text("b".into())]
        );
    }

    #[test]
    fn a_long_list_of_values_is_not_kept_prepared() {
        let skus: Vec<String> = (0..9)
            .map(|i| format!("00000000-0000-4000-8000-00000000000{i}"))
            .collect();
        let f = filter(RawInventoryQuery {
            sku_ids: vec![skus.join(",")],
            ..RawInventoryQuery::default()
        });
        let mut st = Sql::default();
        push_filter(&mut st, Backend::Postgres, &f, &[]);
        assert!(st
            .text(Backend::Postgres)
            .starts_with(" AND l.sku_id COLLATE \"C\" IN ($1, "));
        assert!(!st.is_cacheable());
    }
}
