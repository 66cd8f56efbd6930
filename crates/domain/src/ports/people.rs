//! Port: People.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use crate::error::StoreResult;
use crate::ids::{OrganizationId, PersonId};
use crate::person::directory::{DirectoryPage, DirectoryQuery, OffboardingTimes};
use crate::person::Person;
use crate::person_query::{PersonPage, PersonQuery};

/// What a conditional write of a person found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PersonWrite {
    /// Written.
    Done,
    /// The person exists (and is provisioned) but has another version now.
    Stale {
        /// The stored version.
        current: i64,
    },
    /// No provisioned (ACTIVE) person with that id in the organization.
    Missing,
}

/// What starting an offboarding did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offboarding {
    /// Status set to OFFBOARDING; `returns` items got a PENDING return order.
    Started {
        /// Items deployed to the person that now have a return order.
        returns: usize,
    },
    /// The person has another version than the one expected.
    Stale {
        /// The stored version.
        current: i64,
    },
    /// No provisioned (ACTIVE) person with that id in the organization.
    Missing,
}

/// People.
pub trait PersonRepository: Send + Sync {
    /// Finds a person of the organization, whatever their status.
    ///
    /// # Errors
    /// Backend failures.
    fn find_person(
        &self,
        organization: OrganizationId,
        id: PersonId,
    ) -> StoreResult<Option<Person>>;

    /// One page of the organization's provisioned (ACTIVE) people matching the
    /// query, and how many match in all. Filtering, ordering and paging happen in
    /// the store.
    ///
    /// # Errors
    /// Backend failures.
    fn list_people(
        &self,
        organization: OrganizationId,
        query: &PersonQuery,
    ) -> StoreResult<PersonPage>;

    /// One page of the organization's people whatever their status (the
    /// directory): those passing the query's filters
    /// ([`DirectoryQuery::matches`]), in
    /// [`crate::person::directory::directory_order`], and how many pass in
    /// all. Filtering, ordering and paging happen in the store.
    ///
    /// # Errors
    /// Backend failures.
    fn list_directory(
        &self,
        organization: OrganizationId,
        query: &DirectoryQuery,
    ) -> StoreResult<DirectoryPage>;

    /// When the offboarding of each of `people` started and completed; a
    /// person whose offboarding has not started (or who is not of the
    /// organization) is absent.
    ///
    /// # Errors
    /// Backend failures.
    fn offboarding_times(
        &self,
        organization: OrganizationId,
        people: &[PersonId],
    ) -> StoreResult<HashMap<PersonId, OffboardingTimes>>;

    /// Inserts a new person with their emails.
    ///
    /// # Errors
    /// [`crate::StoreError::Duplicate`] when another provisioned person of the
    /// organization has the same userName (case-insensitively), enforced by the
    /// store even under concurrent inserts; `MissingReference` for a package of
    /// another organization; backend failures.
    fn insert_person(&self, person: &Person) -> StoreResult<()>;

    /// Inserts new people in order, each written or refused on its own as by
    /// [`Self::insert_person`]: one result per person. A store may write them
    /// in fewer transactions (SCIM Bulk and CSV creates); this default writes
    /// one at a time ([`insert_one_at_a_time`]).
    ///
    /// A failure that is not the person's own (the database unavailable, the
    /// disk full) may refuse every person of the call with it; after
    /// [`UNAVAILABLE_IN_A_ROW`] people found the database unavailable, the
    /// rest are not attempted and refused as unavailable too.
    fn insert_people(&self, people: &[Person]) -> Vec<StoreResult<()>> {
        insert_one_at_a_time(people, |p| self.insert_person(p))
    }

    /// Replaces a provisioned person (all fields and emails) with `person` if
    /// their stored version is still the one of `current`, the person as the
    /// caller read them; `person.version` is the new one. Records the
    /// change's event (the fields that differ from `current`).
    ///
    /// # Errors
    /// As [`PersonRepository::insert_person`].
    fn update_person(&self, current: &Person, person: &Person) -> StoreResult<PersonWrite>;

    /// Starts offboarding a provisioned person in one transaction: status
    /// OFFBOARDING, version increased, a return order (PENDING) for every
    /// item DEPLOYED to them that has no active return yet, and they leave
    /// every group (each group's version increases). With
    /// `expected_version`, only if the stored version is that one. Decided
    /// by [`crate::person::offboarding`] (`admit`, then `plan`) over the
    /// facts the store reads in its transaction; the store writes the plan.
    ///
    /// # Errors
    /// Backend failures.
    fn offboard_person(
        &self,
        organization: OrganizationId,
        id: PersonId,
        expected_version: Option<i64>,
        at: DateTime<Utc>,
    ) -> StoreResult<Offboarding>;
}

/// Writes found the database unavailable this many times in a row: it is
/// gone (one is a lost connection, one more a second termination right
/// after; each waited for the pool's time-out), and what is left of a
/// request is not attempted (SCIM Bulk, [`PersonRepository::insert_people`]).
pub const UNAVAILABLE_IN_A_ROW: usize = 3;

/// `insert` for each person in order, until [`UNAVAILABLE_IN_A_ROW`] of them
/// found the database unavailable: the rest are refused as not attempted.
pub fn insert_one_at_a_time(
    people: &[Person],
    insert: impl Fn(&Person) -> StoreResult<()>,
) -> Vec<StoreResult<()>> {
    let mut unavailable = 0;
    people
        .iter()
        .map(|person| {
            if unavailable >= UNAVAILABLE_IN_A_ROW {
                return Err(crate::StoreError::Unavailable(
                    "not attempted: the database was unavailable for the writes before".into(),
                ));
            }
            let result = insert(person);
            match &result {
                Err(crate::StoreError::Unavailable(_)) => unavailable += 1,
                _ => unavailable = 0,
            }
            result
        })
        .collect()
}
