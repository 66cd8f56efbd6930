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

#[cfg(test)]
mod tests {
    use super::{run_import, ImportFailure};
    use crate::catalog::Package;
    use crate::ids::PackageId;
    use crate::import::ImportBatch;
    use crate::testing::{fixtures, InMemoryStore};

    #[test]
    fn the_in_memory_store_enforces_the_stored_rules_and_writes_nothing_on_refusal() {
        let store = InMemoryStore::default();
        let seeded = fixtures::seed(&store);
        let org = seeded.org.id;
        let package = |slug: &str| Package {
            id: PackageId::new(),
            organization_id: org,
            slug: slug.into(),
            name: slug.into(),
            items: Vec::new(),
        };
        let first = ImportBatch {
            packages: vec![package("eng")],
            ..ImportBatch::default()
        };
        assert!(run_import(&store, org, &first, &mut |_| {}).is_ok());
        // Another package taking the stored slug: refused, and nothing of the
        // batch is written.
        let second = ImportBatch {
            packages: vec![package("ops"), package("eng")],
            ..ImportBatch::default()
        };
        match run_import(&store, org, &second, &mut |_| {}) {
            Err(ImportFailure::Entry(e)) => assert_eq!(e.entry, "packages[1].slug"),
            other => panic!("expected a refused entry, got {other:?}"),
        }
        assert_eq!(store.state().packages.len(), 1);
    }
}
