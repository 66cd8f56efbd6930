//! Counting the items that match an inventory filter: from the
//! trigger-maintained `inventory_counts` (a few rows per organization) when
//! only statuses and categories filter, else `COUNT(*)` over the listing with
//! the filter.

use equip_domain::inventory_query::InventoryFilter;

use crate::connection::{Backend, DbConnection};
use crate::error::DbResult;
use crate::sql_builder::Sql;

use super::filter::push_filter;
use crate::sql_builder::CountRow;

/// How many items match `filter`.
pub(super) fn count(
    c: &mut DbConnection,
    org: &str,
    filter: &InventoryFilter,
    email_people: &[String],
) -> DbResult<u64> {
    let st = count_statement(c.backend(), org, filter, email_people);
    let n = st.load::<CountRow>(c)?.first().map_or(0, |r| r.n);
    Ok(u64::try_from(n).unwrap_or(0))
}

/// The statement that counts the items matching `filter` (one row, `n`).
pub(super) fn count_statement(
    backend: Backend,
    org: &str,
    filter: &InventoryFilter,
    email_people: &[String],
) -> Sql {
    let mut st = Sql::default();
    if filter.is_countable_by_status_and_category() {
        st.push_sql(
            "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) AS n FROM inventory_counts l \
             WHERE l.organization_id = ",
        )
        .push_bind(org);
        if !filter.deploy_statuses.is_empty() {
            st.push_sql(" AND l.deploy_status IN ")
                .push_text_list(filter.deploy_statuses.iter().map(|s| s.as_str()));
        }
        if !filter.categories.is_empty() {
            st.push_sql(" AND l.category IN ")
                .push_text_list(filter.categories.iter().map(String::as_str));
        }
    } else {
        st.push_sql("SELECT COUNT(*) AS n FROM inventory_listing l WHERE l.organization_id = ")
            .push_bind(org);
        push_filter(&mut st, backend, filter, email_people);
    }
    st
}

#[cfg(test)]
mod tests {
    use equip_domain::inventory_query::{InventoryQuery, RawInventoryQuery};

    use super::*;

    fn filter(raw: RawInventoryQuery) -> InventoryFilter {
        InventoryQuery::parse(&raw).unwrap().filter().clone()
    }

    #[test]
    fn statuses_and_categories_count_from_the_maintained_counts() {
        let f = filter(RawInventoryQuery {
            deploy_statuses: vec!["DEPLOYED".into()],
            categories: vec!["laptop,phone".into()],
            ..RawInventoryQuery::default()
        });
        assert_eq!(
            count_statement(Backend::Postgres, "o", &f, &[]).rendered(Backend::Postgres),
            "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) AS n FROM inventory_counts l \
             WHERE l.organization_id = $1 AND l.deploy_status IN ($2) \
             AND l.category IN ($3, $4) -- binds: [\"o\", \"DEPLOYED\", \"laptop\", \"phone\"]"
        );
    }

    #[test]
    fn other_filters_count_the_listing() {
        let f = filter(RawInventoryQuery {
            vendor_skus: vec!["V-1".into()],
            ..RawInventoryQuery::default()
        });
        assert_eq!(
            count_statement(Backend::Sqlite, "o", &f, &[]).rendered(Backend::Sqlite),
            "SELECT COUNT(*) AS n FROM inventory_listing l WHERE l.organization_id = ? \
             AND l.vendor_sku = ? -- binds: [\"o\", \"v-1\"]"
        );
    }
}
