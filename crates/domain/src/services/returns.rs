//! Return orders (docs/returns.md): listed, read, created on request and
//! changed; each write decided by `crate::returns` in the store's
//! transaction.

use chrono::Utc;

use crate::error::DomainError;
use crate::ids::{OrganizationId, ReturnOrderId};
use crate::ports::ReturnOrderRepository;
use crate::returns::change::ReturnOrderChange;
use crate::returns::create::{check_request, ReturnRequest};
use crate::returns::order::ReturnOrder;
use crate::returns::query::{RawReturnOrderQuery, ReturnOrderPage, ReturnOrderQuery};

fn not_found(id: ReturnOrderId) -> DomainError {
    DomainError::not_found("returnOrder", format!("return order {id} not found"))
}

/// One page of the organization's return orders.
///
/// # Errors
/// [`DomainError::Invalid`] for a bad parameter; store failures.
pub fn list_return_orders(
    repo: &dyn ReturnOrderRepository,
    organization: OrganizationId,
    raw: &RawReturnOrderQuery,
) -> Result<(ReturnOrderQuery, ReturnOrderPage), DomainError> {
    let query = ReturnOrderQuery::parse(raw)?;
    let page = repo.list_return_orders(organization, &query)?;
    Ok((query, page))
}

/// The return order `id` of the organization.
///
/// # Errors
/// [`DomainError::NotFound`] (`returnOrder`) when unknown or another
/// organization's; store failures.
pub fn get_return_order(
    repo: &dyn ReturnOrderRepository,
    organization: OrganizationId,
    id: ReturnOrderId,
) -> Result<ReturnOrder, DomainError> {
    repo.find_return_order(organization, id)?
        .ok_or_else(|| not_found(id))
}

/// Creates a return order for a person's deployed items.
///
/// # Errors
/// The request's shape, before any store work; the domain's refusal
/// (`returns::create::plan`); store failures.
pub fn create_return_order(
    repo: &dyn ReturnOrderRepository,
    organization: OrganizationId,
    request: &ReturnRequest,
) -> Result<ReturnOrder, DomainError> {
    check_request(request)?;
    repo.create_return_order(organization, request, Utc::now())?
}

/// Changes the return order `id`.
///
/// # Errors
/// The change's shape, before any store work; [`DomainError::NotFound`]
/// for an unknown order; the domain's refusal (`returns::change::plan`);
/// store failures.
pub fn change_return_order(
    repo: &dyn ReturnOrderRepository,
    organization: OrganizationId,
    id: ReturnOrderId,
    change: &ReturnOrderChange,
) -> Result<ReturnOrder, DomainError> {
    change.check()?;
    repo.change_return_order(organization, id, change, Utc::now())?
}

/// The answer a store gives for an order it does not find in a change.
#[must_use]
pub fn unknown_order(id: ReturnOrderId) -> DomainError {
    not_found(id)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::event::EventType;
    use crate::ids::{InventoryItemId, PersonId, SkuId};
    use crate::inventory::{
        Assignee, Assignment, Condition, DeployStatus, InventoryItem, ReturnStatus, SuppliedBy,
    };
    use crate::person::{Person, PersonStatus};
    use crate::ports::PersonRepository;
    use crate::returns::change::LineChange;
    use crate::returns::ClosedReason;
    use crate::testing::{fixtures, InMemoryStore};

    fn person(org: OrganizationId) -> Person {
        let now = Utc::now();
        Person {
            id: PersonId::new(),
            organization_id: org,
            external_id: None,
            user_name: "ada@example.com".into(),
            given_name: None,
            family_name: None,
            display_name: None,
            emails: vec![],
            phone_numbers: vec![],
            addresses: vec![],
            active: true,
            package_id: None,
            start_date: None,
            status: PersonStatus::Active,
            skip_user_activation: None,
            cpf_number: None,
            profile: Default::default(),
            created_at: now,
            updated_at: now,
            version: 1,
        }
    }

    fn deployed(org: OrganizationId, sku: SkuId, to: PersonId) -> InventoryItem {
        let now = Utc::now();
        InventoryItem {
            id: InventoryItemId::new(),
            organization_id: org,
            sku_id: sku,
            serial_number: None,
            imei: vec![],
            deploy_status: DeployStatus::Deployed,
            deploy_reason: None,
            condition: Condition::New,
            renewal_date: None,
            renewal_date_updated_by: None,
            billing_start_date: None,
            billing_end_date: None,
            procurement_method: None,
            assignment: Some(Assignment {
                assignee: Assignee::Person(to),
                assigned_at: Some(now),
            }),
            tags: vec![],
            pricing: None,
            description: None,
            erp_invoice_id: None,
            hold_start_date: None,
            unlock_date: None,
            itad_requested: None,
            device_program: None,
            supplied_by: SuppliedBy::Organization,
            return_order: None,
            created_at: now,
            updated_at: now,
        }
    }

    #[test]
    fn an_offboarding_completes_when_its_last_line_is_written_off() {
        let store = InMemoryStore::default();
        let seeded = fixtures::seed(&store);
        let org = seeded.org.id;
        let ada = person(org);
        let items = [
            deployed(org, seeded.sku.id, ada.id),
            deployed(org, seeded.sku.id, ada.id),
        ];
        {
            let mut s = store.state();
            s.people.push(ada.clone());
            s.inventory.extend(items.iter().cloned());
        }
        store
            .offboard_person(org, ada.id, None, Utc::now())
            .unwrap();
        let (_, page) = list_return_orders(
            &store,
            org,
            &RawReturnOrderQuery {
                person_id: Some(ada.id.to_string()),
                ..RawReturnOrderQuery::default()
            },
        )
        .unwrap();
        let order = &page.orders[0];
        assert_eq!(get_return_order(&store, org, order.id).unwrap(), *order);
        for (n, line) in order.lines.iter().enumerate() {
            let change = ReturnOrderChange {
                lines: vec![LineChange {
                    id: line.id,
                    itad_requested: None,
                    closed_reason: Some(ClosedReason::Stolen),
                }],
                ..ReturnOrderChange::default()
            };
            let after = change_return_order(&store, org, order.id, &change).unwrap();
            let done = n + 1 == order.lines.len();
            assert_eq!(after.status == ReturnStatus::NotCompleted, done);
            let status = store.find_person(org, ada.id).unwrap().unwrap().status;
            let want = if done {
                PersonStatus::Offboarded
            } else {
                PersonStatus::Offboarding
            };
            assert_eq!(status, want);
        }
        let s = store.state();
        assert!(s
            .inventory
            .iter()
            .all(|i| i.deploy_status == DeployStatus::Archived && i.return_order.is_none()));
        assert_eq!(
            s.events.last().map(|e| e.kind),
            Some(EventType::PersonOffboarded)
        );
    }

    #[test]
    fn unknown_orders_and_bad_shapes_are_refused() {
        let store = InMemoryStore::default();
        let org = fixtures::seed(&store).org.id;
        let id = ReturnOrderId::new();
        assert!(matches!(
            get_return_order(&store, org, id),
            Err(DomainError::NotFound { .. })
        ));
        let e = change_return_order(&store, org, id, &ReturnOrderChange::default()).unwrap_err();
        assert!(matches!(e, DomainError::Invalid { .. }), "{e}");
        let request = ReturnRequest {
            person: PersonId::new(),
            items: vec![],
            itad_requested: false,
        };
        let e = create_return_order(&store, org, &request).unwrap_err();
        assert!(e.to_string().starts_with("itemIds:"), "{e}");
    }
}
