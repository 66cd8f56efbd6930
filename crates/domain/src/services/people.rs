//! Use cases of people provisioning: create, read, list, replace and start
//! offboarding, with the rules of [`crate::person`] and the uniqueness the store
//! enforces.

use chrono::{DateTime, Utc};

use crate::error::{DomainError, StoreError};
use crate::ids::{OrganizationId, PersonId};
use crate::person::{Person, PersonStatus};
use crate::person_query::{PersonPage, PersonQuery, PAGE_SIZE_LIMIT};
use crate::ports::{Offboarding, PersonRepository, PersonWrite};

/// The stored version differs from the one the caller expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the person was changed meanwhile (version {current})")]
pub struct VersionMismatch {
    /// The stored version.
    pub current: i64,
}

fn not_found() -> DomainError {
    DomainError::not_found("user", "user not found")
}

fn store_error(err: StoreError) -> DomainError {
    match err {
        StoreError::Duplicate { .. } => DomainError::conflict(
            "userName",
            "another user of the organization already has this userName",
        ),
        StoreError::MissingReference { .. } => {
            DomainError::not_found("packageId", "package not found in the organization")
        }
        other => other.into(),
    }
}

/// Creates a provisioned person (status ACTIVE, version 1, created now).
///
/// # Errors
/// `Invalid` for a broken rule (userName not the primary email, two primary
/// emails, CPF missing or wrong for Brazil); `NotFound` (`packageId`) for a
/// package outside the organization; `Conflict` (`userName`) when another
/// provisioned person has the userName, case-insensitively.
pub fn create_person(
    ports: &dyn PersonRepository,
    mut person: Person,
    now: DateTime<Utc>,
) -> Result<Person, DomainError> {
    prepare_new(&mut person, now)?;
    ports.insert_person(&person).map_err(store_error)?;
    Ok(person)
}

/// A new person as stored: active, version 1, created `now`, with a
/// primary email; checked against the rules.
fn prepare_new(person: &mut Person, now: DateTime<Utc>) -> Result<(), DomainError> {
    person.status = PersonStatus::Active;
    person.created_at = now;
    person.updated_at = now;
    person.version = 1;
    person.default_primary_email();
    person.validate()
}

/// Creates `people` in order, each as [`create_person`] would (one result
/// each, in order), letting the store write them together
/// ([`PersonRepository::insert_people`]): SCIM Bulk and CSV creates. Each
/// person is created at its own `now()`, so that they list in the order
/// given.
pub fn create_people(
    ports: &dyn PersonRepository,
    people: Vec<Person>,
    now: &dyn Fn() -> DateTime<Utc>,
) -> Vec<Result<Person, DomainError>> {
    let mut results: Vec<Option<Result<Person, DomainError>>> = Vec::with_capacity(people.len());
    let mut valid = Vec::with_capacity(people.len());
    for mut person in people {
        match prepare_new(&mut person, now()) {
            Ok(()) => {
                valid.push(person);
                results.push(None);
            }
            Err(e) => results.push(Some(Err(e))),
        }
    }
    let mut written = ports.insert_people(&valid).into_iter();
    let mut valid = valid.into_iter();
    results
        .into_iter()
        .map(|result| match result {
            Some(refused) => refused,
            None => match (valid.next(), written.next()) {
                (Some(person), Some(Ok(()))) => Ok(person),
                (_, Some(Err(e))) => Err(store_error(e)),
                // A store that answered fewer results than people: not written.
                (_, None) | (None, Some(Ok(()))) => Err(store_error(StoreError::Backend(
                    "the store did not answer for every person".into(),
                ))),
            },
        })
        .collect()
}

/// A provisioned person of the organization.
///
/// # Errors
/// `NotFound` when unknown, of another organization, or offboarding.
pub fn get_person(
    ports: &dyn PersonRepository,
    organization: OrganizationId,
    id: PersonId,
) -> Result<Person, DomainError> {
    ports
        .find_person(organization, id)?
        .filter(Person::is_provisioned)
        .ok_or_else(not_found)
}

/// A page of provisioned people; the page size is capped at [`PAGE_SIZE_LIMIT`]
/// and the start index is at least 1.
///
/// # Errors
/// Store failures.
pub fn list_people(
    ports: &dyn PersonRepository,
    organization: OrganizationId,
    mut query: PersonQuery,
) -> Result<PersonPage, DomainError> {
    if let Some(filter) = &query.filter {
        filter.validate()?;
    }
    query.count = query.count.min(PAGE_SIZE_LIMIT);
    query.start_index = query.start_index.max(1);
    Ok(ports.list_people(organization, &query)?)
}

/// Replaces a provisioned person with `replacement` (built by the caller from
/// the version `expected_version` it read). Id, organization, status and
/// creation time are kept; the version increases.
///
/// # Errors
/// As [`create_person`]; `NotFound` when the person is gone. A changed version
/// is `Ok(Err(VersionMismatch))`.
pub fn replace_person(
    ports: &dyn PersonRepository,
    current: &Person,
    mut replacement: Person,
    now: DateTime<Utc>,
) -> Result<Result<Person, VersionMismatch>, DomainError> {
    replacement.id = current.id;
    replacement.organization_id = current.organization_id;
    replacement.status = current.status;
    replacement.created_at = current.created_at;
    replacement.updated_at = now.max(current.updated_at);
    replacement.version = current.version + 1;
    replacement.default_primary_email();
    replacement.validate()?;
    if unchanged(current, &replacement) {
        // Nothing changed: no write, no event, and the version and
        // `updatedAt` stay (a client syncing by them sees no change).
        return Ok(Ok(current.clone()));
    }
    match ports
        .update_person(current, &replacement)
        .map_err(store_error)?
    {
        PersonWrite::Done => Ok(Ok(replacement)),
        PersonWrite::Stale { current } => Ok(Err(VersionMismatch { current })),
        PersonWrite::Missing => Err(not_found()),
    }
}

/// Whether `replacement` (built from `current`) changes none of its fields.
fn unchanged(current: &Person, replacement: &Person) -> bool {
    let mut same = replacement.clone();
    same.updated_at = current.updated_at;
    same.version = current.version;
    same == *current
}

/// Starts offboarding (the SCIM DELETE): status OFFBOARDING, return orders for
/// deployed items, the userName free again. Returns how many items got a return.
///
/// # Errors
/// `NotFound` when the person is not provisioned; a version other than
/// `expected_version` is `Ok(Err(VersionMismatch))`.
pub fn offboard_person(
    ports: &dyn PersonRepository,
    organization: OrganizationId,
    id: PersonId,
    expected_version: Option<i64>,
    now: DateTime<Utc>,
) -> Result<Result<usize, VersionMismatch>, DomainError> {
    match ports.offboard_person(organization, id, expected_version, now)? {
        Offboarding::Started { returns } => Ok(Ok(returns)),
        Offboarding::Stale { current } => Ok(Err(VersionMismatch { current })),
        Offboarding::Missing => Err(not_found()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::person::tests::person;
    use crate::testing::InMemoryStore;

    #[test]
    fn create_get_replace_offboard() {
        let store = InMemoryStore::default();
        let now = Utc::now();
        let p = person("ada@example.com");
        let org = p.organization_id;
        let created = create_person(&store, p.clone(), now).unwrap();
        assert_eq!(created.version, 1);
        let mut dup = person("ADA@example.com");
        dup.organization_id = org;
        assert!(matches!(
            create_person(&store, dup, now),
            Err(DomainError::Conflict { .. })
        ));
        let mut changed = created.clone();
        changed.given_name = Some("Augusta".into());
        let replaced = replace_person(&store, &created, changed.clone(), now)
            .unwrap()
            .unwrap();
        assert_eq!(replaced.version, 2);
        // A second replace from the old version is stale.
        assert_eq!(
            replace_person(&store, &created, changed, now).unwrap(),
            Err(VersionMismatch { current: 2 })
        );
        assert_eq!(
            offboard_person(&store, org, created.id, Some(1), now).unwrap(),
            Err(VersionMismatch { current: 2 })
        );
        assert_eq!(
            offboard_person(&store, org, created.id, None, now).unwrap(),
            Ok(0)
        );
        assert!(matches!(
            get_person(&store, org, created.id),
            Err(DomainError::NotFound { .. })
        ));
        // The userName is free again.
        let mut again = person("ada@example.com");
        again.organization_id = org;
        assert!(create_person(&store, again, now).is_ok());
    }

    #[test]
    fn people_created_together_succeed_or_fail_each_on_their_own() {
        let store = InMemoryStore::default();
        let now = Utc::now();
        let ada = person("ada@example.com");
        let org = ada.organization_id;
        let in_org = |mut p: Person| {
            p.organization_id = org;
            p
        };
        let twin = in_org(person("ADA@example.com"));
        let mut broken = in_org(person("grace@example.com"));
        broken.emails[0].value = "someone-else@example.com".into();
        let linus = in_org(person("linus@example.com"));
        let tick = std::cell::Cell::new(now);
        let clock = || {
            tick.set(tick.get() + chrono::Duration::microseconds(1));
            tick.get()
        };
        let results = create_people(&store, vec![ada, twin, broken, linus.clone()], &clock);
        assert_eq!(results.len(), 4);
        let created = results[0].as_ref().unwrap();
        assert_eq!(created.version, 1);
        // Each at its own time, in the order given.
        assert!(created.created_at > now);
        assert!(results[3].as_ref().unwrap().created_at > created.created_at);
        assert!(matches!(results[1], Err(DomainError::Conflict { .. })));
        assert!(matches!(results[2], Err(DomainError::Invalid { .. })));
        assert_eq!(results[3].as_ref().unwrap().id, linus.id);
        // What was refused was not stored; the rest is.
        assert!(get_person(&store, org, linus.id).is_ok());
        let page = list_people(&store, org, PersonQuery::default()).unwrap();
        assert_eq!(page.total, 2);
    }

    #[test]
    fn a_package_outside_the_organization_is_not_found() {
        let store = InMemoryStore::default();
        let mut p = person("ada@example.com");
        p.package_id = Some(crate::ids::PackageId::new());
        let err = create_person(&store, p.clone(), Utc::now()).unwrap_err();
        assert!(
            matches!(&err, DomainError::NotFound { entity, .. } if *entity == "packageId"),
            "{err:?}"
        );
        // Nothing was written: the userName is still free.
        p.package_id = None;
        assert!(create_person(&store, p, Utc::now()).is_ok());
    }
}
