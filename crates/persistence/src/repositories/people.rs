//! [`PersonRepository`] for [`Store`].

use diesel::prelude::*;

use equip_domain::error::StoreResult;
use equip_domain::ids::{OrganizationId, PersonId};
use equip_domain::person::Person;
use equip_domain::ports::PersonRepository;

use crate::models::{PersonEmailRow, PersonRow, PersonRows};
use crate::schema::{people, person_emails};

use crate::store::Store;

impl PersonRepository for Store {
    fn find_person(
        &self,
        organization: OrganizationId,
        id: PersonId,
    ) -> StoreResult<Option<Person>> {
        let org = organization.to_string();
        let id = id.to_string();
        self.with("person", "", |c| {
            c.transaction(|c| {
                let Some(person) = people::table
                    .filter(people::id.eq(&id))
                    .filter(people::organization_id.eq(&org))
                    .select(PersonRow::as_select())
                    .first(c)
                    .optional()?
                else {
                    return Ok(None);
                };
                let emails = person_emails::table
                    .filter(person_emails::person_id.eq(&id))
                    .filter(person_emails::organization_id.eq(&org))
                    .order(person_emails::position.asc())
                    .select(PersonEmailRow::as_select())
                    .load(c)?;
                PersonRows { person, emails }.into_domain().map(Some)
            })
        })
    }
}
