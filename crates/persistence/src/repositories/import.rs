//! [`ImportRepository`] for [`Store`].

use equip_domain::error::StoreResult;
use equip_domain::ids::OrganizationId;
use equip_domain::import::{ExternalReference, ImportBatch, ImportError, ImportSummary};
use equip_domain::ports::ImportRepository;

use crate::error::DbError;
use crate::events::recorded;

use crate::store::Store;

impl ImportRepository for Store {
    fn import_batch(
        &self,
        organization: OrganizationId,
        batch: &ImportBatch,
        external: &[ExternalReference],
        progress: &mut dyn FnMut(usize),
    ) -> StoreResult<Result<ImportSummary, ImportError>> {
        let mut conn = self
            .conn()
            .map_err(|e| e.into_store("import", "a row of the import clashes with a stored row"))?;
        let result = recorded(&mut conn, &self.actor, |c, events| {
            crate::import::run(c, events, organization, batch, external, progress)
        });
        match result {
            Ok(summary) => {
                if batch.len() >= crate::import::ANALYZE_AFTER {
                    crate::import::refresh_statistics(&mut conn);
                }
                Ok(Ok(summary))
            }
            Err(DbError::Import(e)) => Ok(Err(e)),
            Err(other) => {
                Err(other.into_store("import", "a row of the import clashes with a stored row"))
            }
        }
    }
}
