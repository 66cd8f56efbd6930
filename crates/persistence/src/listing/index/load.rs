//! What a listing index reads from the database: an organization's listing
//! rows (all of them, in chunks by item id, or those written after a
//! version), and the pre-rendered JSON of a page's items.

use chrono::NaiveDateTime;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Nullable, Text, Timestamp};

use equip_domain::ids::InventoryItemId;
use equip_domain::inventory_query::{ListedBody, ListedItem};

use crate::connection::{Backend, DbConnection};
use crate::error::{DbError, DbResult};
use crate::sql_builder::{byte_order, Sql};

use super::columns::SourceRow;

/// Rows read per statement while an index is built.
pub(super) const CHUNK: i64 = 20_000;

const COLUMNS: &str = "SELECT item_id, created_at, updated_at, deploy_status, deploy_reason, \
     condition_rank, serial_number, sku_id, product, category, vendor_sku, assignee_type, \
     assignee_id, assignee, renewal_date, supplied_by, search_text \
     FROM inventory_listing WHERE organization_id = ";

#[derive(QueryableByName)]
struct Row {
    #[diesel(sql_type = Text)]
    item_id: String,
    #[diesel(sql_type = Timestamp)]
    created_at: NaiveDateTime,
    #[diesel(sql_type = Timestamp)]
    updated_at: NaiveDateTime,
    #[diesel(sql_type = Text)]
    deploy_status: String,
    #[diesel(sql_type = Text)]
    deploy_reason: String,
    #[diesel(sql_type = Integer)]
    condition_rank: i32,
    #[diesel(sql_type = Text)]
    serial_number: String,
    #[diesel(sql_type = Text)]
    sku_id: String,
    #[diesel(sql_type = Text)]
    product: String,
    #[diesel(sql_type = Text)]
    category: String,
    #[diesel(sql_type = Text)]
    vendor_sku: String,
    #[diesel(sql_type = Text)]
    assignee_type: String,
    #[diesel(sql_type = Text)]
    assignee_id: String,
    #[diesel(sql_type = Text)]
    assignee: String,
    #[diesel(sql_type = Text)]
    renewal_date: String,
    #[diesel(sql_type = Text)]
    supplied_by: String,
    #[diesel(sql_type = Text)]
    search_text: String,
}

impl TryFrom<Row> for SourceRow {
    type Error = DbError;

    fn try_from(r: Row) -> DbResult<Self> {
        let id = uuid::Uuid::parse_str(&r.item_id).map_err(DbError::corrupt)?;
        Ok(SourceRow {
            item_id: id.as_u128(),
            created_at: r.created_at,
            updated_at: r.updated_at,
            deploy_status: r.deploy_status,
            deploy_reason: r.deploy_reason,
            condition_rank: r.condition_rank,
            serial_number: r.serial_number,
            sku_id: r.sku_id,
            product: r.product,
            category: r.category,
            vendor_sku: r.vendor_sku,
            assignee_type: r.assignee_type,
            assignee_id: r.assignee_id,
            assignee: r.assignee,
            renewal_date: r.renewal_date,
            supplied_by: r.supplied_by,
            search_text: r.search_text,
        })
    }
}

fn decoded(rows: Vec<Row>) -> DbResult<Vec<SourceRow>> {
    rows.into_iter().map(SourceRow::try_from).collect()
}

/// Every listing row of the organization, a chunk at a time in the default
/// order (creation time, then item id: the walk of the listing's own index,
/// from where the last chunk ended), given to `each`.
pub(super) fn all_rows(
    c: &mut DbConnection,
    org: &str,
    chunk: i64,
    mut each: impl FnMut(Vec<SourceRow>),
) -> DbResult<()> {
    let id = format!("item_id{}", byte_order(c.backend()));
    let mut after: Option<(NaiveDateTime, String)> = None;
    loop {
        let mut st = Sql::default();
        st.push_sql(COLUMNS).push_bind(org);
        if let Some((at, item)) = &after {
            st.push_sql(&format!(" AND (created_at, {id}) > ("))
                .push_bind(*at)
                .push_sql(", ")
                .push_bind(item.as_str())
                .push_sql(")");
        }
        st.push_sql(&format!(" ORDER BY created_at, {id} LIMIT "))
            .push_bind(chunk);
        let rows: Vec<Row> = st.load(c)?;
        let full = rows.len() as i64 == chunk;
        if let Some(last) = rows.last() {
            after = Some((last.created_at, last.item_id.clone()));
        }
        each(decoded(rows)?);
        if !full {
            return Ok(());
        }
    }
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// How many listing rows are stamped `from` or later.
pub(super) fn changed_since(c: &mut DbConnection, org: &str, from: i64) -> DbResult<i64> {
    let mut st = Sql::default();
    st.push_sql("SELECT COUNT(*) AS n FROM inventory_listing WHERE organization_id = ")
        .push_bind(org)
        .push_sql(" AND listing_stamp >= ")
        .push_bind(from);
    let rows: Vec<Count> = st.load(c)?;
    Ok(rows.first().map_or(0, |r| r.n))
}

/// The listing rows stamped `from` or later.
pub(super) fn rows_since(c: &mut DbConnection, org: &str, from: i64) -> DbResult<Vec<SourceRow>> {
    let mut st = Sql::default();
    st.push_sql(COLUMNS)
        .push_bind(org)
        .push_sql(" AND listing_stamp >= ")
        .push_bind(from);
    decoded(st.load(c)?)
}

#[derive(QueryableByName)]
struct Marks {
    #[diesel(sql_type = BigInt)]
    version: i64,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Where the organization's listing stands: its listing version, and the
/// first row stamp that may still be written (every row stamped earlier is
/// final). SQLite: the version's successor (writers take turns);
/// PostgreSQL: the oldest transaction still running (`pg_snapshot_xmin`),
/// read in the same statement as the version.
pub(super) fn marks(c: &mut DbConnection, org: &str) -> DbResult<(i64, i64)> {
    let mut st = Sql::default();
    st.push_sql(
        "SELECT COALESCE((SELECT version FROM inventory_listing_versions WHERE organization_id = ",
    )
    .push_bind(org)
    .push_sql("), 0) AS version, ");
    match c.backend() {
        Backend::Sqlite => st.push_sql("0 AS n"),
        Backend::Postgres => st
            .push_sql("CAST(CAST(pg_snapshot_xmin(pg_current_snapshot()) AS TEXT) AS BIGINT) AS n"),
    };
    let rows: Vec<Marks> = st.load(c)?;
    let (version, xmin) = rows.first().map_or((0, 0), |r| (r.version, r.n));
    Ok(match c.backend() {
        Backend::Sqlite => (version, version + 1),
        Backend::Postgres => (version, xmin),
    })
}

/// The organization's items, from its maintained counts.
pub(super) fn items_of(c: &mut DbConnection, org: &str) -> DbResult<i64> {
    let mut st = Sql::default();
    st.push_sql("SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) AS n FROM inventory_counts WHERE organization_id = ")
        .push_bind(org);
    let rows: Vec<Count> = st.load(c)?;
    Ok(rows.first().map_or(0, |r| r.n))
}

#[derive(QueryableByName)]
struct OrgRow {
    #[diesel(sql_type = Text)]
    organization_id: String,
}

/// The organizations of more than `items` items, from the maintained counts.
pub(super) fn organizations_over(c: &mut DbConnection, items: i64) -> DbResult<Vec<String>> {
    let mut st = Sql::default();
    st.push_sql(
        "SELECT organization_id FROM inventory_counts GROUP BY organization_id \
         HAVING SUM(n) > ",
    )
    .push_bind(items)
    .push_sql(" ORDER BY SUM(n) DESC");
    let rows: Vec<OrgRow> = st.load(c)?;
    Ok(rows.into_iter().map(|r| r.organization_id).collect())
}

#[derive(QueryableByName)]
struct JsonRow {
    #[diesel(sql_type = Text)]
    item_id: String,
    #[diesel(sql_type = Nullable<Text>)]
    item_json: Option<String>,
}

/// The rendered items `ids`, in that order (an item whose row has no JSON,
/// which `refresh` could not render, is left out, as the SQL page does).
pub(super) fn rendered(c: &mut DbConnection, org: &str, ids: &[u128]) -> DbResult<Vec<ListedItem>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let texts: Vec<String> = ids
        .iter()
        .map(|id| uuid::Uuid::from_u128(*id).to_string())
        .collect();
    let mut json: std::collections::HashMap<String, String> =
        std::collections::HashMap::with_capacity(ids.len());
    for chunk in texts.chunks(crate::sql_builder::ID_CHUNK) {
        let mut st = Sql::default();
        st.push_sql("SELECT item_id, item_json FROM inventory_listing WHERE organization_id = ")
            .push_bind(org)
            .push_sql(" AND item_id IN ")
            .push_text_list(chunk.iter().map(String::as_str));
        let rows: Vec<JsonRow> = st.load(c)?;
        json.extend(
            rows.into_iter()
                .filter_map(|r| r.item_json.map(|j| (r.item_id, j))),
        );
    }
    let mut items = Vec::with_capacity(ids.len());
    for text in texts {
        if let Some(body) = json.remove(&text) {
            items.push(ListedItem {
                id: InventoryItemId::parse(&text).map_err(DbError::corrupt)?,
                body: ListedBody::Rendered(body),
            });
        }
    }
    Ok(items)
}
