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
