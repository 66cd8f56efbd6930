//! Keeping the `inventory_listing` read model in step with the source tables:
//! [`refresh`] rewrites the listing rows of some items (their sort and filter
//! keys, and the item's JSON as the API renders it) in the transaction of the
//! write that changed them.
//!
//! Every write path that changes what the listing shows calls [`refresh`]:
//! two set-based statements per chunk of ids (delete, insert from a `SELECT`
//! over items, SKUs and assignees), then one `UPDATE … FROM (VALUES …)` per
//! chunk for the JSON, then a bump of the organization's listing version (which
//! retires the remembered deep-page positions, see `listing/anchors.rs`), and
//! on PostgreSQL the item counts' changes applied under that version's lock.

use diesel::prelude::*;

use equip_domain::inventory::Condition;

use crate::connection::{fold_function, Backend, DbConnection};
use crate::error::{DbError, DbResult};
use crate::sql_builder::Sql;

use super::views::load_views;
use super::{IdRow, ID_CHUNK};

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
/// Unicode case folding of the backend ([`fold_function`]); `{stamp}` the
/// row's stamp (see [`refresh`]). The organization is
/// bound after the text.
const LISTING_SELECT: &str = "\
SELECT i.id, i.organization_id, i.created_at, i.updated_at, i.deploy_status,
    COALESCE(i.deploy_reason, ''),
    {condition_rank},
    {lower}(COALESCE(i.serial_number, '')), i.sku_id, {lower}(s.title),
    {lower}(s.category_code), {lower}(s.vendor_sku), COALESCE(i.assignee_type, ''),
    COALESCE(i.assignee_id, ''), {lower}(COALESCE(p.user_name, w.name, o.name, '')),
    {renewal}, i.supplied_by,
    {lower}(COALESCE(i.description, '') || {nl} || s.vendor_name || {nl} || s.category_code
        || {nl} || s.category_name || {nl} || s.title || {nl} || COALESCE(i.serial_number, '')),
    {stamp}
FROM inventory_items i
JOIN skus s ON s.organization_id = i.organization_id AND s.id = i.sku_id
LEFT JOIN people p ON i.assignee_type = 'PERSON' AND p.organization_id = i.organization_id
    AND p.id = i.assignee_id
LEFT JOIN warehouses w ON i.assignee_type = 'WAREHOUSE' AND w.id = i.assignee_id
LEFT JOIN offices o ON i.assignee_type = 'OFFICE' AND o.organization_id = i.organization_id
    AND o.id = i.assignee_id
WHERE i.organization_id = ";

const LISTING_COLUMNS: &str = "item_id, organization_id, created_at, updated_at, deploy_status, \
     deploy_reason, condition_rank, serial_number, sku_id, product, category, vendor_sku, \
     assignee_type, assignee_id, assignee, renewal_date, supplied_by, search_text, listing_stamp";

/// `CASE i.condition WHEN 'NEW' THEN 0 … END`, from the domain's order.
fn condition_rank() -> String {
    let mut case = String::from("CASE i.condition");
    for c in Condition::ALL {
        case.push_str(&format!(" WHEN '{}' THEN {}", c.as_str(), c.rank()));
    }
    case.push_str(" ELSE 99 END");
    case
}

fn listing_select(backend: Backend) -> String {
    let (renewal, nl) = match backend {
        Backend::Sqlite => ("COALESCE(i.renewal_date, '')", "char(10)"),
        Backend::Postgres => (
            "COALESCE(to_char(i.renewal_date, 'YYYY-MM-DD'), '')",
            "chr(10)",
        ),
    };
    LISTING_SELECT
        .replace("{renewal}", renewal)
        .replace("{nl}", nl)
        .replace("{lower}", fold_function(backend))
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
    let select = listing_select(c.backend());
    // Each row written carries its stamp (`listing_stamp`), which a listing
    // index reads as "changed since" (`listing/index/`). SQLite: the listing
    // version this refresh moves to (writers take turns, so it is exact);
    // PostgreSQL: the writing transaction's id, which needs no lock (the
    // version's row is locked only at the end, as before: moving it first
    // held concurrent writers of an organization apart for the whole
    // refresh, item PATCHes 25-30 % slower).
    let stamp = match c.backend() {
        Backend::Sqlite => Stamp::Version(listing_version_in(c, org)? + 1),
        Backend::Postgres => Stamp::Transaction,
    };
    let (select_head, select_tail) = select.split_once("{stamp}").unwrap_or((&select, ""));
    let mut items: Vec<String> = Vec::new();
    for chunk in ids.chunks(ID_CHUNK) {
        let mut delete = Sql::default();
        delete
            .push_sql("DELETE FROM inventory_listing WHERE organization_id = ")
            .push_bind(org)
            .push_sql(&format!(" AND {listing_column} IN "))
            .push_text_list(chunk.iter().map(String::as_str));
        let mut insert = Sql::default();
        insert
            .push_sql("INSERT INTO inventory_listing (")
            .push_sql(LISTING_COLUMNS)
            .push_sql(") ")
            .push_sql(select_head);
        match stamp {
            Stamp::Version(v) => insert.push_bind(v),
            Stamp::Transaction => {
                insert.push_sql("CAST(CAST(pg_current_xact_id() AS TEXT) AS BIGINT)")
            }
        };
        insert
            .push_sql(select_tail)
            .push_bind(org)
            .push_sql(&format!(" AND {item_column} IN "))
            .push_text_list(chunk.iter().map(String::as_str));
        delete.execute(c)?;
        insert.execute(c)?;
        match scope {
            Scope::Items(_) => {}
            Scope::Skus(_) | Scope::Assignees(_) => {
                let mut affected = Sql::default();
                affected
                    .push_sql("SELECT item_id FROM inventory_listing WHERE organization_id = ")
                    .push_bind(org)
                    .push_sql(&format!(" AND {listing_column} IN "))
                    .push_text_list(chunk.iter().map(String::as_str));
                items.extend(affected.load::<IdRow>(c)?.into_iter().map(|r| r.item_id));
            }
        }
    }
    match scope {
        Scope::Items(ids) => render(c, org, ids)?,
        Scope::Skus(_) | Scope::Assignees(_) => render(c, org, &items)?,
    }
    // Deep-page positions remembered for the old listing no longer hold, and
    // listing indexes read the rows stamped since.
    bump_version(c, org)?;
    apply_counts(c)?;
    Ok(())
}

/// PostgreSQL: applies the count changes the listing's triggers recorded in
/// this transaction (`inventory_count_changes`) to `inventory_counts`, in key
/// order. Called once the organization's version row is locked
/// ([`bump_version`]), so a count row is only ever locked by the one writer
/// holding its organization's version: two writers moving items between the
/// same (status, category) rows in opposite directions no longer lock them in
/// opposite orders (they deadlocked; issue 47). SQLite's row triggers write
/// the counts directly: its writers take turns.
fn apply_counts(c: &mut DbConnection) -> DbResult<()> {
    if let DbConnection::Postgres(pg) = c {
        diesel::sql_query("SELECT inventory_counts_apply()").execute(pg)?;
    }
    Ok(())
}

/// What the rows a refresh writes are stamped with.
#[derive(Debug, Clone, Copy)]
enum Stamp {
    /// SQLite: the listing version the refresh moves to.
    Version(i64),
    /// PostgreSQL: the writing transaction's id.
    Transaction,
}

/// The organization's listing version, read in the writing transaction.
fn listing_version_in(c: &mut DbConnection, org: &str) -> DbResult<i64> {
    let mut st = Sql::default();
    st.push_sql(
        "SELECT COALESCE((SELECT version FROM inventory_listing_versions WHERE organization_id = ",
    )
    .push_bind(org)
    .push_sql("), 0) AS version");
    let row: Vec<VersionRow> = st.load(c)?;
    Ok(row.first().map_or(0, |r| r.version))
}

/// Moves the organization's listing version on.
pub(super) fn bump_version(c: &mut DbConnection, org: &str) -> DbResult<()> {
    let mut st = Sql::default();
    st.push_sql("INSERT INTO inventory_listing_versions (organization_id, version) VALUES (")
        .push_bind(org)
        .push_sql(
            ", 1) ON CONFLICT (organization_id) DO UPDATE \
             SET version = inventory_listing_versions.version + 1",
        );
    st.execute(c)?;
    Ok(())
}

#[derive(QueryableByName)]
struct VersionRow {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    version: i64,
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
        let mut update = Sql::default();
        update.push_sql("UPDATE inventory_listing SET item_json = v.column2 FROM (VALUES ");
        for (n, view) in views.iter().enumerate() {
            let json = equip_api_types::item::render(view).map_err(DbError::corrupt)?;
            if n > 0 {
                update.push_sql(", ");
            }
            update
                .push_sql("(")
                .push_bind(view.item.id.to_string())
                .push_sql(", ")
                .push_bind(json)
                .push_sql(")");
        }
        update
            .uncached()
            .push_sql(") AS v WHERE inventory_listing.organization_id = ")
            .push_bind(org)
            .push_sql(" AND inventory_listing.item_id = v.column1");
        update.execute(c)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listing_row_folds_with_the_backends_function() {
        let lite = listing_select(Backend::Sqlite);
        assert!(lite.contains("equip_lower(s.title)"), "{lite}");
        assert!(lite.contains("char(10)") && !lite.contains("to_char"));
        let pg = listing_select(Backend::Postgres);
        assert!(pg.contains("LOWER(s.title)"), "{pg}");
        assert!(pg.contains("to_char(i.renewal_date, 'YYYY-MM-DD')"));
        assert!(pg.contains("CASE i.condition WHEN 'NEW' THEN 0"), "{pg}");
    }
}
