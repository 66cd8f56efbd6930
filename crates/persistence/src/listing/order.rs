//! The inventory order as SQL: `ORDER BY` over the `inventory_listing` row
//! alias `l` for a sort key and direction, ties broken by item id.
//!
//! Text keys sort in byte order on both backends (`COLLATE "C"` on
//! PostgreSQL, whose sort indexes are built so; SQLite's default binary
//! collation). When the filter is selective (a person's items), SQLite's
//! order columns are written `+col`, which keeps them out of index
//! consideration so the planner stays on the filter's index.

use equip_domain::inventory_query::{SortDirection, SortKey};

use crate::connection::Backend;
use crate::sql_builder::byte_order;

/// `ORDER BY` for a sort key and direction; ties broken by id.
pub(crate) fn order_by(
    backend: Backend,
    key: SortKey,
    direction: SortDirection,
    unindexed: bool,
) -> String {
    let text = |col: &str| match backend {
        // `+col` keeps SQLite from choosing a text index for the order where
        // a filter's index is the better start.
        Backend::Sqlite if unindexed => format!("+{col}"),
        _ => format!("{col}{}", byte_order(backend)),
    };
    // Non-text columns: no collation.
    let plain = |col: &str| match backend {
        Backend::Sqlite if unindexed => format!("+{col}"),
        _ => col.to_owned(),
    };
    let columns: Vec<String> = match key {
        SortKey::Product => vec![text("l.product")],
        SortKey::SkuId => vec![text("l.sku_id")],
        SortKey::CreatedAt => vec![plain("l.created_at")],
        SortKey::UpdatedAt => vec![plain("l.updated_at")],
        SortKey::SerialNumber => vec![text("l.serial_number")],
        SortKey::DeployStatus => vec![text("l.deploy_status")],
        SortKey::DeployReason => vec![text("l.deploy_reason")],
        SortKey::Assignee => vec![text("l.assignee")],
        SortKey::Condition => vec![plain("l.condition_rank")],
        SortKey::RenewalDate => vec![text("l.renewal_date")],
        SortKey::Category => vec![text("l.category"), text("l.product")],
        SortKey::SuppliedBy => vec![text("l.supplied_by")],
    };
    let dir = match direction {
        SortDirection::Asc => "ASC",
        SortDirection::Desc => "DESC",
    };
    let mut out = String::from(" ORDER BY ");
    for col in columns.iter().chain(std::iter::once(&text("l.item_id"))) {
        out.push_str(col);
        out.push(' ');
        out.push_str(dir);
        out.push_str(", ");
    }
    out.truncate(out.len() - 2);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_orders_have_no_collation() {
        assert_eq!(
            order_by(
                Backend::Postgres,
                SortKey::CreatedAt,
                SortDirection::Desc,
                false
            ),
            " ORDER BY l.created_at DESC, l.item_id COLLATE \"C\" DESC"
        );
        assert_eq!(
            order_by(
                Backend::Sqlite,
                SortKey::CreatedAt,
                SortDirection::Asc,
                false
            ),
            " ORDER BY l.created_at ASC, l.item_id ASC"
        );
    }

    #[test]
    fn category_sorts_by_product_within() {
        assert_eq!(
            order_by(
                Backend::Postgres,
                SortKey::Category,
                SortDirection::Asc,
                false
            ),
            " ORDER BY l.category COLLATE \"C\" ASC, l.product COLLATE \"C\" ASC, \
             l.item_id COLLATE \"C\" ASC"
        );
    }

    #[test]
    fn selective_filters_keep_sqlite_off_the_order_index() {
        assert_eq!(
            order_by(
                Backend::Sqlite,
                SortKey::Condition,
                SortDirection::Desc,
                true
            ),
            " ORDER BY +l.condition_rank DESC, +l.item_id DESC"
        );
        // PostgreSQL plans with real statistics: unchanged.
        assert_eq!(
            order_by(
                Backend::Postgres,
                SortKey::Condition,
                SortDirection::Desc,
                true
            ),
            " ORDER BY l.condition_rank DESC, l.item_id COLLATE \"C\" DESC"
        );
    }
}
