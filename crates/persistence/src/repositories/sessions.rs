//! [`WriteSessions`] and [`Durability`] for [`Store`] (see [`Store::session`]).

use equip_domain::error::{StoreError, StoreResult};
use equip_domain::ports::{Durability, WriteSessions};

use crate::store::Store;

impl WriteSessions for Store {
    fn write_session(&self) -> StoreResult<Self> {
        self.session()
            .map_err(|e| StoreError::Unavailable(e.to_string()))
    }
}

impl Durability for Store {
    fn make_durable(&self) -> StoreResult<()> {
        self.flush()
    }
}
