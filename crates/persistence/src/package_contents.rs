//! A package's contents in the database (docs/orders.md, "Package
//! contents"): the `package_items` rows of packages, read for the packages
//! the store answers and for the provisioning writers that order what a
//! package holds, and replaced whole when a package's contents change.
//!
//! Each entry is one row: its `position` in the contents, its category, its
//! preferred SKUs (a JSON array of ids, in order) and its quantity.

use std::collections::HashMap;

use diesel::prelude::*;

use equip_domain::catalog::{CatalogFacts, Package, PackageItem};
use equip_domain::ids::SkuId;

use crate::connection::{on_inner, DbConnection};
use crate::error::DbResult;
use crate::models::parse_id;
use crate::models::PackageItemRow;
use crate::schema::{package_items, packages, skus};
use crate::sql_builder::ID_CHUNK;

/// The contents of the organization's packages among `package_ids`, by
/// package id, each in position order. A package without contents, of
/// another organization or unknown has no entry in the map.
pub(crate) fn contents_of(
    c: &mut DbConnection,
    org: &str,
    package_ids: &[String],
) -> DbResult<HashMap<String, Vec<PackageItem>>> {
    let mut contents: HashMap<String, Vec<PackageItem>> = HashMap::new();
    for chunk in package_ids.chunks(ID_CHUNK) {
        let rows: Vec<PackageItemRow> = package_items::table
            .filter(package_items::organization_id.eq(org))
            .filter(package_items::package_id.eq_any(chunk))
            .order((
                package_items::package_id.asc(),
                package_items::position.asc(),
            ))
            .select(PackageItemRow::as_select())
            .load(c)?;
        for row in rows {
            let package = row.package_id.clone();
            contents
                .entry(package)
                .or_default()
                .push(row.into_domain()?);
        }
    }
    Ok(contents)
}

/// `packages` (of the organization) with their contents filled in.
pub(crate) fn with_contents(
    c: &mut DbConnection,
    org: &str,
    mut packages: Vec<Package>,
) -> DbResult<Vec<Package>> {
    let ids: Vec<String> = packages.iter().map(|p| p.id.to_string()).collect();
    let mut contents = contents_of(c, org, &ids)?;
    for package in &mut packages {
        package.items = contents.remove(&package.id.to_string()).unwrap_or_default();
    }
    Ok(packages)
}

/// Replaces the contents of the organization's package `package` with
/// `items` (rows of the old contents deleted, the new ones inserted in
/// order). Runs inside the caller's write transaction, which must hold the
/// package (see [`lock_package`]) and have validated `items`.
pub(crate) fn replace_contents(
    c: &mut DbConnection,
    org: &str,
    package: &str,
    items: &[PackageItem],
) -> DbResult<()> {
    diesel::delete(
        package_items::table
            .filter(package_items::organization_id.eq(org))
            .filter(package_items::package_id.eq(package)),
    )
    .execute(c)?;
    if items.is_empty() {
        return Ok(());
    }
    let rows = items
        .iter()
        .enumerate()
        .map(|(i, item)| PackageItemRow::new(org, package, i, item))
        .collect::<DbResult<Vec<_>>>()?;
    // At most 20 rows of 7 columns: one statement on both backends.
    on_inner!(c, |c| diesel::insert_into(package_items::table)
        .values(&rows)
        .execute(c))?;
    Ok(())
}

/// Whether the organization has the package `package`, its row locked until
/// the transaction ends on PostgreSQL (`FOR UPDATE`; on SQLite the write
/// transaction already holds the database), so that two replacements of its
/// contents follow one another.
pub(crate) fn lock_package(c: &mut DbConnection, org: &str, package: &str) -> DbResult<bool> {
    let row = packages::table
        .filter(packages::id.eq(package))
        .filter(packages::organization_id.eq(org))
        .select(packages::id);
    let found: Option<String> = match c {
        DbConnection::Postgres(pg) => row.for_update().first(pg).optional()?,
        DbConnection::Sqlite(lite) => row.first(lite).optional()?,
    };
    Ok(found.is_some())
}

/// The [`CatalogFacts`] of the organization for the SKUs `sku_ids` and the
/// categories `categories` (what `catalog::catalog_questions` or the
/// import's `StoredKeys` ask): the organization's SKUs among them with their
/// category, and those of the categories some SKU of the organization has.
pub(crate) fn catalog_facts(
    c: &mut DbConnection,
    org: &str,
    sku_ids: &[SkuId],
    categories: &[String],
) -> DbResult<CatalogFacts> {
    let sku_ids: Vec<String> = sku_ids.iter().map(ToString::to_string).collect();
    let mut facts = CatalogFacts::default();
    for chunk in sku_ids.chunks(ID_CHUNK) {
        let rows: Vec<(String, String)> = skus::table
            .filter(skus::organization_id.eq(org))
            .filter(skus::id.eq_any(chunk))
            .select((skus::id, skus::category_code))
            .load(c)?;
        for (id, category) in rows {
            facts.sku_categories.insert(parse_id(&id)?, category);
        }
    }
    for chunk in categories.chunks(ID_CHUNK) {
        let found: Vec<String> = skus::table
            .filter(skus::organization_id.eq(org))
            .filter(skus::category_code.eq_any(chunk))
            .select(skus::category_code)
            .distinct()
            .load(c)?;
        facts.categories.extend(found);
    }
    Ok(facts)
}
