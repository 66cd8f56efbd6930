//! Use cases of the people directory (`GET /api/v1/people`,
//! `GET /api/v1/people/{id}`): every person of the organization whatever
//! their status, each with their effective package and offboarding times
//! ([`crate::person::directory`]).

use crate::error::DomainError;
use crate::ids::{OrganizationId, PersonId};
use crate::person::directory::{DirectoryEntry, DirectoryQuery, RawDirectoryQuery};
use crate::person::Person;
use crate::ports::{GroupRepository, PersonRepository};
use crate::services::groups::belonging_of;

/// The ports the directory needs (groups: a person's package may come from
/// a group).
pub trait DirectoryPorts: PersonRepository + GroupRepository {}
impl<T: PersonRepository + GroupRepository> DirectoryPorts for T {}

/// A page of the directory and the query it answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectoryListing {
    /// The validated query.
    pub query: DirectoryQuery,
    /// The page's people, in the directory's order.
    pub entries: Vec<DirectoryEntry>,
    /// People matching the filters, over all pages.
    pub total_records: u64,
}

/// The people `people` as the directory shows them: their effective
/// package and offboarding times, read once for them all.
fn entries(
    ports: &dyn DirectoryPorts,
    organization: OrganizationId,
    people: Vec<Person>,
) -> Result<Vec<DirectoryEntry>, DomainError> {
    let refs: Vec<&Person> = people.iter().collect();
    let mut belonging = belonging_of(ports, organization, &refs)?;
    let ids: Vec<PersonId> = people.iter().map(|p| p.id).collect();
    let mut times = ports.offboarding_times(organization, &ids)?;
    Ok(people
        .into_iter()
        .map(|person| DirectoryEntry {
            effective_package: belonging
                .remove(&person.id)
                .and_then(|b| b.effective_package),
            offboarding: times.remove(&person.id).unwrap_or_default(),
            person,
        })
        .collect())
}

/// A page of the organization's people, whatever their status.
///
/// # Errors
/// [`DomainError::Invalid`] naming a bad parameter; store failures.
pub fn list_directory(
    ports: &dyn DirectoryPorts,
    organization: OrganizationId,
    raw: &RawDirectoryQuery,
) -> Result<DirectoryListing, DomainError> {
    let query = DirectoryQuery::parse(raw)?;
    let page = ports.list_directory(organization, &query)?;
    Ok(DirectoryListing {
        entries: entries(ports, organization, page.people)?,
        total_records: page.total_records,
        query,
    })
}

/// The person `id` of the organization, whatever their status.
///
/// # Errors
/// [`DomainError::NotFound`] (`person`) when unknown or another
/// organization's; store failures.
pub fn get_directory_entry(
    ports: &dyn DirectoryPorts,
    organization: OrganizationId,
    id: PersonId,
) -> Result<DirectoryEntry, DomainError> {
    let person = ports
        .find_person(organization, id)?
        .ok_or_else(|| DomainError::not_found("person", "person not found"))?;
    entries(ports, organization, vec![person])?
        .pop()
        .ok_or_else(|| DomainError::not_found("person", "person not found"))
}
