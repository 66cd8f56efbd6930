//! The order listing's query (`GET /api/v1/orders`): filters `status` and
//! `personId`, pages of `size` (the inventory listing's bounds), newest
//! first (created, then id, both descending).

use std::num::NonZeroU32;

use super::order::Order;
use super::OrderStatus;
use crate::error::DomainError;
use crate::ids::PersonId;
use crate::inventory_query::{id_param, Paging};

/// The listing's parameters as the query string gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawOrderQuery {
    /// `page`.
    pub page: Option<String>,
    /// `size`.
    pub size: Option<String>,
    /// `status` (case-insensitive).
    pub status: Option<String>,
    /// `personId`.
    pub person_id: Option<String>,
}

/// A validated listing query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderQuery {
    paging: Paging,
    /// Orders of this status.
    pub status: Option<OrderStatus>,
    /// Orders of this person.
    pub person: Option<PersonId>,
}

impl OrderQuery {
    /// Validates raw parameters.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the first bad parameter (`page`,
    /// `size`, `status`, `personId`).
    pub fn parse(raw: &RawOrderQuery) -> Result<Self, DomainError> {
        let paging = Paging::parse(raw.page.as_deref(), raw.size.as_deref())?;
        let status = raw.status.as_deref().map(OrderStatus::parse).transpose()?;
        Ok(Self {
            paging,
            status,
            person: id_param(raw.person_id.as_deref(), "personId", PersonId::parse)?,
        })
    }

    /// 1-based page.
    #[must_use]
    pub fn page(&self) -> NonZeroU32 {
        self.paging.page()
    }

    /// Orders per page.
    #[must_use]
    pub fn size(&self) -> u32 {
        self.paging.size()
    }

    /// Rows to skip.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.paging.offset()
    }

    /// Whether `order` passes the filters (the in-memory store's listing).
    #[must_use]
    pub fn matches(&self, order: &Order) -> bool {
        self.status.is_none_or(|s| order.status == s)
            && self.person.is_none_or(|p| order.person_id == p)
    }
}

/// One page of orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderPage {
    /// The orders, newest first.
    pub orders: Vec<Order>,
    /// Orders matching the filters, over all pages.
    pub total_records: u64,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn defaults_bounds_and_filters() {
        let q = OrderQuery::parse(&RawOrderQuery::default()).unwrap();
        assert_eq!((q.page().get(), q.size(), q.offset()), (1, 100, 0));
        let person = PersonId::new();
        let raw = RawOrderQuery {
            page: Some("3".into()),
            size: Some("10".into()),
            status: Some("shipped".into()),
            person_id: Some(person.to_string()),
        };
        let q = OrderQuery::parse(&raw).unwrap();
        assert_eq!(
            (q.offset(), q.status, q.person),
            (20, Some(OrderStatus::Shipped), Some(person))
        );
        for (raw, field) in [
            (
                RawOrderQuery {
                    status: Some("LOST".into()),
                    ..RawOrderQuery::default()
                },
                "status",
            ),
            (
                RawOrderQuery {
                    size: Some("1001".into()),
                    ..RawOrderQuery::default()
                },
                "size",
            ),
            (
                RawOrderQuery {
                    page: Some("0".into()),
                    ..RawOrderQuery::default()
                },
                "page",
            ),
            (
                RawOrderQuery {
                    person_id: Some("x".into()),
                    ..RawOrderQuery::default()
                },
                "personId",
            ),
        ] {
            let e = OrderQuery::parse(&raw).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{field}:")), "{e}");
        }
    }
}
