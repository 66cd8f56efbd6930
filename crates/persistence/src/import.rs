//! The bulk import: one write transaction that checks a validated
//! [`ImportBatch`] against the stored rows, then upserts every kind by id.
//!
//! Steps, all inside the transaction opened by the caller:
//! 1. resolve the batch's [`ExternalReference`]s (batched `IN (…)` queries);
//! 2. read the stored facts the batch touches (`import_facts`) and let the
//!    domain's rules decide (`equip_domain::import::stored`): an id of another
//!    organization, a userName or package slug held outside the batch, a second
//!    active inventory level, a return-order line of another item →
//!    [`ImportError`] naming the entry;
//! 3. upsert in dependency order with multi-row `INSERT … ON CONFLICT (id) DO
//!    UPDATE` statements (whose `WHERE` refuses to touch a row of another
//!    organization), replacing child rows (emails, tags, pricing) of existing
//!    parents.
//!
//! Any error returns before commit, so nothing is written.
//!
//! Over 500 lines on purpose: the upserts of eight kinds and their child rows,
//! in dependency order, are one transaction's sequence and share its macros.

use equip_domain::group::membership::LeavingEveryGroup;
use std::collections::{BTreeSet, HashMap, HashSet};

use chrono::Utc;
use diesel::prelude::*;
use diesel::upsert::excluded;

use equip_domain::ids::OrganizationId;
use equip_domain::import::events::StoredBefore;
use equip_domain::import::stored::{check_against_stored, StoredChanges};

use crate::import_facts::texts;
use equip_domain::import::{
    ExternalReference, ImportBatch, ImportError, ImportSummary, ReferenceKind,
};
use equip_domain::location::WarehouseOwner;

use crate::connection::{on_inner, DbConnection};
use crate::error::{DbError, DbResult};
use crate::events::Recorder;
use crate::models::{
    db_time, GroupRow, ItemRows, LevelRow, OfficeRow, PackageItemRow, PackageRow, PersonEmailRow,
    PersonRows, PricingRow, ReturnOrderItemRow, ReturnOrderRow, SkuRow, TagRow, WarehouseGrantRow,
    WarehouseRow,
};
use crate::schema::{
    group_members, groups, inventory_item_pricing, inventory_item_tags, inventory_items,
    inventory_levels, offices, order_lines, package_items, packages, people, person_emails,
    return_order_items, return_orders, skus, warehouse_grants, warehouses,
};
use crate::stock::StockTouched;

use crate::sql_builder::ID_CHUNK;

/// Bind parameters per statement: below SQLite's 32,766 and PostgreSQL's 65,535.
const MAX_BINDS: usize = 30_000;

/// Rows per multi-row `INSERT` for a table of `columns` columns.
const fn rows_per_statement(columns: usize) -> usize {
    let n = MAX_BINDS / columns;
    if n > 500 {
        500
    } else if n == 0 {
        1
    } else {
        n
    }
}

/// Imports of at least this many entries refresh the planner statistics
/// afterwards.
pub(crate) const ANALYZE_AFTER: usize = 1_000;

/// Tables an import writes.
const IMPORTED_TABLES: &str = "warehouses, warehouse_grants, offices, skus, packages, \
     package_items, people, \
     person_emails, inventory_items, inventory_item_pricing, inventory_item_tags, return_orders, \
     return_order_items, inventory_levels, inventory_listing, inventory_counts, groups, \
     group_members";

/// After a bulk import, refreshes the query planner's statistics (PostgreSQL:
/// `ANALYZE`; SQLite: `PRAGMA optimize`, and the search index's segments are
/// merged). Without it, PostgreSQL may keep
/// plans made while the tables were small, e.g. sequential scans for the id
/// lookups of the next import; and vacuums the listing table, so that
/// index-only scans serve deep pages. Failures are logged only: the import is
/// already committed.
pub(crate) fn refresh_statistics(c: &mut DbConnection) {
    let result = match &mut *c {
        // The search index's segments merged into one: a trigram phrase
        // query then reads one doclist per trigram, not one per segment
        // (docs/performance.md, "Inventory listing", "How the listing is
        // built", item 5).
        DbConnection::Sqlite(c) => diesel::sql_query("PRAGMA optimize")
            .execute(c)
            .and_then(|_| {
                diesel::sql_query(
                    "INSERT INTO inventory_search (inventory_search) VALUES ('optimize')",
                )
                .execute(c)
            }),
        DbConnection::Postgres(c) => {
            // VACUUM marks the listing's pages all-visible, so that deep pages
            // walk its index without visiting the table (index-only scans).
            diesel::sql_query(format!("ANALYZE {IMPORTED_TABLES}"))
                .execute(c)
                .and_then(|_| diesel::sql_query("VACUUM inventory_listing").execute(c))
        }
    };
    if let Err(e) = result {
        tracing::warn!("could not refresh planner statistics after the import: {e}");
    }
}

/// Suffix that parks a unique key (userName, slug) while rows swap keys.
const PARKED: &str = "#parked";

fn bad(entry: impl Into<String>, message: impl Into<String>) -> DbError {
    DbError::Import(ImportError::new(entry, message))
}

/// Reports progress about every 1,000 entries.
struct Progress<'a> {
    done: usize,
    reported: usize,
    report: &'a mut dyn FnMut(usize),
}

impl Progress<'_> {
    fn advance(&mut self, n: usize) {
        self.done += n;
        if self.done - self.reported >= 1000 {
            (self.report)(self.done);
            self.reported = self.done;
        }
    }

    fn finish(&mut self) {
        if self.done != self.reported {
            (self.report)(self.done);
            self.reported = self.done;
        }
    }
}

/// Multi-row upsert by id of `$rows` into `$table`, updating the listed columns
/// but never a row of another organization. Returns the rows written.
///
/// On PostgreSQL the `DO UPDATE … WHERE organization_id = excluded.organization_id`
/// guards against a row another organization stored after the checks (they do
/// not lock absent rows). SQLite needs no guard, and Diesel's SQLite batch
/// insert does not support it: the import's `BEGIN IMMEDIATE` transaction holds
/// the write lock from the checks to the commit.
macro_rules! upsert_by_id {
    ($c:expr, $table:ident, $rows:expr, [$($col:ident),+ $(,)?]) => {{
        let columns = [$(stringify!($col)),+].len() + 2;
        let mut written = 0usize;
        for chunk in $rows.chunks(rows_per_statement(columns)) {
            written += match &mut *$c {
                DbConnection::Sqlite(c) => diesel::insert_into($table::table)
                    .values(chunk)
                    .on_conflict($table::id)
                    .do_update()
                    .set(($($table::$col.eq(excluded($table::$col)),)+))
                    .execute(c),
                DbConnection::Postgres(c) => diesel::query_dsl::methods::FilterDsl::filter(
                    diesel::insert_into($table::table)
                        .values(chunk)
                        .on_conflict($table::id)
                        .do_update()
                        .set(($($table::$col.eq(excluded($table::$col)),)+)),
                    $table::organization_id.eq(excluded($table::organization_id)),
                )
                .execute(c),
            }?;
        }
        written
    }};
}

/// Multi-row plain insert of `$rows` into `$table` (`$columns` columns).
macro_rules! insert_all {
    ($c:expr, $table:ident, $rows:expr, $columns:expr) => {{
        for chunk in $rows.chunks(rows_per_statement($columns)) {
            on_inner!($c, |c| diesel::insert_into($table::table)
                .values(chunk)
                .execute(c))?;
        }
    }};
}

/// Deletes the rows of `$table` whose `$col` is among `$ids`.
macro_rules! delete_where_in {
    ($c:expr, $table:ident, $col:ident, $ids:expr) => {{
        for chunk in $ids.chunks(ID_CHUNK) {
            diesel::delete($table::table.filter($table::$col.eq_any(chunk))).execute($c)?;
        }
    }};
}

fn ids_of<T>(items: &[T], id: impl Fn(&T) -> String) -> Vec<String> {
    items.iter().map(id).collect()
}

/// Every row the batch writes, converted once.
struct Rows {
    warehouses: Vec<WarehouseRow>,
    grants: Vec<WarehouseGrantRow>,
    offices: Vec<OfficeRow>,
    skus: Vec<SkuRow>,
    packages: Vec<PackageRow>,
    package_items: Vec<PackageItemRow>,
    people: Vec<PersonRows>,
    items: Vec<ItemRows>,
    levels: Vec<LevelRow>,
    groups: Vec<GroupRow>,
    members: Vec<GroupMemberRow>,
}

/// One membership of an imported group.
#[derive(Insertable)]
#[diesel(table_name = group_members)]
struct GroupMemberRow {
    organization_id: String,
    group_id: String,
    person_id: String,
}

impl Rows {
    fn build(batch: &ImportBatch, org: &str) -> DbResult<Self> {
        let now = db_time(Utc::now());
        Ok(Self {
            warehouses: batch.warehouses.iter().map(WarehouseRow::from).collect(),
            grants: batch
                .warehouses
                .iter()
                .filter(|w| w.owner == WarehouseOwner::Shared)
                .map(|w| WarehouseGrantRow {
                    warehouse_id: w.id.to_string(),
                    organization_id: org.to_owned(),
                    granted_at: now,
                })
                .collect(),
            offices: batch.offices.iter().map(OfficeRow::from).collect(),
            skus: batch.skus.iter().map(SkuRow::from).collect(),
            packages: batch.packages.iter().map(PackageRow::from).collect(),
            package_items: batch
                .packages
                .iter()
                .flat_map(|p| {
                    let id = p.id.to_string();
                    p.items
                        .iter()
                        .enumerate()
                        .map(move |(i, item)| PackageItemRow::new(org, &id, i, item))
                })
                .collect::<DbResult<_>>()?,
            people: batch
                .people
                .iter()
                .map(PersonRows::from_domain)
                .collect::<DbResult<_>>()?,
            items: batch
                .inventory
                .iter()
                .map(ItemRows::from_domain)
                .collect::<DbResult<_>>()?,
            levels: batch.inventory_levels.iter().map(LevelRow::from).collect(),
            groups: batch
                .groups
                .iter()
                .map(|g| GroupRow::from(&g.group))
                .collect(),
            members: batch
                .groups
                .iter()
                .flat_map(|g| {
                    let group = g.group.id.to_string();
                    g.members.iter().map(move |m| GroupMemberRow {
                        organization_id: org.to_owned(),
                        group_id: group.clone(),
                        person_id: m.to_string(),
                    })
                })
                .collect(),
        })
    }
}

/// Writes `batch` for `organization`. Must run inside a write transaction.
pub(crate) fn run(
    c: &mut DbConnection,
    events: &mut Recorder,
    organization: OrganizationId,
    batch: &ImportBatch,
    external: &[ExternalReference],
    report: &mut dyn FnMut(usize),
) -> DbResult<ImportSummary> {
    let org = organization.to_string();
    check_external(c, &org, external)?;
    let rows = Rows::build(batch, &org)?;
    let facts = crate::import_facts::read(c, &org, batch)?;
    let changes = check_against_stored(organization, batch, &facts).map_err(DbError::Import)?;
    let before = crate::import_events::read(c, organization, batch, &changes)?;
    let mut progress = Progress {
        done: 0,
        reported: 0,
        report,
    };
    // Whose order the import may change: its people, and the members of
    // its groups before and after.
    let group_ids: Vec<String> = batch
        .groups
        .iter()
        .map(|g| g.group.id.to_string())
        .collect();
    let mut joiners: BTreeSet<String> = batch.people.iter().map(|p| p.id.to_string()).collect();
    joiners.extend(members_of(c, &group_ids)?);
    write(c, events, batch, &rows, &changes, &mut progress)?;
    keep_held_items(c, events, &org, batch, &before)?;
    let now = Utc::now();
    for event in equip_domain::import::events::import_events(batch, &before) {
        events.push(&org, now, event);
    }
    refresh_listing(c, &org, &rows, &changes)?;
    // New levels start in the state of their stock; stored ones, and the
    // places of the items, are restated as any write restates them.
    let new_levels: Vec<String> = batch
        .inventory_levels
        .iter()
        .filter(|l| !before.levels.contains_key(&l.id))
        .map(|l| l.id.to_string())
        .collect();
    crate::levels::initialize(c, &org, &new_levels)?;
    // Older backorders first: the stock the import brought, then the
    // orders of its joiners.
    crate::stock::after_write(c, events, &org, stock_touched(batch, &before), now)?;
    joiners.extend(members_of(c, &group_ids)?);
    let joiners: Vec<String> = joiners.into_iter().collect();
    crate::orders::provisioned(c, events, &org, &joiners, now)?;
    progress.finish();
    Ok(ImportSummary::of(batch))
}

/// Stored items of the batch that an order holds keep the status, reason
/// and holder the order gave them (`equip_domain::orders::held::as_imported`);
/// the rest of the import's fields stand.
fn keep_held_items(
    c: &mut DbConnection,
    events: &mut Recorder,
    org: &str,
    batch: &ImportBatch,
    before: &StoredBefore,
) -> DbResult<()> {
    let stored: Vec<String> = batch
        .inventory
        .iter()
        .filter(|i| before.items.contains_key(&i.id))
        .map(|i| i.id.to_string())
        .collect();
    let mut held: HashMap<String, String> = HashMap::new();
    for chunk in stored.chunks(ID_CHUNK) {
        held.extend(
            order_lines::table
                .filter(order_lines::organization_id.eq(org))
                .filter(order_lines::inventory_item_id.eq_any(chunk))
                .filter(order_lines::status.eq_any(["ALLOCATED", "SHIPPED"]))
                .select((
                    order_lines::inventory_item_id.assume_not_null(),
                    order_lines::status,
                ))
                .load::<(String, String)>(c)?,
        );
    }
    for imported in &batch.inventory {
        let (Some(line), Some(stored)) = (
            held.get(&imported.id.to_string()),
            before.items.get(&imported.id),
        ) else {
            continue;
        };
        let line = equip_domain::orders::LineStatus::parse(line).map_err(DbError::corrupt)?;
        if let Some(kept) = equip_domain::orders::held::as_imported(imported, stored, line) {
            crate::returns::write_item(c, org, imported, &kept, events)?;
        }
    }
    Ok(())
}

/// The members (ids) of the groups `ids`.
fn members_of(c: &mut DbConnection, ids: &[String]) -> DbResult<Vec<String>> {
    let mut out = Vec::new();
    for chunk in ids.chunks(ID_CHUNK) {
        out.extend(
            group_members::table
                .filter(group_members::group_id.eq_any(chunk))
                .select(group_members::person_id)
                .load::<String>(c)?,
        );
    }
    Ok(out)
}

/// The stock the import changed: the places its items counted at before
/// (stored ones) and count at after, and the places of its stored levels
/// (a changed minimum may cross).
fn stock_touched(batch: &ImportBatch, before: &StoredBefore) -> StockTouched {
    let mut touched = StockTouched::default();
    for item in &batch.inventory {
        crate::levels::touch(&mut touched, before.items.get(&item.id), Some(item));
    }
    for level in &batch.inventory_levels {
        if level.is_active() && before.levels.contains_key(&level.id) {
            touched
                .pairs
                .insert((level.sku_id.to_string(), level.warehouse_id.to_string()));
        }
    }
    touched
}

/// Rewrites the inventory listing rows the import changed: its items, and the
/// items of stored SKUs, people, warehouses and offices it may have renamed.
fn refresh_listing(
    c: &mut DbConnection,
    org: &str,
    rows: &Rows,
    changes: &StoredChanges,
) -> DbResult<()> {
    use crate::listing::{refresh, Scope};
    let items = ids_of(&rows.items, |i| i.item.id.clone());
    refresh(c, org, Scope::Items(&items))?;
    refresh(c, org, Scope::Skus(&texts(&changes.skus)))?;
    let mut assignees = texts(&changes.people);
    assignees.extend(texts(&changes.warehouses));
    assignees.extend(texts(&changes.offices));
    refresh(c, org, Scope::Assignees(&assignees))
}

/// Resolves references to rows outside the batch, one query per kind and
/// chunk of ids; fails on the first unresolved one in `external` order.
fn check_external(c: &mut DbConnection, org: &str, external: &[ExternalReference]) -> DbResult<()> {
    let mut wanted: HashMap<ReferenceKind, HashSet<String>> = HashMap::new();
    for r in external {
        wanted
            .entry(r.kind)
            .or_default()
            .insert(r.id.hyphenated().to_string());
    }
    let mut found: HashMap<ReferenceKind, HashSet<String>> = HashMap::new();
    for (kind, ids) in wanted {
        let ids: Vec<String> = ids.into_iter().collect();
        let mut present = HashSet::new();
        for chunk in ids.chunks(ID_CHUNK) {
            let rows: Vec<String> = match kind {
                ReferenceKind::Sku => skus::table
                    .filter(skus::organization_id.eq(org))
                    .filter(skus::id.eq_any(chunk))
                    .select(skus::id)
                    .load(c)?,
                ReferenceKind::Package => packages::table
                    .filter(packages::organization_id.eq(org))
                    .filter(packages::id.eq_any(chunk))
                    .select(packages::id)
                    .load(c)?,
                ReferenceKind::Person => people::table
                    .filter(people::organization_id.eq(org))
                    .filter(people::id.eq_any(chunk))
                    .select(people::id)
                    .load(c)?,
                // Group members: provisioned, and on PostgreSQL locked
                // (FOR SHARE) until the import commits, so that an
                // offboarding cannot pass between this check and the
                // membership's insert (as SCIM group writes do).
                ReferenceKind::Member => crate::membership::provisioned_people(c, org, chunk)?,
                ReferenceKind::Office => offices::table
                    .filter(offices::organization_id.eq(org))
                    .filter(offices::id.eq_any(chunk))
                    .select(offices::id)
                    .load(c)?,
                ReferenceKind::Warehouse => {
                    let granted = warehouse_grants::table
                        .filter(warehouse_grants::organization_id.eq(org))
                        .select(warehouse_grants::warehouse_id);
                    warehouses::table
                        .filter(warehouses::id.eq_any(chunk))
                        .filter(
                            warehouses::owner_organization_id.eq(org).or(
                                warehouses::owner_organization_id
                                    .is_null()
                                    .and(warehouses::id.eq_any(granted)),
                            ),
                        )
                        .select(warehouses::id)
                        .load(c)?
                }
            };
            present.extend(rows);
        }
        found.insert(kind, present);
    }
    for r in external {
        let id = r.id.hyphenated().to_string();
        if !found.get(&r.kind).is_some_and(|s| s.contains(&id)) {
            return Err(bad(
                r.entry.clone(),
                format!("{} {id} not found", r.kind.as_str()),
            ));
        }
    }
    Ok(())
}

/// Fails when an upsert skipped rows: its `WHERE` refused a row that another
/// organization stored after the checks (possible only on PostgreSQL, where
/// the checks do not lock absent rows).
fn all_written(kind: &str, written: usize, expected: usize) -> DbResult<()> {
    if written == expected {
        Ok(())
    } else {
        Err(bad(
            kind,
            "an id of this list was stored for another organization while importing; nothing was written",
        ))
    }
}

fn write(
    c: &mut DbConnection,
    events: &mut Recorder,
    batch: &ImportBatch,
    rows: &Rows,
    changes: &StoredChanges,
    progress: &mut Progress<'_>,
) -> DbResult<()> {
    // Warehouses, and grants for the shared ones. On PostgreSQL the WHERE
    // keeps the owner (see `upsert_by_id!`).
    let columns = 11;
    let mut written = 0;
    for chunk in rows.warehouses.chunks(rows_per_statement(columns)) {
        let changes = (
            warehouses::name.eq(excluded(warehouses::name)),
            warehouses::address_configured.eq(excluded(warehouses::address_configured)),
            warehouses::street1.eq(excluded(warehouses::street1)),
            warehouses::street2.eq(excluded(warehouses::street2)),
            warehouses::city.eq(excluded(warehouses::city)),
            warehouses::province.eq(excluded(warehouses::province)),
            warehouses::postal_code.eq(excluded(warehouses::postal_code)),
            warehouses::country_code.eq(excluded(warehouses::country_code)),
            warehouses::phone_number.eq(excluded(warehouses::phone_number)),
        );
        written += match &mut *c {
            DbConnection::Sqlite(c) => diesel::insert_into(warehouses::table)
                .values(chunk)
                .on_conflict(warehouses::id)
                .do_update()
                .set(changes)
                .execute(c),
            DbConnection::Postgres(c) => diesel::query_dsl::methods::FilterDsl::filter(
                diesel::insert_into(warehouses::table)
                    .values(chunk)
                    .on_conflict(warehouses::id)
                    .do_update()
                    .set(changes),
                warehouses::owner_organization_id
                    .eq(excluded(warehouses::owner_organization_id))
                    .or(warehouses::owner_organization_id
                        .is_null()
                        .and(excluded(warehouses::owner_organization_id).is_null())),
            )
            .execute(c),
        }?;
        progress.advance(chunk.len());
    }
    all_written("warehouses", written, rows.warehouses.len())?;
    for chunk in rows.grants.chunks(rows_per_statement(3)) {
        on_inner!(c, |c| diesel::insert_into(warehouse_grants::table)
            .values(chunk)
            .on_conflict((
                warehouse_grants::warehouse_id,
                warehouse_grants::organization_id
            ))
            .do_nothing()
            .execute(c))?;
    }

    let written = upsert_by_id!(c, offices, rows.offices, [name]);
    all_written("offices", written, rows.offices.len())?;
    progress.advance(rows.offices.len());

    let written = upsert_by_id!(
        c,
        skus,
        rows.skus,
        [
            title,
            category_code,
            category_name,
            vendor_code,
            vendor_name,
            vendor_sku
        ]
    );
    all_written("skus", written, rows.skus.len())?;
    progress.advance(rows.skus.len());

    // Packages: park changing slugs first so that two packages can swap slugs.
    for chunk in texts(&changes.packages_to_park).chunks(ID_CHUNK) {
        diesel::update(packages::table.filter(packages::id.eq_any(chunk)))
            .set(packages::slug.eq(packages::id.concat(PARKED)))
            .execute(c)?;
    }
    let written = upsert_by_id!(c, packages, rows.packages, [slug, name]);
    all_written("packages", written, rows.packages.len())?;
    // Their contents: an imported package's replace the stored ones.
    let package_ids = ids_of(&rows.packages, |p| p.id.clone());
    delete_where_in!(c, package_items, package_id, package_ids);
    insert_all!(c, package_items, rows.package_items, 7);
    progress.advance(rows.packages.len());

    // People, then their emails (replaced for stored people).
    for chunk in texts(&changes.people_to_park).chunks(ID_CHUNK) {
        diesel::update(people::table.filter(people::id.eq_any(chunk)))
            .set(people::user_name_lower.eq(people::id.concat(PARKED)))
            .execute(c)?;
    }
    let person_rows: Vec<_> = rows.people.iter().map(|p| p.person.clone()).collect();
    let written = upsert_by_id!(
        c,
        people,
        person_rows,
        [
            external_id,
            user_name,
            user_name_lower,
            given_name,
            family_name,
            display_name,
            phone_numbers,
            addresses,
            active,
            package_id,
            start_date,
            status,
            skip_user_activation,
            cpf_number,
            created_at,
            updated_at,
            version,
            formatted_name,
            middle_name,
            honorific_prefix,
            honorific_suffix,
            nick_name,
            title,
            user_type,
            preferred_language,
            locale,
            timezone,
            profile_url,
            profile_lists,
        ]
    );
    all_written("people", written, person_rows.len())?;
    drop(person_rows);
    delete_where_in!(c, person_emails, person_id, texts(&changes.people));
    let emails: Vec<PersonEmailRow> = rows
        .people
        .iter()
        .flat_map(|p| p.emails.iter().cloned())
        .collect();
    insert_all!(c, person_emails, emails, 7);
    // People the batch stores as no longer provisioned leave every group, as
    // offboarding does (the same step: their groups' versions and member
    // counts move).
    let at = Utc::now();
    for p in equip_domain::group::membership::leaving_every_group(&batch.people) {
        let (org, id) = (p.organization_id.to_string(), p.id.to_string());
        let groups = crate::membership::groups_of_person(c, &org, &id)?;
        let leaving = LeavingEveryGroup::of(p.id, groups, at);
        crate::membership::leave_groups(c, &org, &leaving)?;
        for event in leaving.events() {
            events.push(&org, at, event);
        }
    }
    progress.advance(batch.people.len());

    // Inventory items, in slices so that progress moves on big files.
    let stored_items: HashSet<String> = texts(&changes.items).into_iter().collect();
    for slice in rows.items.chunks(5_000) {
        write_items(c, slice, &stored_items)?;
        progress.advance(slice.len());
    }

    // Inventory levels: park active levels that change key or deactivate.
    for chunk in texts(&changes.levels_to_park).chunks(ID_CHUNK) {
        diesel::update(inventory_levels::table.filter(inventory_levels::id.eq_any(chunk)))
            .set(inventory_levels::deactivated_at.eq(Some(db_time(Utc::now()))))
            .execute(c)?;
    }
    let written = upsert_by_id!(
        c,
        inventory_levels,
        rows.levels,
        [
            sku_id,
            warehouse_id,
            minimum_quantity,
            target_quantity,
            created_at,
            deactivated_at,
        ]
    );
    all_written("inventoryLevels", written, rows.levels.len())?;
    progress.advance(rows.levels.len());

    // Groups: park changing names first so that two groups can swap names;
    // a stored group's version increases and its members are replaced.
    for chunk in texts(&changes.groups_to_park).chunks(ID_CHUNK) {
        diesel::update(groups::table.filter(groups::id.eq_any(chunk)))
            .set(groups::display_name_key.eq(groups::id.concat(PARKED)))
            .execute(c)?;
    }
    let written = upsert_by_id!(
        c,
        groups,
        rows.groups,
        [
            external_id,
            display_name,
            display_name_key,
            package_id,
            precedence,
            updated_at,
        ]
    );
    all_written("groups", written, rows.groups.len())?;
    for chunk in texts(&changes.groups).chunks(ID_CHUNK) {
        diesel::update(groups::table.filter(groups::id.eq_any(chunk)))
            .set(groups::version.eq(groups::version + 1))
            .execute(c)?;
    }
    delete_where_in!(c, group_members, group_id, texts(&changes.groups));
    insert_all!(c, group_members, rows.members, 3);
    // The imported groups' member counts, counted once here.
    let imported = ids_of(&rows.groups, |g| g.id.clone());
    for chunk in imported.chunks(ID_CHUNK) {
        let mut sql = crate::sql_builder::Sql::default();
        sql.push_sql(
            "UPDATE groups SET member_count = (SELECT COUNT(*) FROM group_members gm \
             WHERE gm.group_id = groups.id) WHERE id",
        )
        .push_any_of(chunk);
        sql.execute(c)?;
    }
    progress.advance(rows.groups.len());
    Ok(())
}

/// Writes a slice of items with their tags, pricing and active returns.
/// `stored_items`: the batch items already stored (their tags, pricing and
/// returns are replaced).
fn write_items(
    c: &mut DbConnection,
    slice: &[ItemRows],
    stored_items: &HashSet<String>,
) -> DbResult<()> {
    let item_rows: Vec<_> = slice.iter().map(|i| i.item.clone()).collect();
    let written = upsert_by_id!(
        c,
        inventory_items,
        item_rows,
        [
            sku_id,
            serial_number,
            imei,
            deploy_status,
            deploy_reason,
            condition,
            renewal_date,
            renewal_date_updated_by,
            billing_start_date,
            billing_end_date,
            procurement_method,
            assignee_type,
            assignee_id,
            assigned_at,
            description,
            erp_invoice_id,
            hold_start_date,
            unlock_date,
            itad_requested,
            device_program_status,
            device_program_last_sync_at,
            device_program_next_sync_at,
            supplied_by,
            created_at,
            updated_at,
        ]
    );
    all_written("inventory", written, item_rows.len())?;

    // Children of items that were already stored are replaced.
    let existing: Vec<String> = slice
        .iter()
        .map(|i| &i.item.id)
        .filter(|id| stored_items.contains(id.as_str()))
        .cloned()
        .collect();
    delete_where_in!(c, inventory_item_tags, item_id, existing);
    delete_where_in!(c, inventory_item_pricing, item_id, existing);
    for chunk in existing.chunks(ID_CHUNK) {
        diesel::update(
            return_order_items::table
                .filter(return_order_items::inventory_item_id.eq_any(chunk))
                .filter(return_order_items::active.eq(true)),
        )
        .set(return_order_items::active.eq(false))
        .execute(c)?;
    }

    let tags: Vec<TagRow> = slice.iter().flat_map(|i| i.tags.iter().cloned()).collect();
    insert_all!(c, inventory_item_tags, tags, 5);
    let pricing: Vec<PricingRow> = slice.iter().filter_map(|i| i.pricing.clone()).collect();
    insert_all!(c, inventory_item_pricing, pricing, 8);

    // Return orders (one order may cover several items: the last one wins),
    // then the items' lines, marked active.
    let mut orders: Vec<ReturnOrderRow> = Vec::new();
    let mut order_index: HashMap<String, usize> = HashMap::new();
    let mut lines: Vec<ReturnOrderItemRow> = Vec::new();
    for (order, line) in slice.iter().filter_map(|i| i.active_return.as_ref()) {
        match order_index.get(&order.id) {
            Some(&k) => orders[k] = order.clone(),
            None => {
                order_index.insert(order.id.clone(), orders.len());
                orders.push(order.clone());
            }
        }
        lines.push(line.clone());
    }
    let written = upsert_by_id!(
        c,
        return_orders,
        orders,
        [person_id, status, created_at, updated_at]
    );
    all_written("inventory", written, orders.len())?;
    let written = upsert_by_id!(
        c,
        return_order_items,
        lines,
        [
            return_order_id,
            inventory_item_id,
            status,
            active,
            retrieval_id,
            retrieval_type,
            retrieval_status,
            retrieval_updated_at,
            inbound_tracking_code,
            inbound_tracking_link,
            outbound_tracking_code,
            outbound_tracking_link,
            itad_requested,
            received_at,
            warehouse_id,
            closed_reason,
        ]
    );
    all_written("inventory", written, lines.len())?;
    Ok(())
}
