//! People in memory, with the database's unique userName and package checks.

use super::*;
use crate::event::{EventType, NewEvent};

impl PersonRepository for InMemoryStore {
    fn find_person(
        &self,
        organization: OrganizationId,
        id: PersonId,
    ) -> StoreResult<Option<Person>> {
        Ok(self
            .state()
            .people
            .iter()
            .find(|p| p.id == id && p.organization_id == organization)
            .cloned())
    }

    fn list_people(
        &self,
        organization: OrganizationId,
        query: &crate::person_query::PersonQuery,
    ) -> StoreResult<crate::person_query::PersonPage> {
        let mut people: Vec<Person> = self
            .state()
            .people
            .iter()
            .filter(|p| p.organization_id == organization && p.is_provisioned())
            .filter(|p| query.filter.as_ref().is_none_or(|f| f.matches(p)))
            .cloned()
            .collect();
        crate::person_query::sort_people(&mut people, query);
        let total = people.len() as u64;
        let skip = usize::try_from(query.start_index.saturating_sub(1)).unwrap_or(usize::MAX);
        let people = people
            .into_iter()
            .skip(skip)
            .take(query.count as usize)
            .collect();
        Ok(crate::person_query::PersonPage { total, people })
    }

    fn list_directory(
        &self,
        organization: OrganizationId,
        query: &crate::person::directory::DirectoryQuery,
    ) -> StoreResult<crate::person::directory::DirectoryPage> {
        let mut people: Vec<Person> = self
            .state()
            .people
            .iter()
            .filter(|p| p.organization_id == organization && query.matches(p))
            .cloned()
            .collect();
        people.sort_by(crate::person::directory::directory_order);
        let total_records = people.len() as u64;
        let skip = usize::try_from(query.offset()).unwrap_or(usize::MAX);
        let people = people
            .into_iter()
            .skip(skip)
            .take(query.size() as usize)
            .collect();
        Ok(crate::person::directory::DirectoryPage {
            people,
            total_records,
        })
    }

    fn offboarding_times(
        &self,
        organization: OrganizationId,
        people: &[PersonId],
    ) -> StoreResult<std::collections::HashMap<PersonId, crate::person::directory::OffboardingTimes>>
    {
        let s = self.state();
        Ok(people
            .iter()
            .filter(|id| {
                s.people
                    .iter()
                    .any(|p| p.id == **id && p.organization_id == organization)
            })
            .filter_map(|id| s.offboarding_times.get(id).map(|t| (*id, *t)))
            .collect())
    }

    fn insert_person(&self, person: &Person) -> StoreResult<()> {
        let mut s = self.state();
        check_package(&s, person)?;
        if person_name_taken(&s, person) {
            return Err(StoreError::Duplicate {
                entity: "person",
                detail: "userName".into(),
            });
        }
        s.people.push(person.clone());
        let event = NewEvent::created(EventType::PersonCreated, person);
        s.record(
            person.organization_id,
            self.actor(),
            person.updated_at,
            event,
        );
        Ok(())
    }

    fn update_person(
        &self,
        current: &Person,
        person: &Person,
    ) -> StoreResult<crate::ports::PersonWrite> {
        let expected_version = current.version;
        use crate::ports::PersonWrite;
        let mut s = self.state();
        check_package(&s, person)?;
        let taken = person_name_taken(&s, person);
        let Some(slot) = s.people.iter_mut().find(|p| {
            p.id == person.id && p.organization_id == person.organization_id && p.is_provisioned()
        }) else {
            return Ok(PersonWrite::Missing);
        };
        if slot.version != expected_version {
            return Ok(PersonWrite::Stale {
                current: slot.version,
            });
        }
        if taken {
            return Err(StoreError::Duplicate {
                entity: "person",
                detail: "userName".into(),
            });
        }
        let renamed =
            crate::group::membership::rename_touches_groups(&slot.user_name, &person.user_name);
        *slot = person.clone();
        if let Some(event) = NewEvent::updated(EventType::PersonUpdated, current, person) {
            s.record(
                person.organization_id,
                self.actor(),
                person.updated_at,
                event,
            );
        }
        if renamed {
            let groups = super::groups::groups_of(&s, person.organization_id, person.id);
            super::groups::touch_groups(&mut s, person.organization_id, &groups, person.updated_at);
        }
        Ok(PersonWrite::Done)
    }

    fn offboard_person(
        &self,
        organization: OrganizationId,
        id: PersonId,
        expected_version: Option<i64>,
        at: DateTime<Utc>,
    ) -> StoreResult<crate::ports::Offboarding> {
        use crate::inventory::{DeployStatus, ReturnInfo};
        use crate::person::offboarding::{admit, plan, OffboardingFacts};
        use crate::person::StoredPersonState;
        let mut s = self.state();
        // The facts (the state is locked until the plan is stored).
        let stored = s
            .people
            .iter()
            .find(|p| p.id == id && p.organization_id == organization)
            .map(|p| StoredPersonState {
                status: p.status,
                version: p.version,
            });
        let version = match admit(stored, expected_version) {
            Ok(version) => version,
            Err(refusal) => return Ok(refusal),
        };
        let facts = OffboardingFacts {
            groups: super::groups::groups_of(&s, organization, id),
            deployed_without_return: s
                .inventory
                .iter()
                .filter(|i| {
                    i.organization_id == organization
                        && i.deploy_status == DeployStatus::Deployed
                        && i.return_order.is_none()
                        && i.assignment
                            .is_some_and(|a| a.assignee == Assignee::Person(id))
                })
                .map(|i| i.id)
                .collect(),
            open_lines: s
                .return_orders
                .iter()
                .filter(|o| o.organization_id == organization && o.person == Some(id))
                .map(crate::returns::order::ReturnOrder::open_lines)
                .sum(),
        };
        // What the domain decided, stored.
        let plan = plan(organization, id, version, &facts, at);
        if let Some(p) = s
            .people
            .iter_mut()
            .find(|p| p.id == id && p.organization_id == organization)
        {
            p.status = plan.status;
            p.version = plan.version;
            p.updated_at = plan.updated_at;
        }
        let times = s.offboarding_times.entry(id).or_default();
        times.started_at = Some(at);
        if plan.status == PersonStatus::Offboarded {
            times.offboarded_at = Some(at);
        }
        super::groups::leave_groups(&mut s, organization, &plan.leaving);
        if let Some(order) = &plan.returns {
            s.return_orders.push(order.order(organization));
            for line in &order.lines {
                if let Some(item) = s
                    .inventory
                    .iter_mut()
                    .find(|i| i.id == line.item && i.organization_id == organization)
                {
                    item.return_order = Some(ReturnInfo {
                        id: order.id,
                        status: order.status,
                        created_at: order.created_at,
                        return_order_item_id: line.id,
                        return_order_item_status: line.status,
                        retrieval: None,
                    });
                }
            }
        }
        let actor = self.actor();
        for event in &plan.events {
            s.record(organization, actor.clone(), at, event.clone());
        }
        Ok(plan.outcome())
    }
}

/// The foreign key of a person's package, as the database enforces it.
fn check_package(s: &State, person: &Person) -> StoreResult<()> {
    match person.package_id {
        Some(id)
            if !s
                .packages
                .iter()
                .any(|p| p.id == id && p.organization_id == person.organization_id) =>
        {
            Err(StoreError::MissingReference {
                entity: "person",
                detail: "packageId".into(),
            })
        }
        _ => Ok(()),
    }
}

/// Whether another provisioned person of the organization has `person`'s
/// userName (case-insensitively).
fn person_name_taken(s: &State, person: &Person) -> bool {
    person.is_provisioned()
        && s.people.iter().any(|p| {
            p.id != person.id
                && p.organization_id == person.organization_id
                && p.is_provisioned()
                && crate::text::same_identifier(&p.user_name, &person.user_name)
        })
}
