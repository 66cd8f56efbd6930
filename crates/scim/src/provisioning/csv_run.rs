//! A CSV upload of users run as Bulk operations: the file is checked whole
//! (UTF-8, header, at most 50,000 rows) before any row runs, then converted
//! row by row ([`crate::csv`]) and run in chunks of the Bulk limit through
//! the same [`BulkRun`] as a Bulk request. The organization's packages are
//! read once per upload to resolve `package_slug`.

use std::collections::HashMap;

use super::bulk_run::{BulkAnswer, BulkRun};
use super::Provisioning;
use crate::bulk::{BulkMethod, BulkOperation, MAX_OPERATIONS};
use crate::csv::{CsvRow, CsvUpload};
use crate::error::ScimError;

/// The method of a converted row (`POST` or `PUT`).
fn method(name: &str) -> BulkMethod {
    BulkMethod::parse(name).unwrap_or(BulkMethod::Post)
}

/// Runs the CSV `bytes` for the organization of `provisioning`: the
/// BulkResponse (JSON text) of every row; a run no longer wanted (its time
/// limit reached, its client gone) reports the rows it did not run with 503
/// ([`BulkAnswer::stopped`]).
///
/// # Errors
/// 400 / 413 for a file refused whole (nothing has run then); a store
/// failure reading the packages.
pub fn run_csv(provisioning: Provisioning<'_>, bytes: &[u8]) -> Result<BulkAnswer, ScimError> {
    let upload = CsvUpload::parse(bytes)?;
    let packages: HashMap<String, String> = provisioning
        .ports
        .packages(provisioning.org)?
        .into_iter()
        .map(|p| (p.slug, p.id.to_string()))
        .collect();
    let resolve = |slug: &str| packages.get(slug).cloned();
    let mut bulk = BulkRun::new(provisioning, None).without_references();
    let mut rows = upload.operations(resolve).peekable();
    // Chunks of the Bulk limit: each chunk's operations are converted and
    // then run, so at most one chunk of converted rows is in memory.
    while rows.peek().is_some() {
        let chunk: Vec<_> = rows.by_ref().take(MAX_OPERATIONS).collect();
        for row in chunk {
            match row {
                CsvRow::Operation(op) => bulk.execute(BulkOperation {
                    method: method(op.method),
                    bulk_id: Some(op.bulk_id),
                    path: op.path,
                    version: None,
                    data: Some(op.data),
                }),
                CsvRow::Invalid(row) => {
                    let error = row.error_body();
                    bulk.record_failure(method(row.method), Some(row.bulk_id), error);
                }
            }
        }
    }
    Ok(bulk.finish())
}
