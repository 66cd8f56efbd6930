//! Use cases of groups: create, read, list, change, delete, and the groups
//! (and effective package) of people.

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Utc};

use crate::error::{DomainError, StoreError};
use crate::group::{effective_package, Group, GroupFields, Member, PersonGroup, MAX_MEMBERS};
use crate::group_query::{GroupPage, GroupQuery};
use crate::ids::{GroupId, OrganizationId, PackageId, PersonId};
use crate::person::Person;
use crate::person_query::PAGE_SIZE_LIMIT;
use crate::ports::{GroupChange, GroupRepository, GroupWrite};
use crate::services::people::VersionMismatch;

fn not_found() -> DomainError {
    DomainError::not_found("group", "group not found")
}

fn store_error(err: StoreError) -> DomainError {
    match err {
        StoreError::Duplicate { .. } => DomainError::conflict(
            "displayName",
            "another group of the organization already has this displayName",
        ),
        StoreError::MissingReference { .. } => {
            DomainError::not_found("packageId", "package not found in the organization")
        }
        other => other.into(),
    }
}

/// The error of a write that found something other than `Done` or `Stale`.
fn refused(write: GroupWrite) -> DomainError {
    match write {
        GroupWrite::NotPeople(ids) => {
            let shown: Vec<String> = ids.iter().take(5).map(ToString::to_string).collect();
            let more = ids.len().saturating_sub(shown.len());
            let tail = if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            };
            DomainError::invalid(
                "members",
                format!(
                    "members: {}{tail} {} not a user of the organization; nothing was changed",
                    shown.join(", "),
                    if ids.len() == 1 { "is" } else { "are" },
                ),
            )
        }
        GroupWrite::TooManyMembers => DomainError::invalid(
            "members",
            format!("a group holds at most {MAX_MEMBERS} members; nothing was changed"),
        ),
        GroupWrite::Missing | GroupWrite::Done(_) | GroupWrite::Stale { .. } => not_found(),
    }
}

/// Creates a group with its members (all of them provisioned people of the
/// organization).
///
/// # Errors
/// `Invalid` for a broken rule of the fields or a member who is not a
/// provisioned person of the organization (naming them); `Conflict`
/// (`displayName`) for a name taken; `NotFound` (`packageId`).
pub fn create_group(
    ports: &dyn GroupRepository,
    organization: OrganizationId,
    fields: GroupFields,
    members: &BTreeSet<PersonId>,
    now: DateTime<Utc>,
) -> Result<Group, DomainError> {
    fields.validate()?;
    if members.len() as u64 > MAX_MEMBERS {
        return Err(refused(GroupWrite::TooManyMembers));
    }
    let group = Group::new(GroupId::new(), organization, fields, now);
    match ports.insert_group(&group, members).map_err(store_error)? {
        GroupWrite::Done(g) => Ok(g),
        other => Err(refused(other)),
    }
}

/// A group of the organization.
///
/// # Errors
/// `NotFound` when unknown or of another organization.
pub fn get_group(
    ports: &dyn GroupRepository,
    organization: OrganizationId,
    id: GroupId,
) -> Result<Group, DomainError> {
    ports.find_group(organization, id)?.ok_or_else(not_found)
}

/// A page of groups; the page size is capped at [`PAGE_SIZE_LIMIT`] and the
/// start index is at least 1.
///
/// # Errors
/// `Invalid` (`filter`) for a NUL in a filter value; store failures.
pub fn list_groups(
    ports: &dyn GroupRepository,
    organization: OrganizationId,
    mut query: GroupQuery,
) -> Result<GroupPage, DomainError> {
    if let Some(filter) = &query.filter {
        filter.validate()?;
    }
    query.count = query.count.min(PAGE_SIZE_LIMIT);
    query.start_index = query.start_index.max(1);
    Ok(ports.list_groups(organization, &query)?)
}

/// The members of these groups, by group (groups without members absent).
///
/// # Errors
/// Store failures.
pub fn members_of(
    ports: &dyn GroupRepository,
    organization: OrganizationId,
    groups: &[GroupId],
) -> Result<HashMap<GroupId, Vec<Member>>, DomainError> {
    let mut by_group: HashMap<GroupId, Vec<Member>> = HashMap::new();
    for (group, member) in ports.group_members(organization, groups)? {
        by_group.entry(group).or_default().push(member);
    }
    Ok(by_group)
}

/// Changes a group (fields, members, or both) in one transaction.
///
/// # Errors
/// As [`create_group`]; `NotFound` when the group is gone. A changed version
/// is `Ok(Err(VersionMismatch))`.
pub fn change_group(
    ports: &dyn GroupRepository,
    organization: OrganizationId,
    id: GroupId,
    change: &GroupChange,
) -> Result<Result<Group, VersionMismatch>, DomainError> {
    change.fields.validate()?;
    match ports
        .update_group(organization, id, change)
        .map_err(store_error)?
    {
        GroupWrite::Done(g) => Ok(Ok(g)),
        GroupWrite::Stale { current } => Ok(Err(VersionMismatch { current })),
        other => Err(refused(other)),
    }
}

/// Deletes a group; its people stay.
///
/// # Errors
/// `NotFound`; a changed version is `Ok(Err(VersionMismatch))`.
pub fn delete_group(
    ports: &dyn GroupRepository,
    organization: OrganizationId,
    id: GroupId,
    expected_version: Option<i64>,
) -> Result<Result<(), VersionMismatch>, DomainError> {
    match ports.delete_group(organization, id, expected_version)? {
        GroupWrite::Done(_) => Ok(Ok(())),
        GroupWrite::Stale { current } => Ok(Err(VersionMismatch { current })),
        other => Err(refused(other)),
    }
}

/// A person's groups and effective package, as a user shows them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Belonging {
    /// The person's groups, by display name.
    pub groups: Vec<PersonGroup>,
    /// Their own package, else their groups' ([`effective_package`]).
    pub effective_package: Option<PackageId>,
}

/// The groups and effective package of each of `people`.
///
/// # Errors
/// Store failures.
pub fn belonging_of(
    ports: &dyn GroupRepository,
    organization: OrganizationId,
    people: &[&Person],
) -> Result<HashMap<PersonId, Belonging>, DomainError> {
    let ids: Vec<PersonId> = people.iter().map(|p| p.id).collect();
    let mut groups: HashMap<PersonId, Vec<PersonGroup>> = HashMap::new();
    for (person, group) in ports.groups_of_people(organization, &ids)? {
        groups.entry(person).or_default().push(group);
    }
    Ok(people
        .iter()
        .map(|p| {
            let mut mine = groups.remove(&p.id).unwrap_or_default();
            mine.sort_by(|a, b| {
                a.display_name
                    .cmp(&b.display_name)
                    .then_with(|| a.group_id.cmp(&b.group_id))
            });
            let effective_package = effective_package(p.package_id, &mine);
            (
                p.id,
                Belonging {
                    groups: mine,
                    effective_package,
                },
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::catalog::Package;
    use crate::group::GroupFieldsChange;
    use crate::group::MembersChange;
    use crate::person::tests::person;
    use crate::services::people;
    use crate::testing::InMemoryStore;

    fn fields(name: &str, package: Option<PackageId>, precedence: i32) -> GroupFields {
        GroupFields {
            external_id: None,
            display_name: name.into(),
            package_id: package,
            precedence,
        }
    }

    fn package(store: &InMemoryStore, org: OrganizationId, slug: &str) -> PackageId {
        let id = PackageId::new();
        store.state().packages.push(Package {
            id,
            organization_id: org,
            slug: slug.into(),
            name: slug.into(),
            items: Vec::new(),
        });
        id
    }

    fn change(members: MembersChange) -> GroupChange {
        GroupChange {
            fields: GroupFieldsChange::default(),
            members,
            expected_version: None,
            at: Utc::now(),
        }
    }

    #[test]
    fn effective_package_follows_membership_group_and_offboarding() {
        let store = InMemoryStore::default();
        let now = Utc::now();
        let ada = people::create_person(&store, person("ada@example.com"), now).unwrap();
        let org = ada.organization_id;
        let (eng_kit, all_kit) = (package(&store, org, "eng"), package(&store, org, "all"));
        let all = create_group(
            &store,
            org,
            fields("Everyone", Some(all_kit), 10),
            &[ada.id].into(),
            now,
        )
        .unwrap();
        let belonging = |p: &Person| belonging_of(&store, org, &[p]).unwrap()[&p.id].clone();
        assert_eq!(belonging(&ada).effective_package, Some(all_kit));
        let eng = create_group(
            &store,
            org,
            fields("Engineering", Some(eng_kit), 1),
            &BTreeSet::new(),
            now,
        )
        .unwrap();
        let mut add = MembersChange::Keep;
        add.add([ada.id]);
        let eng = change_group(&store, org, eng.id, &change(add.clone()))
            .unwrap()
            .unwrap();
        assert_eq!(eng.version, 2);
        assert_eq!(belonging(&ada).effective_package, Some(eng_kit));
        assert_eq!(belonging(&ada).groups.len(), 2);
        // Adding a member already present changes nothing, not even the version.
        let same = change_group(&store, org, eng.id, &change(add))
            .unwrap()
            .unwrap();
        assert_eq!(same.version, 2);
        // The group's precedence decides at once.
        let mut g = change(MembersChange::Keep);
        g.fields = fields("Engineering", Some(eng_kit), 20).into();
        change_group(&store, org, eng.id, &g).unwrap().unwrap();
        assert_eq!(belonging(&ada).effective_package, Some(all_kit));
        // Offboarding leaves every group.
        people::offboard_person(&store, org, ada.id, None, now)
            .unwrap()
            .unwrap();
        assert!(members_of(&store, org, &[all.id, eng.id])
            .unwrap()
            .is_empty());
        assert_eq!(get_group(&store, org, all.id).unwrap().version, 2);
    }

    #[test]
    fn a_member_outside_the_organization_is_refused_and_nothing_applies() {
        let store = InMemoryStore::default();
        let now = Utc::now();
        let ada = people::create_person(&store, person("ada@example.com"), now).unwrap();
        let stranger = people::create_person(&store, person("eve@example.com"), now).unwrap();
        let org = ada.organization_id;
        let g = create_group(&store, org, fields("Eng", None, 0), &BTreeSet::new(), now).unwrap();
        let mut add = MembersChange::Keep;
        add.add([ada.id, stranger.id]);
        let err = change_group(&store, org, g.id, &change(add)).unwrap_err();
        assert!(err.to_string().contains(&stranger.id.to_string()), "{err}");
        assert!(members_of(&store, org, &[g.id]).unwrap().is_empty());
        assert_eq!(get_group(&store, org, g.id).unwrap().version, 1);
        // Another organization sees no such group.
        assert!(get_group(&store, stranger.organization_id, g.id).is_err());
    }

    #[test]
    fn a_person_the_import_offboards_leaves_every_group() {
        let store = InMemoryStore::default();
        let now = Utc::now();
        let org = crate::services::admin::create_organization(&store, "Acme", now)
            .unwrap()
            .id;
        let mut ada = person("ada@example.com");
        ada.organization_id = org;
        let ada = people::create_person(&store, ada, now).unwrap();
        let g = create_group(&store, org, fields("Eng", None, 0), &[ada.id].into(), now).unwrap();
        let mut gone = ada.clone();
        gone.status = crate::person::PersonStatus::Offboarded;
        let batch = crate::import::ImportBatch {
            people: vec![gone],
            ..crate::import::ImportBatch::default()
        };
        crate::services::import::run_import(&store, org, &batch, &mut |_| {}).unwrap();
        assert!(members_of(&store, org, &[g.id]).unwrap().is_empty());
        assert_eq!(get_group(&store, org, g.id).unwrap().version, 2);
    }

    #[test]
    fn display_names_are_unique_case_insensitively() {
        let store = InMemoryStore::default();
        let org = OrganizationId::new();
        create_group(
            &store,
            org,
            fields("Engineering", None, 0),
            &BTreeSet::new(),
            Utc::now(),
        )
        .unwrap();
        let err = create_group(
            &store,
            org,
            fields("ENGINEERING", None, 0),
            &BTreeSet::new(),
            Utc::now(),
        )
        .unwrap_err();
        assert!(matches!(err, DomainError::Conflict { .. }), "{err:?}");
    }
}
