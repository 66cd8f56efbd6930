//! [`WriteSessions`] for [`Store`] (see [`Store::session`]).

use equip_domain::error::{StoreError, StoreResult};
use equip_domain::ports::WriteSessions;

use crate::store::Store;

impl WriteSessions for Store {
    fn write_session(&self) -> StoreResult<Self> {
        self.session()
            .map_err(|e| StoreError::Unavailable(e.to_string()))
    }
}
