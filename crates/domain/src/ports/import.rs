//! Port: Atomic bulk import.

use crate::error::StoreResult;
use crate::ids::OrganizationId;
use crate::import::{ExternalReference, ImportBatch, ImportError, ImportSummary};

/// Atomic bulk import.
pub trait ImportRepository: Send + Sync {
    /// Writes a validated batch for `organization` in one transaction, upserting by
    /// id, after checking `external` references against stored rows. Calls
    /// `progress` with the number of entries written so far.
    ///
    /// # Errors
    /// `Ok(Err(ImportError))` names the bad entry (an unresolved reference, an id
    /// of another organization, a uniqueness clash with stored rows); nothing was
    /// written. `Err` is a backend failure; nothing was written either.
    fn import_batch(
        &self,
        organization: OrganizationId,
        batch: &ImportBatch,
        external: &[ExternalReference],
        progress: &mut dyn FnMut(usize),
    ) -> StoreResult<Result<ImportSummary, ImportError>>;
}
