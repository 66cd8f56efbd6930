//! [`OrganizationRepository`] for [`Store`].

use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::ids::OrganizationId;
use equip_domain::organization::Organization;
use equip_domain::ports::OrganizationRepository;

use crate::models::OrganizationRow;
use crate::schema::organizations;

use crate::store::Store;

impl OrganizationRepository for Store {
    fn insert_organization(&self, organization: &Organization) -> StoreResult<()> {
        let row = OrganizationRow::from(organization);
        self.with("organization", "an organization with this id exists", |c| {
            diesel::insert_into(organizations::table)
                .values(&row)
                .execute(c)?;
            Ok(())
        })
    }

    fn find_organization(&self, id: OrganizationId) -> StoreResult<Option<Organization>> {
        self.read("organization", |c| {
            organizations::table
                .find(id.to_string())
                .select(OrganizationRow::as_select())
                .first(c)
                .optional()?
                .map(OrganizationRow::into_domain)
                .transpose()
        })
    }

    fn count_organizations(&self) -> StoreResult<u64> {
        self.read("organization", |c| {
            let n: i64 = organizations::table.count().get_result(c)?;
            Ok(u64::try_from(n).unwrap_or(0))
        })
    }

    fn list_organizations(&self) -> StoreResult<Vec<Organization>> {
        self.read("organization", |c| {
            organizations::table
                .order((organizations::created_at.asc(), organizations::id.asc()))
                .select(OrganizationRow::as_select())
                .load(c)?
                .into_iter()
                .map(OrganizationRow::into_domain)
                .collect()
        })
    }
}
