//! The exact SQL each backend gets for representative listing pages.

use chrono::DateTime;
use equip_domain::inventory_query::{InventoryQuery, RawInventoryQuery};

use super::{page_statement, PageSql, Start};
use crate::connection::Backend;
use crate::listing::anchors::Anchor;
use crate::listing::filter::push_filter;
use crate::listing::order::order_by;
use crate::sql_builder::Sql;

/// The page statement of `raw`, as `listing::page` writes it.
fn page(raw: RawInventoryQuery, backend: Backend, start: Start<'_>) -> (String, bool) {
    let q = InventoryQuery::parse(&raw).unwrap();
    let email_people = vec!["p1".to_owned()];
    let selective = backend == Backend::Sqlite && q.filter().person.is_some();
    let order = order_by(backend, q.sort(), q.direction(), selective);
    let mut filter = Sql::default();
    push_filter(&mut filter, backend, q.filter(), &email_people);
    let (st, lead) = page_statement(
        &q,
        &PageSql {
            backend,
            org: "org",
            filter: &filter,
            order: &order,
            email_people: &email_people,
            start,
        },
    );
    (st.rendered(backend), lead)
}

fn both(raw: &RawInventoryQuery) -> [String; 2] {
    [Backend::Sqlite, Backend::Postgres].map(|b| page(raw.clone(), b, Start::Offset).0)
}

#[test]
fn default_page() {
    let [lite, pg] = both(&RawInventoryQuery::default());
    assert_eq!(
        lite,
        "SELECT l.item_id, l.item_json, p.k, (SELECT CAST(COALESCE(SUM(n), 0) \
        AS BIGINT) AS n FROM inventory_counts l WHERE l.organization_id = ?) \
        AS total FROM inventory_listing l JOIN (SELECT l.row_id, NULL AS k \
        FROM inventory_listing l WHERE l.organization_id = ? ORDER BY \
        l.created_at DESC, l.item_id DESC LIMIT ? OFFSET ?) p ON l.row_id = \
        p.row_id ORDER BY l.created_at DESC, l.item_id DESC -- binds: \
        [\"org\", \"org\", 100, 0]"
    );
    assert_eq!(
        pg,
        "SELECT l.item_id, l.item_json, p.k, (SELECT CAST(COALESCE(SUM(n), 0) \
        AS BIGINT) AS n FROM inventory_counts l WHERE l.organization_id = $1) \
        AS total FROM inventory_listing l JOIN (SELECT l.ctid, CAST(NULL AS \
        TIMESTAMP) AS k FROM inventory_listing l WHERE l.organization_id = $2 \
        ORDER BY l.created_at DESC, l.item_id COLLATE \"C\" DESC LIMIT $3 \
        OFFSET $4) p ON l.ctid = p.ctid ORDER BY l.created_at DESC, l.item_id \
        COLLATE \"C\" DESC -- binds: [\"org\", \"org\", 100, 0]"
    );
}

#[test]
fn status_and_category_filter_counts_in_the_same_statement() {
    let [lite, pg] = both(&RawInventoryQuery {
        deploy_statuses: vec!["DEPLOYED".into()],
        categories: vec!["LAPTOP".into()],
        ..RawInventoryQuery::default()
    });
    assert_eq!(
        lite,
        "SELECT l.item_id, l.item_json, p.k, (SELECT CAST(COALESCE(SUM(n), 0) \
        AS BIGINT) AS n FROM inventory_counts l WHERE l.organization_id = ? \
        AND l.deploy_status IN (?) AND l.category IN (?)) AS total FROM \
        inventory_listing l JOIN (SELECT l.row_id, NULL AS k FROM \
        inventory_listing l WHERE l.organization_id = ? AND l.deploy_status = \
        ? AND l.category = ? ORDER BY l.created_at DESC, l.item_id DESC LIMIT \
        ? OFFSET ?) p ON l.row_id = p.row_id ORDER BY l.created_at DESC, \
        l.item_id DESC -- binds: [\"org\", \"DEPLOYED\", \"laptop\", \"org\", \
        \"DEPLOYED\", \"laptop\", 100, 0]"
    );
    assert_eq!(
        pg,
        "SELECT l.item_id, l.item_json, p.k, (SELECT CAST(COALESCE(SUM(n), 0) \
        AS BIGINT) AS n FROM inventory_counts l WHERE l.organization_id = $1 \
        AND l.deploy_status IN ($2) AND l.category IN ($3)) AS total FROM \
        inventory_listing l JOIN (SELECT l.ctid, CAST(NULL AS TIMESTAMP) AS k \
        FROM inventory_listing l WHERE l.organization_id = $4 AND \
        l.deploy_status = $5 AND l.category COLLATE \"C\" = $6 ORDER BY \
        l.created_at DESC, l.item_id COLLATE \"C\" DESC LIMIT $7 OFFSET $8) p \
        ON l.ctid = p.ctid ORDER BY l.created_at DESC, l.item_id COLLATE \"C\" \
        DESC -- binds: [\"org\", \"DEPLOYED\", \"laptop\", \"org\", \
        \"DEPLOYED\", \"laptop\", 100, 0]"
    );
}

#[test]
fn search() {
    let [lite, pg] = both(&RawInventoryQuery {
        search_string: Some("macbook".into()),
        page: Some("3".into()),
        ..RawInventoryQuery::default()
    });
    assert_eq!(
        lite,
        "SELECT l.item_id, l.item_json, p.k, CAST(NULL AS BIGINT) AS total FROM \
        inventory_listing l JOIN (SELECT l.row_id, NULL AS k FROM \
        inventory_listing l WHERE l.organization_id = ? AND l.row_id IN \
        (SELECT rowid FROM inventory_search WHERE inventory_search MATCH ?) \
        AND instr(l.search_text, ?) > 0 ORDER BY l.created_at DESC, l.item_id \
        DESC LIMIT ? OFFSET ?) p ON l.row_id = p.row_id ORDER BY l.created_at \
        DESC, l.item_id DESC -- binds: [\"org\", \"\\\"macbook\\\"\", \
        \"macbook\", 100, 200]"
    );
    assert_eq!(
        pg,
        "SELECT l.item_id, l.item_json, p.k, CAST(NULL AS BIGINT) AS total FROM \
        inventory_listing l JOIN (SELECT l.item_id, CAST(NULL AS TIMESTAMP) AS \
        k FROM inventory_listing l WHERE l.organization_id = $1 AND \
        l.search_text LIKE $2 ESCAPE '\\' ORDER BY l.created_at DESC, \
        l.item_id COLLATE \"C\" DESC LIMIT $3 OFFSET $4) p ON l.item_id = \
        p.item_id ORDER BY l.created_at DESC, l.item_id COLLATE \"C\" DESC -- \
        binds: [\"org\", \"%macbook%\", 100, 200]"
    );
}

#[test]
fn person_filter() {
    let [lite, pg] = both(&RawInventoryQuery {
        person_id: Some("6f1c1f8e-2f5b-4a51-9d4e-3c1a2b3c4d5e".into()),
        ..RawInventoryQuery::default()
    });
    assert_eq!(
        lite,
        "SELECT l.item_id, l.item_json, p.k, CAST(NULL AS BIGINT) AS total FROM \
        inventory_listing l JOIN (SELECT l.row_id, NULL AS k FROM \
        inventory_listing l WHERE l.organization_id = ? AND l.assignee_type = \
        'PERSON' AND l.assignee_id = ? ORDER BY +l.created_at DESC, +l.item_id \
        DESC LIMIT ? OFFSET ?) p ON l.row_id = p.row_id ORDER BY +l.created_at \
        DESC, +l.item_id DESC -- binds: [\"org\", \
        \"6f1c1f8e-2f5b-4a51-9d4e-3c1a2b3c4d5e\", 100, 0]"
    );
    assert_eq!(
        pg,
        "SELECT l.item_id, l.item_json, p.k, CAST(NULL AS BIGINT) AS total FROM \
        inventory_listing l JOIN (SELECT l.ctid, CAST(NULL AS TIMESTAMP) AS k \
        FROM inventory_listing l WHERE l.organization_id = $1 AND \
        l.assignee_type = 'PERSON' AND l.assignee_id = $2 ORDER BY \
        l.created_at DESC, l.item_id COLLATE \"C\" DESC LIMIT $3 OFFSET $4) p \
        ON l.ctid = p.ctid ORDER BY l.created_at DESC, l.item_id COLLATE \"C\" \
        DESC -- binds: [\"org\", \"6f1c1f8e-2f5b-4a51-9d4e-3c1a2b3c4d5e\", \
        100, 0]"
    );
}

#[test]
fn sort_by_product() {
    let [lite, pg] = both(&RawInventoryQuery {
        sort_by: Some("product".into()),
        sort_direction: Some("DESC".into()),
        ..RawInventoryQuery::default()
    });
    assert_eq!(
        lite,
        "SELECT l.item_id, l.item_json, p.k, (SELECT CAST(COALESCE(SUM(n), 0) \
        AS BIGINT) AS n FROM inventory_counts l WHERE l.organization_id = ?) \
        AS total FROM inventory_listing l JOIN (SELECT l.row_id, NULL AS k \
        FROM inventory_listing l WHERE l.organization_id = ? ORDER BY \
        l.product DESC, l.item_id DESC LIMIT ? OFFSET ?) p ON l.row_id = \
        p.row_id ORDER BY l.product DESC, l.item_id DESC -- binds: [\"org\", \
        \"org\", 100, 0]"
    );
    assert_eq!(
        pg,
        "SELECT l.item_id, l.item_json, p.k, (SELECT CAST(COALESCE(SUM(n), 0) \
        AS BIGINT) AS n FROM inventory_counts l WHERE l.organization_id = $1) \
        AS total FROM inventory_listing l JOIN (SELECT l.ctid, CAST(NULL AS \
        TIMESTAMP) AS k FROM inventory_listing l WHERE l.organization_id = $2 \
        ORDER BY l.product COLLATE \"C\" DESC, l.item_id COLLATE \"C\" DESC \
        LIMIT $3 OFFSET $4) p ON l.ctid = p.ctid ORDER BY l.product COLLATE \
        \"C\" DESC, l.item_id COLLATE \"C\" DESC -- binds: [\"org\", \"org\", \
        100, 0]"
    );
}

#[test]
fn deep_page_from_a_remembered_position() {
    let raw = RawInventoryQuery {
        page: Some("21".into()),
        size: Some("100".into()),
        ..RawInventoryQuery::default()
    };
    let anchor = Anchor {
        version: 3,
        key: DateTime::from_timestamp(1_800_000_000, 0)
            .unwrap()
            .naive_utc(),
        item_id: "i-1999".into(),
    };
    let column = "l.created_at";
    // At the page's own offset: no row before the page is needed.
    let at_page = Start::Deep {
        at: Some((2_000, &anchor)),
        column,
    };
    let (lite, lead) = page(raw.clone(), Backend::Sqlite, at_page);
    assert!(!lead);
    assert_eq!(
        lite,
        "SELECT l.item_id, l.item_json, p.k, (SELECT CAST(COALESCE(SUM(n), 0) \
        AS BIGINT) AS n FROM inventory_counts l WHERE l.organization_id = ?) \
        AS total FROM inventory_listing l JOIN (SELECT l.row_id, l.created_at \
        AS k FROM inventory_listing l WHERE l.organization_id = ? AND \
        (l.created_at, l.item_id) < (?, ?) ORDER BY l.created_at DESC, \
        l.item_id DESC LIMIT ? OFFSET ?) p ON l.row_id = p.row_id ORDER BY \
        l.created_at DESC, l.item_id DESC -- binds: [\"org\", \"org\", \
        2027-01-15T08:00:00, \"i-1999\", 100, 0]"
    );
    let (pg, _) = page(raw.clone(), Backend::Postgres, at_page);
    assert_eq!(
        pg,
        "SELECT l.item_id, l.item_json, p.k, (SELECT CAST(COALESCE(SUM(n), 0) \
        AS BIGINT) AS n FROM inventory_counts l WHERE l.organization_id = $1) \
        AS total FROM inventory_listing l JOIN (SELECT l.ctid, l.created_at AS \
        k FROM inventory_listing l WHERE l.organization_id = $2 AND \
        (l.created_at, l.item_id COLLATE \"C\") < ($3, $4) ORDER BY \
        l.created_at DESC, l.item_id COLLATE \"C\" DESC LIMIT $5 OFFSET $6) p \
        ON l.ctid = p.ctid ORDER BY l.created_at DESC, l.item_id COLLATE \"C\" \
        DESC -- binds: [\"org\", \"org\", 2027-01-15T08:00:00, \"i-1999\", \
        100, 0]"
    );
    // From an earlier position: skip to the row before the page.
    let earlier = Start::Deep {
        at: Some((1_000, &anchor)),
        column,
    };
    let (pg, lead) = page(raw.clone(), Backend::Postgres, earlier);
    assert!(lead);
    assert_eq!(
        pg,
        "SELECT l.item_id, l.item_json, p.k, (SELECT CAST(COALESCE(SUM(n), 0) \
        AS BIGINT) AS n FROM inventory_counts l WHERE l.organization_id = $1) \
        AS total FROM inventory_listing l JOIN (SELECT l.ctid, l.created_at AS \
        k FROM inventory_listing l WHERE l.organization_id = $2 AND \
        (l.created_at, l.item_id COLLATE \"C\") < ($3, $4) ORDER BY \
        l.created_at DESC, l.item_id COLLATE \"C\" DESC LIMIT $5 OFFSET $6) p \
        ON l.ctid = p.ctid ORDER BY l.created_at DESC, l.item_id COLLATE \"C\" \
        DESC -- binds: [\"org\", \"org\", 2027-01-15T08:00:00, \"i-1999\", \
        101, 999]"
    );
    // Nothing remembered yet: walk, and fetch the row before the page.
    let fresh = Start::Deep { at: None, column };
    let (pg, lead) = page(raw, Backend::Postgres, fresh);
    assert!(lead);
    assert_eq!(
        pg,
        "SELECT l.item_id, l.item_json, p.k, (SELECT CAST(COALESCE(SUM(n), 0) \
        AS BIGINT) AS n FROM inventory_counts l WHERE l.organization_id = $1) \
        AS total FROM inventory_listing l JOIN (SELECT l.item_id, l.created_at \
        AS k FROM inventory_listing l WHERE l.organization_id = $2 ORDER BY \
        l.created_at DESC, l.item_id COLLATE \"C\" DESC LIMIT $3 OFFSET $4) p \
        ON l.item_id = p.item_id ORDER BY l.created_at DESC, l.item_id COLLATE \
        \"C\" DESC -- binds: [\"org\", \"org\", 101, 1999]"
    );
}
