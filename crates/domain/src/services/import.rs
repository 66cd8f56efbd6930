//! Running an import: validate the batch, then hand it to the store.

use crate::error::DomainError;
use crate::ids::OrganizationId;
use crate::import::{ImportBatch, ImportError, ImportSummary};
use crate::ports::{ImportRepository, OrganizationRepository};

/// The ports an import needs.
pub trait ImportPorts: ImportRepository + OrganizationRepository {}
impl<T: ImportRepository + OrganizationRepository> ImportPorts for T {}

/// Why an import failed; in every case nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ImportFailure {
    /// A bad entry.
    #[error(transparent)]
    Entry(#[from] ImportError),
    /// Unknown organization or a store failure.
    #[error(transparent)]
    Domain(#[from] DomainError),
}

/// Validates `batch` for `organization` and writes it atomically.
///
/// # Errors
/// [`ImportFailure::Entry`] names the first bad entry; nothing was written.
pub fn run_import(
    ports: &dyn ImportPorts,
    organization: OrganizationId,
    batch: &ImportBatch,
    progress: &mut dyn FnMut(usize),
) -> Result<ImportSummary, ImportFailure> {
    let org = ports
        .find_organization(organization)
        .map_err(DomainError::from)?
        .ok_or_else(|| {
            DomainError::not_found(
                "organization",
                format!("organization {organization} not found"),
            )
        })?;
    let external = batch.validate(&org)?;
    let summary = ports
        .import_batch(organization, batch, &external, progress)
        .map_err(DomainError::from)??;
    Ok(summary)
}
