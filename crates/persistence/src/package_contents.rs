//! A package's contents in the database (docs/orders.md, "Package
//! contents"): the `package_items` rows of packages, read for the packages
//! the store answers and for the provisioning writers that order what a
//! package holds, and replaced whole when a package's contents change.
//!
//! Each entry is one row: its `position` in the contents, its category, its
//! preferred SKUs (a JSON array of ids, in order) and its quantity.

use std::collections::HashMap;

use diesel::prelude::*;

use equip_domain::catalog::{Package, PackageItem};

use crate::connection::{on_inner, DbConnection};
use crate::error::DbResult;
use crate::models::PackageItemRow;
use crate::schema::{package_items, packages};
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
