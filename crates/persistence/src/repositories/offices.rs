//! [`OfficeRepository`] for [`Store`].

use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::ids::{OfficeId, OrganizationId};
use equip_domain::location::Office;
use equip_domain::ports::OfficeRepository;

use crate::models::OfficeRow;
use crate::schema::offices;
use crate::store::Store;

impl OfficeRepository for Store {
    fn find_office(
        &self,
        organization: OrganizationId,
        id: OfficeId,
    ) -> StoreResult<Option<Office>> {
        let org = organization.to_string();
        let id = id.to_string();
        self.read("office", |c| {
            offices::table
                .filter(offices::id.eq(&id))
                .filter(offices::organization_id.eq(&org))
                .select(OfficeRow::as_select())
                .first(c)
                .optional()?
                .map(OfficeRow::into_domain)
                .transpose()
        })
    }

    fn offices(&self, organization: OrganizationId) -> StoreResult<Vec<Office>> {
        let org = organization.to_string();
        self.read("office", |c| {
            offices::table
                .filter(offices::organization_id.eq(&org))
                .select(OfficeRow::as_select())
                .load(c)?
                .into_iter()
                .map(OfficeRow::into_domain)
                .collect()
        })
    }
}
