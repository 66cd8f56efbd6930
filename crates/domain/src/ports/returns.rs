//! Port: return orders (docs/returns.md).

use chrono::{DateTime, Utc};

use crate::error::{DomainError, StoreResult};
use crate::ids::{OrganizationId, ReturnOrderId};
use crate::returns::change::ReturnOrderChange;
use crate::returns::create::ReturnRequest;
use crate::returns::order::ReturnOrder;
use crate::returns::query::{ReturnOrderPage, ReturnOrderQuery};

/// Return orders of an organization. Every write runs in one transaction
/// that locks what it decides on (the order, then its items, then the
/// person), asks the domain (`returns::create::plan`,
/// `returns::change::plan`, `returns::completion::complete`) and writes
/// what it decided with its events and the items' listing rows.
pub trait ReturnOrderRepository: Send + Sync {
    /// One page of the organization's return orders, newest first
    /// (created, then id, descending).
    ///
    /// # Errors
    /// Backend failures.
    fn list_return_orders(
        &self,
        organization: OrganizationId,
        query: &ReturnOrderQuery,
    ) -> StoreResult<ReturnOrderPage>;

    /// One return order of the organization.
    ///
    /// # Errors
    /// Backend failures.
    fn find_return_order(
        &self,
        organization: OrganizationId,
        id: ReturnOrderId,
    ) -> StoreResult<Option<ReturnOrder>>;

    /// Creates the return `request` decides at `at`; `Ok(Err(_))` is the
    /// domain's refusal (nothing written).
    ///
    /// # Errors
    /// Backend failures.
    fn create_return_order(
        &self,
        organization: OrganizationId,
        request: &ReturnRequest,
        at: DateTime<Utc>,
    ) -> StoreResult<Result<ReturnOrder, DomainError>>;

    /// Applies `change` to the order `id` at `at`; `Ok(Err(_))` is the
    /// domain's refusal or an unknown order (`NotFound`), nothing written.
    ///
    /// # Errors
    /// Backend failures.
    fn change_return_order(
        &self,
        organization: OrganizationId,
        id: ReturnOrderId,
        change: &ReturnOrderChange,
        at: DateTime<Utc>,
    ) -> StoreResult<Result<ReturnOrder, DomainError>>;
}
