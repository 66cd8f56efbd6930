//! [`BackorderRepository`] for [`Store`]: the background sweep over
//! BACKORDERED lines whose category has AVAILABLE stock.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::Text;
use equip_domain::error::StoreResult;
use equip_domain::ports::BackorderRepository;

use crate::events::recorded;
use crate::stock::StockTouched;
use crate::store::Store;

/// An organization's category with a backorder stock could fill, and one
/// of its AVAILABLE SKUs.
#[derive(QueryableByName)]
struct Waiting {
    #[diesel(sql_type = Text)]
    organization_id: String,
    #[diesel(sql_type = Text)]
    sku_id: String,
}

const WAITING: &str = "SELECT ol.organization_id AS organization_id, \
     MIN(i.sku_id) AS sku_id \
     FROM order_lines ol \
     JOIN skus s ON s.organization_id = ol.organization_id AND s.category_code = ol.category_code \
     JOIN inventory_items i ON i.organization_id = s.organization_id AND i.sku_id = s.id \
     WHERE ol.status = 'BACKORDERED' AND i.deploy_status = 'AVAILABLE' \
       AND i.assignee_type = 'WAREHOUSE' \
     GROUP BY ol.organization_id, ol.category_code";

impl BackorderRepository for Store {
    fn fill_waiting_backorders(&self, at: DateTime<Utc>) -> StoreResult<usize> {
        let waiting: Vec<Waiting> =
            self.read("order", |c| Ok(diesel::sql_query(WAITING).load(c)?))?;
        let mut filled = 0;
        for w in waiting {
            filled += self.with("order", "", |c| {
                let _writer = self.sqlite_writer(c);
                recorded(c, &self.actor, |c, events| {
                    let mut touched = StockTouched::default();
                    touched.gained.insert(w.sku_id.clone());
                    let allocated = crate::orders::fill_backorders(
                        c,
                        events,
                        &w.organization_id,
                        &mut touched,
                        at,
                    )?;
                    crate::stock::after_write(c, events, &w.organization_id, touched, at)?;
                    Ok(allocated)
                })
            })?;
            self.let_other_writers_in();
        }
        Ok(filled)
    }
}
