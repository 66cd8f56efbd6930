//! Return orders in memory, by the same rules as the database store
//! (`crate::returns`): the facts read under the state's lock, the domain's
//! decision written as it is, the items' `returnOrder` kept in step.

use super::*;
use crate::event::{EventType, NewEvent};
use crate::inventory::ReturnInfo;
use crate::person::StoredPersonState;
use crate::returns::change::{self, ChangeFacts, ReturnOrderChange};
use crate::returns::completion;
use crate::returns::create::{self, CreateFacts, ItemFacts, ReturnRequest};
use crate::returns::order::{written, ReturnOrder};
use crate::returns::query::{ReturnOrderPage, ReturnOrderQuery};
use crate::{ids::ReturnOrderId, DomainError};

fn person_state(s: &State, org: OrganizationId, id: PersonId) -> Option<StoredPersonState> {
    s.people
        .iter()
        .find(|p| p.id == id && p.organization_id == org)
        .map(|p| StoredPersonState {
            status: p.status,
            version: p.version,
        })
}

/// Each item of `order` shows its open line as its return, or none.
fn sync_items(s: &mut State, order: &ReturnOrder) {
    for line in &order.lines {
        if let Some(item) = s
            .inventory
            .iter_mut()
            .find(|i| i.id == line.item && i.organization_id == order.organization_id)
        {
            item.return_order = line.active().then(|| ReturnInfo {
                id: order.id,
                status: order.status,
                created_at: order.created_at,
                return_order_item_id: line.id,
                return_order_item_status: line.status,
                retrieval: order.retrieval.clone(),
            });
        }
    }
}

impl crate::ports::ReturnOrderRepository for InMemoryStore {
    fn list_return_orders(
        &self,
        organization: OrganizationId,
        query: &ReturnOrderQuery,
    ) -> StoreResult<ReturnOrderPage> {
        let s = self.state();
        let mut found: Vec<&ReturnOrder> = s
            .return_orders
            .iter()
            .filter(|o| o.organization_id == organization && query.matches(o))
            .collect();
        found.sort_by_key(|o| std::cmp::Reverse((o.created_at, o.id)));
        let total_records = found.len() as u64;
        let orders = found
            .into_iter()
            .skip(usize::try_from(query.offset()).unwrap_or(usize::MAX))
            .take(query.size() as usize)
            .cloned()
            .collect();
        Ok(ReturnOrderPage {
            orders,
            total_records,
        })
    }

    fn find_return_order(
        &self,
        organization: OrganizationId,
        id: ReturnOrderId,
    ) -> StoreResult<Option<ReturnOrder>> {
        Ok(self
            .state()
            .return_orders
            .iter()
            .find(|o| o.id == id && o.organization_id == organization)
            .cloned())
    }

    fn create_return_order(
        &self,
        organization: OrganizationId,
        request: &ReturnRequest,
        at: DateTime<Utc>,
    ) -> StoreResult<Result<ReturnOrder, DomainError>> {
        let mut s = self.state();
        let facts = CreateFacts {
            person: person_state(&s, organization, request.person),
            items: s
                .inventory
                .iter()
                .filter(|i| i.organization_id == organization && request.items.contains(&i.id))
                .map(|i| {
                    (
                        i.id,
                        ItemFacts {
                            deploy_status: i.deploy_status,
                            assignee: i.assignment.map(|a| a.assignee),
                            on_active_return: i.return_order.is_some(),
                        },
                    )
                })
                .collect(),
        };
        let plan = match create::plan(organization, request, &facts, at) {
            Ok(plan) => plan,
            Err(refusal) => return Ok(Err(refusal)),
        };
        s.return_orders.push(plan.order.clone());
        sync_items(&mut s, &plan.order);
        let actor = self.actor();
        for event in plan.events {
            s.record(organization, actor.clone(), at, event);
        }
        Ok(Ok(plan.order))
    }

    fn change_return_order(
        &self,
        organization: OrganizationId,
        id: ReturnOrderId,
        change: &ReturnOrderChange,
        at: DateTime<Utc>,
    ) -> StoreResult<Result<ReturnOrder, DomainError>> {
        let mut s = self.state();
        let Some(before) = s
            .return_orders
            .iter()
            .find(|o| o.id == id && o.organization_id == organization)
            .cloned()
        else {
            return Ok(Err(crate::services::returns::unknown_order(id)));
        };
        let written_off = change.written_off_items(&before);
        let facts = ChangeFacts {
            person: before
                .person
                .and_then(|p| person_state(&s, organization, p)),
            items: s
                .inventory
                .iter()
                .filter(|i| i.organization_id == organization && written_off.contains(&i.id))
                .map(|i| (i.id, i.clone()))
                .collect(),
        };
        let plan = match change::plan(&before, change, &facts, at) {
            Ok(plan) => plan,
            Err(refusal) => return Ok(Err(refusal)),
        };
        let actor = self.actor();
        for (read, archived) in &plan.items {
            if let Some(slot) = s.inventory.iter_mut().find(|i| i.id == archived.id) {
                *slot = archived.clone();
            }
            if let Some(e) = NewEvent::updated(EventType::ItemUpdated, read, archived) {
                s.record(organization, actor.clone(), at, e);
            }
        }
        for event in plan.events {
            s.record(organization, actor.clone(), at, event);
        }
        let Some(write) = written(&before, plan.order, at) else {
            return Ok(Ok(before));
        };
        let after = write.order;
        if let Some(slot) = s.return_orders.iter_mut().find(|o| o.id == id) {
            *slot = after.clone();
        }
        sync_items(&mut s, &after);
        for event in write.events {
            s.record(organization, actor.clone(), at, event);
        }
        if let (Some(person), true) = (after.person, write.lines_closed) {
            let open = s
                .return_orders
                .iter()
                .filter(|o| o.organization_id == organization && o.person == Some(person))
                .map(ReturnOrder::open_lines)
                .sum();
            if let Some(stored) = person_state(&s, organization, person) {
                if let Some(done) = completion::complete(person, stored, open, at) {
                    if let Some(p) = s
                        .people
                        .iter_mut()
                        .find(|p| p.id == person && p.organization_id == organization)
                    {
                        p.status = done.status;
                        p.version = done.version;
                        p.updated_at = done.updated_at;
                    }
                    s.offboarding_times.entry(person).or_default().offboarded_at = Some(at);
                    s.record(organization, actor.clone(), at, done.event);
                }
            }
        }
        Ok(Ok(after))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::ports::ReturnOrderRepository;

    #[test]
    fn an_unknown_order_is_not_found() {
        let store = InMemoryStore::default();
        let id = ReturnOrderId::new();
        let change = ReturnOrderChange {
            cancel: true,
            ..ReturnOrderChange::default()
        };
        let e = store
            .change_return_order(OrganizationId::new(), id, &change, Utc::now())
            .unwrap()
            .unwrap_err();
        assert!(matches!(e, DomainError::NotFound { .. }));
    }
}
