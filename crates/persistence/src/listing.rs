//! The inventory listing over the `inventory_listing` read model.
//!
//! - [`refresh`] rewrites the listing rows of some items from the source tables
//!   (items, SKUs, assignees) in two set-based statements; every write path
//!   that changes what the listing shows calls it.
//! - [`page`] cuts one page of ids with the filters and order in SQL (an index
//!   serves the default order, the product order within a category, and the
//!   common filters), counts the matches — from the trigger-maintained
//!   `inventory_counts` when only statuses and categories filter — and loads the
//!   page's full rows in a fixed number of queries, whatever the page size.

use std::collections::HashMap;

use chrono::NaiveDateTime;
use diesel::pg::Pg;
use diesel::prelude::*;
use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::sql_types::{BigInt, Text, Timestamp};
use diesel::sqlite::Sqlite;

use equip_domain::ids::{InventoryItemId, OrganizationId};
use equip_domain::inventory::Condition;
use equip_domain::inventory_query::{
    AssigneeFilter, InventoryFilter, InventoryItemView, InventoryPage, InventoryQuery,
    SortDirection, SortKey,
};

use crate::connection::DbConnection;
use crate::error::DbResult;
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

/// A statement written with `?` placeholders and its values; PostgreSQL gets
/// `$1, $2, …` when it runs.
#[derive(Debug, Default)]
struct Statement {
    sql: String,
    params: Vec<Param>,
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
        for (i, v) in values.into_iter().enumerate() {
            if i > 0 {
                self.sql.push_str(", ");
            }
            self.text(v);
        }
        self.sql.push(')');
        self
    }

    fn for_postgres(&self) -> String {
        let mut out = String::with_capacity(self.sql.len() + 16);
        let mut n = 0;
        for ch in self.sql.chars() {
            if ch == '?' {
                n += 1;
                out.push('$');
                out.push_str(&n.to_string());
            } else {
                out.push(ch);
            }
        }
        out
    }

    fn bind<'f, DB>(
        &self,
        mut q: BoxedSqlQuery<'f, DB, SqlQuery>,
    ) -> BoxedSqlQuery<'f, DB, SqlQuery>
    where
        DB: diesel::backend::Backend
            + diesel::sql_types::HasSqlType<Text>
            + diesel::sql_types::HasSqlType<Timestamp>
            + diesel::sql_types::HasSqlType<BigInt>,
        String: diesel::serialize::ToSql<Text, DB>,
        NaiveDateTime: diesel::serialize::ToSql<Timestamp, DB>,
        i64: diesel::serialize::ToSql<BigInt, DB>,
    {
        for p in &self.params {
            q = match p {
                Param::Text(v) => q.bind::<Text, _>(v.clone()),
                Param::Time(v) => q.bind::<Timestamp, _>(*v),
                Param::Int(v) => q.bind::<BigInt, _>(*v),
            };
        }
        q
    }

    fn execute(&self, c: &mut DbConnection) -> QueryResult<usize> {
        match c {
            DbConnection::Sqlite(c) => self
                .bind(diesel::sql_query(&self.sql).into_boxed::<Sqlite>())
                .execute(c),
            DbConnection::Postgres(c) => self
                .bind(diesel::sql_query(self.for_postgres()).into_boxed::<Pg>())
                .execute(c),
        }
    }

    fn load<R>(&self, c: &mut DbConnection) -> QueryResult<Vec<R>>
    where
        R: QueryableByName<Sqlite> + QueryableByName<Pg> + 'static,
    {
        match c {
            DbConnection::Sqlite(c) => self
                .bind(diesel::sql_query(&self.sql).into_boxed::<Sqlite>())
                .load(c),
            DbConnection::Postgres(c) => self
                .bind(diesel::sql_query(self.for_postgres()).into_boxed::<Pg>())
                .load(c),
        }
    }
}

#[derive(QueryableByName)]
struct IdRow {
    #[diesel(sql_type = Text)]
    item_id: String,
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
/// newline: the separator between the searchable fields.
const LISTING_SELECT: &str = "\
SELECT i.id, i.organization_id, i.created_at, i.updated_at, i.deploy_status,
    COALESCE(i.deploy_reason, ''),
    {condition_rank},
    LOWER(COALESCE(i.serial_number, '')), i.sku_id, LOWER(s.title), LOWER(s.category_code),
    LOWER(s.vendor_sku), COALESCE(i.assignee_type, ''), COALESCE(i.assignee_id, ''),
    LOWER(COALESCE(p.user_name, w.name, o.name, '')), {renewal}, i.supplied_by,
    LOWER(COALESCE(i.description, '') || {nl} || s.vendor_name || {nl} || s.category_code
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
        .replace("{condition_rank}", &condition_rank())
}

/// Rewrites the listing rows of the items in `scope` from the source tables.
/// Runs inside the caller's transaction.
pub(crate) fn refresh(c: &mut DbConnection, org: &str, scope: Scope<'_>) -> DbResult<()> {
    // (column of inventory_listing, column of inventory_items, ids)
    let (listing_column, item_column, ids) = match scope {
        Scope::Items(ids) => ("item_id", "i.id", ids),
        Scope::Skus(ids) => ("sku_id", "i.sku_id", ids),
        Scope::Assignees(ids) => ("assignee_id", "i.assignee_id", ids),
    };
    let select = listing_select(c);
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
    }
    Ok(())
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
                // The trigram index answers a quoted phrase as a substring match.
                st.push(" AND l.row_id IN (SELECT rowid FROM inventory_search WHERE inventory_search MATCH ")
                    .text(format!("\"{}\"", search.replace('"', "\"\"")))
                    .push(")");
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

/// One page of the listing.
pub(crate) fn page(c: &mut DbConnection, org: &str, q: &InventoryQuery) -> DbResult<InventoryPage> {
    let email_people = match &q.filter.person {
        Some(AssigneeFilter::Email(email)) => {
            let ids = people_with_email(c, org, email)?;
            if ids.is_empty() {
                return Ok(InventoryPage::empty());
            }
            ids
        }
        _ => Vec::new(),
    };
    let mut st = Statement::default();
    st.push("SELECT l.item_id FROM inventory_listing l WHERE l.organization_id = ")
        .text(org);
    push_filter(&mut st, c, &q.filter, &email_people);
    // A person's items are few: on SQLite, keep the planner on the assignee
    // index (its sampled statistics may not tell it so) by taking the order
    // columns out of index consideration with a unary `+`; the few rows sort.
    let selective = matches!(c, DbConnection::Sqlite(_)) && q.filter.person.is_some();
    st.push(&order_by(c, q.sort, q.direction, selective));
    st.push(" LIMIT ")
        .int(i64::from(q.size))
        .push(" OFFSET ")
        .int(i64::try_from(q.offset()).unwrap_or(i64::MAX));
    let ids: Vec<String> = st
        .load::<IdRow>(c)?
        .into_iter()
        .map(|r| r.item_id)
        .collect();

    let total_records = if q.page == 1 && ids.len() < q.size as usize {
        ids.len() as u64
    } else {
        count(c, org, &q.filter, &email_people)?
    };
    let items = load_views(c, org, &ids)?;
    Ok(InventoryPage {
        items,
        total_records,
    })
}

/// The people of the organization with `email` (case-insensitive) among their
/// addresses.
fn people_with_email(c: &mut DbConnection, org: &str, email: &str) -> DbResult<Vec<String>> {
    let mut ids: Vec<String> = person_emails::table
        .filter(person_emails::organization_id.eq(org))
        .filter(person_emails::value_lower.eq(crate::models::fold_case(email)))
        .select(person_emails::person_id)
        .load(c)?;
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
    let n = st.load::<CountRow>(c)?.first().map_or(0, |r| r.n);
    Ok(u64::try_from(n).unwrap_or(0))
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
