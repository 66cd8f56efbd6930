//! A package's contents in the database (temporary: replaced by the
//! package work's module when it merges).

use std::collections::HashMap;

use diesel::prelude::*;

use equip_domain::catalog::PackageItem;

use crate::connection::DbConnection;
use crate::error::{DbError, DbResult};
use crate::models::parse_id;
use crate::schema::package_items;
use crate::sql_builder::ID_CHUNK;

/// The contents of the organization's packages among `package_ids`, by
/// package id, each in position order.
pub(crate) fn contents_of(
    c: &mut DbConnection,
    org: &str,
    package_ids: &[String],
) -> DbResult<HashMap<String, Vec<PackageItem>>> {
    let mut contents: HashMap<String, Vec<PackageItem>> = HashMap::new();
    for chunk in package_ids.chunks(ID_CHUNK) {
        let rows: Vec<(String, String, String, i32)> = package_items::table
            .filter(package_items::organization_id.eq(org))
            .filter(package_items::package_id.eq_any(chunk))
            .order((
                package_items::package_id.asc(),
                package_items::position.asc(),
            ))
            .select((
                package_items::package_id,
                package_items::category_code,
                package_items::sku_ids,
                package_items::quantity,
            ))
            .load(c)?;
        for (package, category_code, skus, quantity) in rows {
            let skus: Vec<String> = serde_json::from_str(&skus).map_err(DbError::corrupt)?;
            contents.entry(package).or_default().push(PackageItem {
                category_code,
                sku_ids: skus.iter().map(|s| parse_id(s)).collect::<DbResult<_>>()?,
                quantity: u8::try_from(quantity).map_err(DbError::corrupt)?,
            });
        }
    }
    Ok(contents)
}
