//! The inventory listing over the `inventory_listing` read model.
//!
//! - [`refresh`] rewrites the listing rows of some items from the source tables
//!   (items, SKUs, assignees) in two set-based statements; every write path
//!   that changes what the listing shows calls it.
//!   It also renders each item's JSON (`equip_domain::wire::item`, the
//!   serializer of the API) into the row's `item_json`.
//! - [`page`] cuts one page of ids with the filters and order in SQL (an index
//!   serves the default order, the product order within a category, and the
//!   common filters), joins those ids back to their rows' `item_json`, and
//!   counts the matches — from the trigger-maintained `inventory_counts` when
//!   only statuses and categories filter. A page is one statement plus the
//!   count; its items are not decoded, only concatenated by the HTTP layer.
//! - The page and count statements go through [`Statement`], whose SQL Diesel
//!   prepares once per connection and caches (keyed by the SQL text) unless an
//!   `IN` list makes its shape open-ended.

use std::collections::HashMap;

use chrono::NaiveDateTime;
use diesel::backend::Backend;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, HasSqlType, Nullable, Text, Timestamp, Untyped};
use diesel::sqlite::Sqlite;

use equip_domain::ids::{InventoryItemId, OrganizationId};
use equip_domain::inventory::Condition;
use equip_domain::inventory_query::{
    AssigneeFilter, InventoryFilter, InventoryItemView, InventoryPage, InventoryQuery,
    SortDirection, SortKey,
};
use equip_domain::wire::item::ListedItem;

use crate::connection::{fold_function, on_inner, DbConnection};
use crate::error::{DbError, DbResult};
use crate::models::{
    ItemRow, ItemRows, PricingRow, ReturnOrderItemRow, ReturnOrderRow, SkuRow, TagRow,
};
use crate::schema::{
    inventory_item_pricing, inventory_item_tags, inventory_items, offices, people, person_emails,
    return_order_items, return_orders, skus, warehouses,
};

/// Ids per `IN (…)` list.
const ID_CHUNK: usize = 900;

/// A bound value of a hand-written statement.
#[derive(Debug, Clone)]
enum Param {
    Text(String),
    Time(NaiveDateTime),
    Int(i64),
}

/// `IN` lists longer than this make a statement uncacheable: their shapes
/// are open-ended, and each would stay prepared on every connection.
const CACHED_LIST_MAX: usize = 8;

/// A statement written with `?` placeholders and its values. It runs as a
/// Diesel query whose SQL text is the statement-cache key, so that a
/// fixed-shape statement is prepared (and, on PostgreSQL, planned) once per
/// connection; `IN` lists longer than [`CACHED_LIST_MAX`] opt out of the cache.
#[derive(Debug)]
struct Statement {
    sql: String,
    params: Vec<Param>,
    cacheable: bool,
}

impl Default for Statement {
    fn default() -> Self {
        Self {
            sql: String::new(),
            params: Vec::new(),
            cacheable: true,
        }
    }
}

impl Statement {
    fn push(&mut self, sql: &str) -> &mut Self {
        self.sql.push_str(sql);
        self
    }

    fn text(&mut self, value: impl Into<String>) -> &mut Self {
        self.sql.push('?');
        self.params.push(Param::Text(value.into()));
        self
    }

    fn time(&mut self, value: NaiveDateTime) -> &mut Self {
        self.sql.push('?');
        self.params.push(Param::Time(value));
        self
    }

    fn int(&mut self, value: i64) -> &mut Self {
        self.sql.push('?');
        self.params.push(Param::Int(value));
        self
    }

    /// ` = ?` for one value, ` IN (?, ?, …)` for several: one value lets the
    /// planners treat the column as fixed and use an index for the order too.
    fn any_of<'a>(&mut self, values: &'a [impl AsRef<str> + 'a]) -> &mut Self {
        if let [one] = values {
            self.push(" = ").text(one.as_ref())
        } else {
            self.push(" IN ")
                .text_list(values.iter().map(AsRef::as_ref))
        }
    }

    /// `(?, ?, …)` with the values.
    fn text_list<'a>(&mut self, values: impl IntoIterator<Item = &'a str>) -> &mut Self {
        self.sql.push('(');
        let mut n = 0;
        for (i, v) in values.into_iter().enumerate() {
            if i > 0 {
                self.sql.push_str(", ");
            }
            self.text(v);
            n += 1;
        }
        self.sql.push(')');
        if n > CACHED_LIST_MAX {
            self.cacheable = false;
        }
        self
    }

    fn execute(&self, c: &mut DbConnection) -> QueryResult<usize> {
        on_inner!(c, |c| RunQueryDsl::execute(self, c))
    }

    fn load<R>(&self, c: &mut DbConnection) -> QueryResult<Vec<R>>
    where
        R: QueryableByName<Sqlite> + QueryableByName<Pg> + 'static,
    {
        on_inner!(c, |c| RunQueryDsl::load(self, c))
    }
}

impl QueryId for Statement {
    type QueryId = ();
    // Cached by SQL text (and bind types), not by type.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for Statement {
    type SqlType = Untyped;
}

impl<DB> QueryFragment<DB> for Statement
where
    DB: Backend + HasSqlType<Text> + HasSqlType<Timestamp> + HasSqlType<BigInt>,
    String: diesel::serialize::ToSql<Text, DB>,
    NaiveDateTime: diesel::serialize::ToSql<Timestamp, DB>,
    i64: diesel::serialize::ToSql<BigInt, DB>,
{
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, DB>) -> QueryResult<()> {
        if !self.cacheable {
            out.unsafe_to_cache_prepared();
        }
        // Each `?` becomes the backend's placeholder (`?` or `$n`).
        let mut params = self.params.iter();
        for (i, part) in self.sql.split('?').enumerate() {
            if i > 0 {
                match params.next() {
                    Some(Param::Text(v)) => out.push_bind_param::<Text, String>(v)?,
                    Some(Param::Time(v)) => out.push_bind_param::<Timestamp, NaiveDateTime>(v)?,
                    Some(Param::Int(v)) => out.push_bind_param::<BigInt, i64>(v)?,
                    None => {
                        return Err(diesel::result::Error::QueryBuilderError(
                            "more placeholders than values".into(),
                        ))
                    }
                }
            }
            out.push_sql(part);
        }
        Ok(())
    }
}

impl<Conn> RunQueryDsl<Conn> for &Statement {}

#[derive(QueryableByName)]
struct IdRow {
    #[diesel(sql_type = Text)]
    item_id: String,
}

#[derive(QueryableByName)]
struct JsonRow {
    #[diesel(sql_type = Text)]
    item_id: String,
    #[diesel(sql_type = Nullable<Text>)]
    item_json: Option<String>,
    /// The page's time order key, when it is in a time order.
    #[diesel(sql_type = Nullable<Timestamp>)]
    k: Option<NaiveDateTime>,
    /// The count of all matches, when it came with the page.
    #[diesel(sql_type = Nullable<BigInt>)]
    total: Option<i64>,
}

#[derive(QueryableByName)]
struct CountRow {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Which items' listing rows to rewrite.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scope<'a> {
    /// These items.
    Items(&'a [String]),
    /// Items of these SKUs (their title, category or vendor changed).
    Skus(&'a [String]),
    /// Items assigned to these people, warehouses or offices (a label changed).
    Assignees(&'a [String]),
}

/// The listing row of an item, computed from the source tables. `{nl}` is a
/// newline: the separator between the searchable fields; `{lower}` the
/// Unicode case folding of the backend ([`fold_function`]).
const LISTING_SELECT: &str = "\
SELECT i.id, i.organization_id, i.created_at, i.updated_at, i.deploy_status,
    COALESCE(i.deploy_reason, ''),
    {condition_rank},
    {lower}(COALESCE(i.serial_number, '')), i.sku_id, {lower}(s.title),
    {lower}(s.category_code), {lower}(s.vendor_sku), COALESCE(i.assignee_type, ''),
    COALESCE(i.assignee_id, ''), {lower}(COALESCE(p.user_name, w.name, o.name, '')),
    {renewal}, i.supplied_by,
    {lower}(COALESCE(i.description, '') || {nl} || s.vendor_name || {nl} || s.category_code
        || {nl} || s.category_name || {nl} || s.title || {nl} || COALESCE(i.serial_number, ''))
FROM inventory_items i
JOIN skus s ON s.organization_id = i.organization_id AND s.id = i.sku_id
LEFT JOIN people p ON i.assignee_type = 'PERSON' AND p.organization_id = i.organization_id
    AND p.id = i.assignee_id
LEFT JOIN warehouses w ON i.assignee_type = 'WAREHOUSE' AND w.id = i.assignee_id
LEFT JOIN offices o ON i.assignee_type = 'OFFICE' AND o.organization_id = i.organization_id
    AND o.id = i.assignee_id
WHERE i.organization_id = ?";

const LISTING_COLUMNS: &str = "item_id, organization_id, created_at, updated_at, deploy_status, \
     deploy_reason, condition_rank, serial_number, sku_id, product, category, vendor_sku, \
     assignee_type, assignee_id, assignee, renewal_date, supplied_by, search_text";

/// `CASE i.condition WHEN 'NEW' THEN 0 … END`, from the domain's order.
fn condition_rank() -> String {
    let mut case = String::from("CASE i.condition");
    for c in Condition::ALL {
        case.push_str(&format!(" WHEN '{}' THEN {}", c.as_str(), c.rank()));
    }
    case.push_str(" ELSE 99 END");
    case
}

fn listing_select(c: &DbConnection) -> String {
    let (renewal, nl) = match c {
        DbConnection::Sqlite(_) => ("COALESCE(i.renewal_date, '')", "char(10)"),
        DbConnection::Postgres(_) => (
            "COALESCE(to_char(i.renewal_date, 'YYYY-MM-DD'), '')",
            "chr(10)",
        ),
    };
    LISTING_SELECT
        .replace("{renewal}", renewal)
        .replace("{nl}", nl)
        .replace("{lower}", fold_function(c.backend()))
        .replace("{condition_rank}", &condition_rank())
}

/// Rewrites the listing rows of the items in `scope` from the source tables,
/// their rendered JSON included. Runs inside the caller's transaction.
pub(crate) fn refresh(c: &mut DbConnection, org: &str, scope: Scope<'_>) -> DbResult<()> {
    // (column of inventory_listing, column of inventory_items, ids)
    let (listing_column, item_column, ids) = match scope {
        Scope::Items(ids) => ("item_id", "i.id", ids),
        Scope::Skus(ids) => ("sku_id", "i.sku_id", ids),
        Scope::Assignees(ids) => ("assignee_id", "i.assignee_id", ids),
    };
    let select = listing_select(c);
    let mut items: Vec<String> = Vec::new();
    for chunk in ids.chunks(ID_CHUNK) {
        let mut delete = Statement::default();
        delete
            .push("DELETE FROM inventory_listing WHERE organization_id = ")
            .text(org)
            .push(&format!(" AND {listing_column} IN "))
            .text_list(chunk.iter().map(String::as_str));
        let mut insert = Statement::default();
        insert
            .push("INSERT INTO inventory_listing (")
            .push(LISTING_COLUMNS)
            .push(") ")
            .push(&select);
        // The select's one placeholder is the organization.
        insert.params.push(Param::Text(org.to_owned()));
        insert
            .push(&format!(" AND {item_column} IN "))
            .text_list(chunk.iter().map(String::as_str));
        delete.execute(c)?;
        insert.execute(c)?;
        match scope {
            Scope::Items(_) => {}
            Scope::Skus(_) | Scope::Assignees(_) => {
                let mut affected = Statement::default();
                affected
                    .push("SELECT item_id FROM inventory_listing WHERE organization_id = ")
                    .text(org)
                    .push(&format!(" AND {listing_column} IN "))
                    .text_list(chunk.iter().map(String::as_str));
                items.extend(affected.load::<IdRow>(c)?.into_iter().map(|r| r.item_id));
            }
        }
    }
    match scope {
        Scope::Items(ids) => render(c, org, ids)?,
        Scope::Skus(_) | Scope::Assignees(_) => render(c, org, &items)?,
    }
    // Deep-page positions remembered for the old listing no longer hold.
    let mut bump = Statement::default();
    bump.push("INSERT INTO inventory_listing_versions (organization_id, version) VALUES (")
        .text(org)
        .push(
            ", 1) ON CONFLICT (organization_id) DO UPDATE \
               SET version = inventory_listing_versions.version + 1",
        );
    bump.execute(c)?;
    Ok(())
}

/// Items whose JSON is rendered per statement.
const RENDER_CHUNK: usize = 500;

/// Writes the JSON of the items `ids` (their listing rows exist) into their
/// listing rows: their views load in a fixed number of queries per chunk, are
/// serialized by the API's serializer, and are written with one `UPDATE … FROM
/// (VALUES …)` per chunk.
fn render(c: &mut DbConnection, org: &str, ids: &[String]) -> DbResult<()> {
    for chunk in ids.chunks(RENDER_CHUNK) {
        let views = load_views(c, org, chunk)?;
        if views.is_empty() {
            continue;
        }
        let mut update = Statement::default();
        update.push("UPDATE inventory_listing SET item_json = v.column2 FROM (VALUES ");
        for (n, view) in views.iter().enumerate() {
            let listed = ListedItem::render(view).map_err(DbError::corrupt)?;
            if n > 0 {
                update.push(", ");
            }
            update
                .push("(")
                .text(listed.id.to_string())
                .push(", ")
                .text(listed.json)
                .push(")");
        }
        update.cacheable = false;
        update
            .push(") AS v WHERE inventory_listing.organization_id = ")
            .text(org)
            .push(" AND inventory_listing.item_id = v.column1");
        update.execute(c)?;
    }
    Ok(())
}

/// Renders the JSON of listing rows that have none (rows written before the
/// `item_json` column existed), in batches of [`RENDER_CHUNK`], each batch in
/// its own write transaction. Returns how many rows were rendered.
pub(crate) fn render_missing(c: &mut DbConnection) -> DbResult<usize> {
    #[derive(QueryableByName)]
    struct Missing {
        #[diesel(sql_type = Text)]
        organization_id: String,
        #[diesel(sql_type = Text)]
        item_id: String,
    }
    let mut after = String::new();
    let mut done = 0;
    loop {
        let mut st = Statement::default();
        st.push(
            "SELECT organization_id, item_id FROM inventory_listing \
             WHERE item_id > ",
        )
        .text(after.clone())
        .push(" AND item_json IS NULL ORDER BY item_id LIMIT ")
        .int(RENDER_CHUNK as i64);
        let rows: Vec<Missing> = st.load(c)?;
        let Some(last) = rows.last() else {
            return Ok(done);
        };
        after.clone_from(&last.item_id);
        let mut by_org: HashMap<&str, Vec<String>> = HashMap::new();
        for r in &rows {
            by_org
                .entry(r.organization_id.as_str())
                .or_default()
                .push(r.item_id.clone());
        }
        crate::connection::write_transaction(c, |c| -> DbResult<()> {
            for (org, ids) in &by_org {
                render(c, org, ids)?;
            }
            Ok(())
        })?;
        done += rows.len();
        if done % 100_000 < RENDER_CHUNK {
            log::info!("inventory listing: rendered the JSON of {done} items");
        }
    }
}

/// The WHERE clause (after `WHERE l.organization_id = ?`) of a filter.
fn push_filter(st: &mut Statement, c: &DbConnection, f: &InventoryFilter, email_people: &[String]) {
    // PostgreSQL compares these in byte order ("C"), as their indexes are built,
    // so that the indexes serve the comparisons.
    let keyed = |col: &str| match c {
        DbConnection::Sqlite(_) => col.to_owned(),
        DbConnection::Postgres(_) => format!("{col} COLLATE \"C\""),
    };
    if !f.deploy_statuses.is_empty() {
        let statuses: Vec<&str> = f.deploy_statuses.iter().map(|s| s.as_str()).collect();
        st.push(" AND l.deploy_status").any_of(&statuses);
    }
    if !f.categories.is_empty() {
        st.push(&format!(" AND {}", keyed("l.category")))
            .any_of(&f.categories);
    }
    if !f.sku_ids.is_empty() {
        let ids: Vec<String> = f.sku_ids.iter().map(ToString::to_string).collect();
        st.push(&format!(" AND {}", keyed("l.sku_id"))).any_of(&ids);
    }
    if !f.serial_numbers.is_empty() {
        st.push(&format!(" AND {}", keyed("l.serial_number")))
            .any_of(&f.serial_numbers);
    }
    if !f.vendor_skus.is_empty() {
        st.push(" AND l.vendor_sku").any_of(&f.vendor_skus);
    }
    if let Some(from) = f.updated_from {
        st.push(" AND l.updated_at >= ").time(from);
    }
    if let Some(to) = f.updated_to {
        st.push(" AND l.updated_at <= ").time(to);
    }
    match &f.person {
        Some(AssigneeFilter::Person(id)) => {
            st.push(" AND l.assignee_type = 'PERSON' AND l.assignee_id = ")
                .text(id.to_string());
        }
        Some(AssigneeFilter::Email(_)) => {
            // Resolved to person ids beforehand (see `people_with_email`), so
            // that the planner uses the assignee index.
            st.push(" AND l.assignee_type = 'PERSON' AND l.assignee_id IN ")
                .text_list(email_people.iter().map(String::as_str));
        }
        None => {}
    }
    if let Some(id) = f.warehouse_id {
        st.push(" AND l.assignee_type = 'WAREHOUSE' AND l.assignee_id = ")
            .text(id.to_string());
    }
    if let Some(id) = f.office_id {
        st.push(" AND l.assignee_type = 'OFFICE' AND l.assignee_id = ")
            .text(id.to_string());
    }
    if let Some(search) = &f.search {
        match c {
            DbConnection::Sqlite(_) if search.chars().count() >= 3 => {
                // The trigram index answers a quoted phrase as a substring
                // match, case-insensitively by its own Unicode folding, which
                // also equates letters that `search_text`'s folding keeps apart
                // (`ſ` and `s`, the Kelvin sign and `k`): its candidates are
                // checked against `search_text` as stored.
                st.push(" AND l.row_id IN (SELECT rowid FROM inventory_search WHERE inventory_search MATCH ")
                    .text(format!("\"{}\"", search.replace('"', "\"\"")))
                    .push(") AND instr(l.search_text, ")
                    .text(search.as_str())
                    .push(") > 0");
            }
            _ => {
                let escaped = search
                    .replace('\\', "\\\\")
                    .replace('%', "\\%")
                    .replace('_', "\\_");
                st.push(" AND l.search_text LIKE ")
                    .text(format!("%{escaped}%"))
                    .push(" ESCAPE '\\'");
            }
        }
    }
}

/// `ORDER BY` for a sort key and direction; ties broken by id.
fn order_by(c: &DbConnection, key: SortKey, direction: SortDirection, unindexed: bool) -> String {
    let text = |col: &str| match c {
        DbConnection::Sqlite(_) if unindexed => format!("+{col}"),
        DbConnection::Sqlite(_) => col.to_owned(),
        DbConnection::Postgres(_) => format!("{col} COLLATE \"C\""),
    };
    // Non-text columns: no collation.
    let plain = |col: &str| match c {
        DbConnection::Sqlite(_) if unindexed => format!("+{col}"),
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

/// Deep pages start at least this far in before their keyset positions are
/// remembered.
const ANCHOR_MIN_OFFSET: u64 = 1_000;
/// Remembered positions, over all organizations and queries; when full, all
/// are forgotten.
const ANCHOR_CAPACITY: usize = 10_000;

/// A remembered keyset position: the order key of the row just before
/// `offset` in one (organization, filter, order), valid while the
/// organization's listing version is `version`.
#[derive(Debug, Clone)]
struct Anchor {
    version: i64,
    key: NaiveDateTime,
    item_id: String,
}

/// Keyset positions of deep pages, per (organization, filter and order) and
/// offset, so that a page far from the start (and the page after one that was
/// served) starts from the remembered key through the order's index instead of
/// walking `OFFSET` rows. Used for the time orders (`createdAt`, the default,
/// and `updatedAt`). A position is used only while the organization's listing
/// version (bumped in the transaction of every listing change, see
/// [`refresh`]) is the one it was taken at, so a remembered position never
/// shifts a page. Process-local; several instances each keep their own.
#[derive(Debug, Default)]
pub(crate) struct Anchors {
    map: std::sync::Mutex<HashMap<(String, String), std::collections::BTreeMap<u64, Anchor>>>,
}

impl Anchors {
    /// The nearest remembered position at or before `offset` of this version.
    fn best(&self, scope: &(String, String), offset: u64, version: i64) -> Option<(u64, Anchor)> {
        let map = self.map.lock().ok()?;
        map.get(scope)?
            .range(..=offset)
            .rev()
            .find(|(_, a)| a.version == version)
            .map(|(o, a)| (*o, a.clone()))
    }

    fn remember(&self, scope: &(String, String), offset: u64, anchor: Anchor) {
        let Ok(mut map) = self.map.lock() else {
            return;
        };
        if map
            .values()
            .map(std::collections::BTreeMap::len)
            .sum::<usize>()
            >= ANCHOR_CAPACITY
        {
            map.clear();
        }
        let positions = map.entry(scope.clone()).or_default();
        positions.retain(|_, a| a.version == anchor.version);
        positions.insert(offset, anchor);
    }
}

/// The organization's listing version (0 before its first listing change).
fn listing_version(c: &mut DbConnection, org: &str) -> DbResult<i64> {
    let mut st = Statement::default();
    st.push("SELECT version AS n FROM inventory_listing_versions WHERE organization_id = ")
        .text(org);
    Ok(st.load::<CountRow>(c)?.first().map_or(0, |r| r.n))
}

/// One page of the listing: the page's ids are cut over the listing's keys
/// (an index-only walk where an index serves the order), then joined back to
/// their rows for the pre-rendered JSON.
pub(crate) fn page(
    c: &mut DbConnection,
    anchors: &Anchors,
    org: &str,
    q: &InventoryQuery,
) -> DbResult<InventoryPage> {
    let email_people = match &q.filter().person {
        Some(AssigneeFilter::Email(email)) => {
            let ids = people_with_email(c, org, email)?;
            if ids.is_empty() {
                return Ok(InventoryPage::empty());
            }
            ids
        }
        _ => Vec::new(),
    };
    // A person's items are few: on SQLite, keep the planner on the assignee
    // index (its sampled statistics may not tell it so) by taking the order
    // columns out of index consideration with a unary `+`; the few rows sort.
    let selective = matches!(c, DbConnection::Sqlite(_)) && q.filter().person.is_some();
    let order = order_by(c, q.sort(), q.direction(), selective);
    let time_key = match q.sort() {
        SortKey::CreatedAt => Some("l.created_at"),
        SortKey::UpdatedAt => Some("l.updated_at"),
        _ => None,
    };
    let offset = q.offset();
    let mut filter = Statement::default();
    push_filter(&mut filter, c, q.filter(), &email_people);

    // Deep pages in a time order: start from a remembered position.
    let anchored = match time_key {
        Some(_) if offset >= ANCHOR_MIN_OFFSET => {
            let version = listing_version(c, org)?;
            let scope = (
                org.to_owned(),
                format!("{}{order}{:?}", filter.sql, filter.params),
            );
            let best = anchors.best(&scope, offset, version);
            Some((scope, version, best))
        }
        _ => None,
    };

    let mut st = Statement::default();
    // The order key is decoded only where positions are remembered.
    let key = match (&anchored, time_key, &*c) {
        (Some(_), Some(col), _) => col,
        (_, _, DbConnection::Sqlite(_)) => "NULL",
        (_, _, DbConnection::Postgres(_)) => "CAST(NULL AS TIMESTAMP)",
    };
    // The page's rows are found again by their physical address: SQLite's
    // rowid (in every index), PostgreSQL's ctid (a TID scan, no index
    // search). Reading the ctid costs the inner walk its index-only scan:
    // every skipped row is read from the table too (page 1,000 by product:
    // 100,000 heap fetches, 368 ms; by item_id, an index-only scan, 24 ms).
    // So a PostgreSQL page that skips rows joins by item_id (100 primary-key
    // look-ups), unless it starts at a remembered position.
    let id = match (&*c, &anchored) {
        (DbConnection::Sqlite(_), _) => "row_id",
        (DbConnection::Postgres(_), Some((_, _, Some(_)))) => "ctid",
        (DbConnection::Postgres(_), _) if offset == 0 => "ctid",
        (DbConnection::Postgres(_), _) => "item_id",
    };
    // A count from the maintained counts (a few rows) comes with the page, in
    // the same statement: one round trip fewer. Other counts run after, only
    // when needed.
    let embedded = q.filter().is_countable_by_status_and_category();
    st.push("SELECT l.item_id, l.item_json, p.k, ");
    if embedded {
        let count = count_statement(c, org, q.filter(), &email_people);
        st.push("(").push(&count.sql).push(")");
        st.params.extend(count.params);
        st.cacheable &= count.cacheable;
    } else {
        st.push("CAST(NULL AS BIGINT)");
    }
    st.push(&format!(
        " AS total FROM inventory_listing l JOIN (SELECT l.{id}, \
         {key} AS k FROM inventory_listing l WHERE l.organization_id = "
    ))
    .text(org);
    st.sql.push_str(&filter.sql);
    st.params.extend(filter.params.iter().cloned());
    st.cacheable &= filter.cacheable;
    // Rows to skip, and whether the row before the page is fetched too (its
    // key is the position of this page, remembered for the next request).
    let (skip, lead) = match (&anchored, time_key) {
        (Some((_, _, Some((at, anchor)))), Some(col)) => {
            let (cmp, id) = match &*c {
                DbConnection::Sqlite(_) => (
                    if q.direction() == SortDirection::Asc {
                        ">"
                    } else {
                        "<"
                    },
                    "l.item_id",
                ),
                DbConnection::Postgres(_) => (
                    if q.direction() == SortDirection::Asc {
                        ">"
                    } else {
                        "<"
                    },
                    "l.item_id COLLATE \"C\"",
                ),
            };
            st.push(&format!(" AND ({col}, {id}) {cmp} ("))
                .time(anchor.key)
                .push(", ")
                .text(anchor.item_id.clone())
                .push(")");
            let rest = offset - at;
            if rest == 0 {
                (0, false)
            } else {
                (rest - 1, true)
            }
        }
        (Some(_), Some(_)) => (offset - 1, true),
        _ => (offset, false),
    };
    st.push(&order);
    st.push(" LIMIT ")
        .int(i64::from(q.size()) + i64::from(lead))
        .push(" OFFSET ")
        .int(i64::try_from(skip).unwrap_or(i64::MAX));
    // The outer order is the inner one over the same rows (a sort of one page).
    st.push(&format!(") p ON l.{id} = p.{id}")).push(&order);
    let mut rows: Vec<JsonRow> = st.load(c)?;
    if let Some((scope, version, _)) = &anchored {
        if lead && !rows.is_empty() {
            let before = rows.remove(0);
            if let Some(key) = before.k {
                anchors.remember(
                    scope,
                    offset,
                    Anchor {
                        version: *version,
                        key,
                        item_id: before.item_id,
                    },
                );
            }
        }
        // The next page starts after this one's last row.
        if rows.len() == q.size() as usize {
            if let Some(last) = rows.last() {
                if let Some(key) = last.k {
                    let next = offset + u64::from(q.size());
                    anchors.remember(
                        scope,
                        next,
                        Anchor {
                            version: *version,
                            key,
                            item_id: last.item_id.clone(),
                        },
                    );
                }
            }
        }
    }

    let total_records = if q.page().get() == 1 && rows.len() < q.size() as usize {
        rows.len() as u64
    } else if let Some(n) = rows.first().and_then(|r| r.total) {
        u64::try_from(n).unwrap_or(0)
    } else {
        crate::error::still_wanted()?;
        count(c, org, q.filter(), &email_people)?
    };
    crate::error::still_wanted()?;
    let items = listed_items(c, org, rows)?;
    Ok(InventoryPage {
        items,
        total_records,
    })
}

/// The page's items from their rows; a row without JSON (written by a
/// version that did not render it, before `equip migrate`) is rendered now.
fn listed_items(c: &mut DbConnection, org: &str, rows: Vec<JsonRow>) -> DbResult<Vec<ListedItem>> {
    let missing: Vec<String> = rows
        .iter()
        .filter(|r| r.item_json.is_none())
        .map(|r| r.item_id.clone())
        .collect();
    let mut rendered: HashMap<String, String> = HashMap::new();
    if !missing.is_empty() {
        for view in load_views(c, org, &missing)? {
            let listed = ListedItem::render(&view).map_err(DbError::corrupt)?;
            rendered.insert(listed.id.to_string(), listed.json);
        }
    }
    let mut items = Vec::with_capacity(rows.len());
    for row in rows {
        let json = match row.item_json {
            Some(json) => json,
            None => match rendered.remove(&row.item_id) {
                Some(json) => json,
                None => continue,
            },
        };
        let id = InventoryItemId::parse(&row.item_id).map_err(DbError::corrupt)?;
        items.push(ListedItem { id, json });
    }
    Ok(items)
}

/// The people of the organization with `email` (case-insensitive) among their
/// addresses.
fn people_with_email(c: &mut DbConnection, org: &str, email: &str) -> DbResult<Vec<String>> {
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

/// How many items match `filter`.
fn count(
    c: &mut DbConnection,
    org: &str,
    filter: &InventoryFilter,
    email_people: &[String],
) -> DbResult<u64> {
    let st = count_statement(c, org, filter, email_people);
    let n = st.load::<CountRow>(c)?.first().map_or(0, |r| r.n);
    Ok(u64::try_from(n).unwrap_or(0))
}

/// The statement that counts the items matching `filter` (one row, `n`).
fn count_statement(
    c: &DbConnection,
    org: &str,
    filter: &InventoryFilter,
    email_people: &[String],
) -> Statement {
    let mut st = Statement::default();
    if filter.is_countable_by_status_and_category() {
        st.push("SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) AS n FROM inventory_counts l WHERE l.organization_id = ")
            .text(org);
        if !filter.deploy_statuses.is_empty() {
            st.push(" AND l.deploy_status IN ")
                .text_list(filter.deploy_statuses.iter().map(|s| s.as_str()));
        }
        if !filter.categories.is_empty() {
            st.push(" AND l.category IN ")
                .text_list(filter.categories.iter().map(String::as_str));
        }
    } else {
        st.push("SELECT COUNT(*) AS n FROM inventory_listing l WHERE l.organization_id = ")
            .text(org);
        push_filter(&mut st, c, filter, email_people);
    }
    st
}

/// The listed form of the items `ids` (in that order), in a fixed number of
/// queries: items with their SKUs and pricing, tags, active returns, assignee
/// labels.
pub(crate) fn load_views(
    c: &mut DbConnection,
    org: &str,
    ids: &[String],
) -> DbResult<Vec<InventoryItemView>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut items: HashMap<String, ItemRow> = HashMap::with_capacity(ids.len());
    let mut pricing: HashMap<String, PricingRow> = HashMap::new();
    let mut tags: HashMap<String, Vec<TagRow>> = HashMap::new();
    let mut returns: HashMap<String, (ReturnOrderRow, ReturnOrderItemRow)> = HashMap::new();
    let mut sku_rows: HashMap<String, SkuRow> = HashMap::new();
    for chunk in ids.chunks(ID_CHUNK) {
        let joined: Vec<(ItemRow, SkuRow, Option<PricingRow>)> = inventory_items::table
            .inner_join(
                skus::table.on(skus::id
                    .eq(inventory_items::sku_id)
                    .and(skus::organization_id.eq(inventory_items::organization_id))),
            )
            .left_join(
                inventory_item_pricing::table
                    .on(inventory_item_pricing::item_id.eq(inventory_items::id)),
            )
            .filter(inventory_items::organization_id.eq(org))
            .filter(inventory_items::id.eq_any(chunk))
            .select((
                ItemRow::as_select(),
                SkuRow::as_select(),
                Option::<PricingRow>::as_select(),
            ))
            .load(c)?;
        for (item, sku, price) in joined {
            if let Some(price) = price {
                pricing.insert(item.id.clone(), price);
            }
            sku_rows.insert(sku.id.clone(), sku);
            items.insert(item.id.clone(), item);
        }
        for row in inventory_item_tags::table
            .filter(inventory_item_tags::organization_id.eq(org))
            .filter(inventory_item_tags::item_id.eq_any(chunk))
            .order((inventory_item_tags::item_id, inventory_item_tags::position))
            .select(TagRow::as_select())
            .load(c)?
        {
            tags.entry(row.item_id.clone()).or_default().push(row);
        }
        for (order, line) in return_order_items::table
            .inner_join(return_orders::table)
            .filter(return_order_items::organization_id.eq(org))
            .filter(return_order_items::inventory_item_id.eq_any(chunk))
            .filter(return_order_items::active.eq(true))
            .select((ReturnOrderRow::as_select(), ReturnOrderItemRow::as_select()))
            .load::<(ReturnOrderRow, ReturnOrderItemRow)>(c)?
        {
            returns.insert(line.inventory_item_id.clone(), (order, line));
        }
    }

    let labels = assignee_labels(c, org, items.values())?;

    let mut views = Vec::with_capacity(ids.len());
    for id in ids {
        let Some(item) = items.remove(id) else {
            continue;
        };
        let Some(sku) = sku_rows.get(&item.sku_id).cloned() else {
            continue;
        };
        let assignee_label = item
            .assignee_id
            .as_ref()
            .and_then(|a| labels.get(a).cloned());
        let rows = ItemRows {
            pricing: pricing.remove(id),
            tags: tags.remove(id).unwrap_or_default(),
            active_return: returns.remove(id),
            item,
        };
        views.push(InventoryItemView {
            item: rows.into_domain()?,
            sku: sku.into_domain()?,
            assignee_label,
        });
    }
    Ok(views)
}

/// Labels of the assignees of `items`: a person's userName (their primary
/// email), a warehouse's or an office's name.
fn assignee_labels<'a>(
    c: &mut DbConnection,
    org: &str,
    items: impl Iterator<Item = &'a ItemRow>,
) -> DbResult<HashMap<String, String>> {
    let mut by_kind: HashMap<&str, Vec<String>> = HashMap::new();
    for item in items {
        if let (Some(kind), Some(id)) = (&item.assignee_type, &item.assignee_id) {
            by_kind.entry(kind.as_str()).or_default().push(id.clone());
        }
    }
    let mut labels = HashMap::new();
    for (kind, mut ids) in by_kind {
        ids.sort();
        ids.dedup();
        for chunk in ids.chunks(ID_CHUNK) {
            let rows: Vec<(String, String)> = match kind {
                "PERSON" => people::table
                    .filter(people::organization_id.eq(org))
                    .filter(people::id.eq_any(chunk))
                    .select((people::id, people::user_name))
                    .load(c)?,
                "WAREHOUSE" => warehouses::table
                    .filter(warehouses::id.eq_any(chunk))
                    .select((warehouses::id, warehouses::name))
                    .load(c)?,
                _ => offices::table
                    .filter(offices::organization_id.eq(org))
                    .filter(offices::id.eq_any(chunk))
                    .select((offices::id, offices::name))
                    .load(c)?,
            };
            labels.extend(rows);
        }
    }
    Ok(labels)
}

/// The listed form of items by id.
pub(crate) fn views_by_id(
    c: &mut DbConnection,
    org: OrganizationId,
    ids: &[InventoryItemId],
) -> DbResult<Vec<InventoryItemView>> {
    let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
    load_views(c, &org.to_string(), &ids)
}
