//! The return-order listing's query (`GET /api/v1/return-orders`): filters
//! `status`, `personId`, `itemId`, pages of `size` (the inventory listing's
//! bounds), newest first (created, then id, both descending).

use std::num::NonZeroU32;

use crate::error::DomainError;
use crate::ids::{InventoryItemId, PersonId};
use crate::inventory::ReturnStatus;
use crate::inventory_query::{id_param, Paging};
use crate::returns::order::ReturnOrder;

/// The listing's parameters as the query string gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawReturnOrderQuery {
    /// `page`.
    pub page: Option<String>,
    /// `size`.
    pub size: Option<String>,
    /// `status` (case-insensitive).
    pub status: Option<String>,
    /// `personId`.
    pub person_id: Option<String>,
    /// `itemId`.
    pub item_id: Option<String>,
}

/// A validated listing query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnOrderQuery {
    paging: Paging,
    /// Orders of this status.
    pub status: Option<ReturnStatus>,
    /// Orders of this person.
    pub person: Option<PersonId>,
    /// Orders with a line of this item.
    pub item: Option<InventoryItemId>,
}

impl ReturnOrderQuery {
    /// Validates raw parameters.
    ///
    /// # Errors
    /// [`DomainError::Invalid`] naming the first bad parameter.
    pub fn parse(raw: &RawReturnOrderQuery) -> Result<Self, DomainError> {
        let paging = Paging::parse(raw.page.as_deref(), raw.size.as_deref())?;
        let status = raw
            .status
            .as_deref()
            .map(|s| {
                ReturnStatus::parse(s).map_err(|_| {
                    DomainError::invalid(
                        "status",
                        format!(
                            "unknown status '{s}'; expected one of {}",
                            ReturnStatus::ALL
                                .iter()
                                .map(|s| s.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                })
            })
            .transpose()?;
        Ok(Self {
            paging,
            status,
            person: id_param(raw.person_id.as_deref(), "personId", PersonId::parse)?,
            item: id_param(raw.item_id.as_deref(), "itemId", InventoryItemId::parse)?,
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
    pub fn matches(&self, order: &ReturnOrder) -> bool {
        self.status.is_none_or(|s| order.status == s)
            && self.person.is_none_or(|p| order.person == Some(p))
            && self
                .item
                .is_none_or(|i| order.lines.iter().any(|l| l.item == i))
    }
}

/// One page of return orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReturnOrderPage {
    /// The orders, newest first.
    pub orders: Vec<ReturnOrder>,
    /// Orders matching the filters, over all pages.
    pub total_records: u64,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn defaults_bounds_and_filters() {
        let q = ReturnOrderQuery::parse(&RawReturnOrderQuery::default()).unwrap();
        assert_eq!((q.page().get(), q.size(), q.offset()), (1, 100, 0));
        let raw = RawReturnOrderQuery {
            page: Some("3".into()),
            size: Some("10".into()),
            status: Some("return_kit_sent".into()),
            ..RawReturnOrderQuery::default()
        };
        let q = ReturnOrderQuery::parse(&raw).unwrap();
        assert_eq!(
            (q.offset(), q.status),
            (20, Some(ReturnStatus::ReturnKitSent))
        );
        for (raw, field) in [
            (
                RawReturnOrderQuery {
                    status: Some("LOST".into()),
                    ..RawReturnOrderQuery::default()
                },
                "status",
            ),
            (
                RawReturnOrderQuery {
                    size: Some("1001".into()),
                    ..RawReturnOrderQuery::default()
                },
                "size",
            ),
            (
                RawReturnOrderQuery {
                    item_id: Some("x".into()),
                    ..RawReturnOrderQuery::default()
                },
                "itemId",
            ),
        ] {
            let e = ReturnOrderQuery::parse(&raw).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{field}:")), "{e}");
        }
    }
}
