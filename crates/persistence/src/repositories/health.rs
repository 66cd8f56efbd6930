//! [`HealthCheck`] for [`Store`].

use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::ports::HealthCheck;

use crate::connection::on_inner;

use crate::store::Store;

impl HealthCheck for Store {
    fn ping(&self) -> StoreResult<()> {
        self.read("database", |c| {
            on_inner!(c, |c| diesel::sql_query("SELECT 1").execute(c))?;
            Ok(())
        })
    }
}
