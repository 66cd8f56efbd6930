//! Return orders as the API shows and takes them (docs/api.md, "Returns";
//! docs/returns.md): the order ([`ReturnOrderBody`]), a page of the listing
//! ([`ReturnOrderPageBody`], the inventory listing's envelope), the
//! listing's parameters ([`ReturnOrderListParams`]), and the bodies of
//! `POST` ([`ReturnOrderCreate`]) and `PATCH` ([`ReturnOrderPatch`]), turned
//! into the domain's `ReturnRequest` and `ReturnOrderChange`.
//!
//! `retrievalMethod` is rendered as an item's `returnOrder.retrievalMethod`
//! is ([`crate::item::RetrievalBody`]).

use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::Object;
use utoipa::{IntoParams, ToSchema};

use equip_domain::error::DomainError;
use equip_domain::ids::{InventoryItemId, PersonId, ReturnOrderId, ReturnOrderItemId, WarehouseId};
use equip_domain::inventory::{RetrievalStatus, ReturnStatus};
use equip_domain::returns::change::{LineChange, RetrievalChange, ReturnOrderChange, Tracking};
use equip_domain::returns::create::ReturnRequest;
use equip_domain::returns::order::{ReturnLine, ReturnOrder};
use equip_domain::returns::query::{RawReturnOrderQuery, ReturnOrderPage, ReturnOrderQuery};
use equip_domain::returns::{ClosedReason, LineState, RetrievalType};

use equip_domain::inventory_query::{DEFAULT_PAGE_SIZE, FIRST_PAGE, MAX_PAGE, MAX_PAGE_SIZE};
use equip_domain::returns::create::MAX_ITEMS;

use crate::item::{Pagination, RetrievalBody};
use crate::read::double_option;
use crate::schema::{names, nullable_one_of, one_of};

// The `#[param]` / `#[schema]` facts below are literals (utoipa takes no
// constant there): page, size, and the 1,000 items of a return or lines of a
// change.
const _: () = assert!(FIRST_PAGE == 1 && MAX_PAGE == 10_000_000, "page");
const _: () = assert!(MAX_PAGE_SIZE == 1000 && DEFAULT_PAGE_SIZE == 100, "size");
const _: () = assert!(MAX_ITEMS == 1000, "itemIds and lines: maxItems");

use crate::time::auto as time;

fn return_status() -> Object {
    one_of(names!(ReturnStatus))
}

fn retrieval_type() -> Object {
    one_of(names!(RetrievalType))
}

fn retrieval_status() -> Object {
    one_of(names!(RetrievalStatus))
}

fn closed_reason() -> Object {
    nullable_one_of(names!(ClosedReason))
}

fn cancelled() -> Object {
    one_of(["CANCELLED"])
}

/// A return order: the items of one person coming back, how they come back
/// (`retrievalMethod`, null while none is chosen) and a line per item.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = ReturnOrder)]
pub struct ReturnOrderBody<'a> {
    #[schema(value_type = uuid::Uuid)]
    id: ReturnOrderId,
    /// The person whose items come back; null for an imported order that did not name them.
    #[schema(value_type = Option<uuid::Uuid>, required)]
    person_id: Option<PersonId>,
    /// Derived from the method and the lines (docs/returns.md).
    #[schema(schema_with = return_status)]
    status: ReturnStatus,
    #[schema(format = DateTime)]
    created_at: String,
    #[schema(format = DateTime)]
    updated_at: String,
    #[schema(required)]
    retrieval_method: Option<RetrievalBody<'a>>,
    lines: Vec<ReturnLineBody>,
}

/// One item of a return order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = ReturnOrderLine)]
pub struct ReturnLineBody {
    /// The line's id (the item's `returnOrder.returnOrderItemId`).
    #[schema(value_type = uuid::Uuid)]
    id: ReturnOrderItemId,
    #[schema(value_type = uuid::Uuid)]
    item_id: InventoryItemId,
    #[schema(schema_with = return_status)]
    status: ReturnStatus,
    itad_requested: bool,
    /// When a warehouse received the item.
    #[schema(value_type = Option<String>, format = DateTime, required)]
    received_at: Option<String>,
    /// The warehouse that received it.
    #[schema(value_type = Option<uuid::Uuid>, required)]
    warehouse_id: Option<WarehouseId>,
    /// Why the line was written off.
    #[schema(schema_with = closed_reason, required)]
    closed_reason: Option<ClosedReason>,
}

impl From<&ReturnLine> for ReturnLineBody {
    fn from(l: &ReturnLine) -> Self {
        Self {
            id: l.id,
            item_id: l.item,
            status: l.status,
            itad_requested: l.itad_requested,
            received_at: l.received_at.map(time),
            warehouse_id: l.warehouse_id,
            closed_reason: match l.state {
                LineState::WrittenOff(r) => Some(r),
                _ => None,
            },
        }
    }
}

impl<'a> From<&'a ReturnOrder> for ReturnOrderBody<'a> {
    fn from(o: &'a ReturnOrder) -> Self {
        Self {
            id: o.id,
            person_id: o.person,
            status: o.status,
            created_at: time(o.created_at),
            updated_at: time(o.updated_at),
            retrieval_method: o.retrieval.as_ref().map(RetrievalBody::from),
            lines: o.lines.iter().map(ReturnLineBody::from).collect(),
        }
    }
}

/// The answer to `POST /api/v1/return-orders`: the new order, to a key that
/// may read return orders (`returns:read`); only its id to a key that may
/// only write them.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ReturnOrderCreated<'a> {
    /// The order.
    Order(Box<ReturnOrderBody<'a>>),
    /// Its id alone: `{"id"}`.
    Id {
        /// The new order's id.
        id: ReturnOrderId,
    },
}

impl<'a> ReturnOrderCreated<'a> {
    /// The answer to a key that may read the order.
    #[must_use]
    pub fn order(order: &'a ReturnOrder) -> Self {
        Self::Order(Box::new(ReturnOrderBody::from(order)))
    }

    /// The answer to a key that may only write.
    #[must_use]
    pub fn id(order: &ReturnOrder) -> Self {
        Self::Id { id: order.id }
    }
}

// By hand, as `ItemCreated`'s: the `{"id"}` object takes no other member.
impl utoipa::PartialSchema for ReturnOrderCreated<'_> {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        crate::item::body_or_id(ReturnOrderBody::name())
    }
}

impl ToSchema for ReturnOrderCreated<'_> {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        use utoipa::PartialSchema;
        schemas.push((
            ReturnOrderBody::name().into_owned(),
            ReturnOrderBody::schema(),
        ));
        ReturnOrderBody::schemas(schemas);
    }
}

/// A page of return orders, newest first, and where it is.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ReturnOrderPage)]
pub struct ReturnOrderPageBody<'a> {
    data: Vec<ReturnOrderBody<'a>>,
    pagination: Pagination,
}

impl<'a> ReturnOrderPageBody<'a> {
    /// The page `page` of `query`.
    #[must_use]
    pub fn new(query: &ReturnOrderQuery, page: &'a ReturnOrderPage) -> Self {
        let size = u64::from(query.size());
        Self {
            data: page.orders.iter().map(ReturnOrderBody::from).collect(),
            pagination: Pagination {
                total_records: page.total_records,
                total_pages: page.total_records.div_ceil(size),
                current_page: query.page().get(),
                page_size: query.size(),
            },
        }
    }
}

/// The parameters of `GET /api/v1/return-orders`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ReturnOrderListParams {
    /// 1-based page number.
    #[param(value_type = Option<i32>, minimum = 1, maximum = 10000000, default = 1)]
    page: Option<String>,
    /// Orders per page.
    #[param(value_type = Option<i32>, minimum = 1, maximum = 1000, default = 100)]
    size: Option<String>,
    /// Orders of this status (case-insensitive).
    #[param(schema_with = return_status)]
    status: Option<String>,
    /// Orders of this person.
    #[param(value_type = Option<uuid::Uuid>)]
    person_id: Option<String>,
    /// Orders with a line for this item.
    #[param(value_type = Option<uuid::Uuid>)]
    item_id: Option<String>,
}

impl From<ReturnOrderListParams> for RawReturnOrderQuery {
    fn from(p: ReturnOrderListParams) -> Self {
        Self {
            page: p.page,
            size: p.size,
            status: p.status,
            person_id: p.person_id,
            item_id: p.item_id,
        }
    }
}

/// The body of `POST /api/v1/return-orders`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReturnOrderCreate {
    /// An ACTIVE or OFFBOARDING person of the organization.
    #[serde(deserialize_with = "crate::id::required")]
    #[schema(value_type = uuid::Uuid)]
    person_id: PersonId,
    /// 1 to 1,000 distinct items, each DEPLOYED to that person and on no active return.
    #[schema(value_type = Vec<uuid::Uuid>, min_items = 1, max_items = 1000)]
    item_ids: Vec<String>,
    /// IT asset disposition for every line (default false).
    #[serde(default)]
    itad_requested: Option<bool>,
}

fn id_at<T: std::str::FromStr>(field: String, raw: &str) -> Result<T, DomainError> {
    raw.trim()
        .parse()
        .map_err(|_| DomainError::invalid(field, format!("'{raw}' is not a UUID")))
}

impl TryFrom<ReturnOrderCreate> for ReturnRequest {
    type Error = DomainError;

    fn try_from(b: ReturnOrderCreate) -> Result<Self, DomainError> {
        Ok(Self {
            person: b.person_id,
            items: b
                .item_ids
                .iter()
                .enumerate()
                .map(|(i, raw)| id_at(format!("itemIds[{i}]"), raw))
                .collect::<Result<_, _>>()?,
            itad_requested: b.itad_requested.unwrap_or(false),
        })
    }
}

/// The body of `PATCH /api/v1/return-orders/{id}`: any of `retrievalMethod`, `lines`, or `status` CANCELLED (alone).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReturnOrderPatch {
    #[serde(default)]
    retrieval_method: Option<RetrievalMethodPatch>,
    #[serde(default)]
    #[schema(max_items = 1000)]
    lines: Option<Vec<ReturnLinePatch>>,
    /// CANCELLED cancels the order while no line is received or written off.
    #[serde(default)]
    #[schema(value_type = Option<String>, schema_with = cancelled)]
    status: Option<String>,
}

/// Chooses, keeps or changes the method, moves its status, sets its tracking fields (null clears one).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RetrievalMethodPatch {
    #[serde(rename = "type")]
    #[schema(schema_with = retrieval_type)]
    kind: RetrievalType,
    #[serde(default)]
    #[schema(schema_with = retrieval_status)]
    status: Option<RetrievalStatus>,
    /// RETURN_KIT and INBOUND_LABEL.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 2048)]
    inbound_tracking_code: Option<Option<String>>,
    /// RETURN_KIT and INBOUND_LABEL.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 2048)]
    inbound_tracking_link: Option<Option<String>>,
    /// RETURN_KIT only.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 2048)]
    outbound_tracking_code: Option<Option<String>>,
    /// RETURN_KIT only.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 2048)]
    outbound_tracking_link: Option<Option<String>>,
}

/// A line's change: its `itadRequested`, or a write-off with its `closedReason`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReturnLinePatch {
    #[serde(deserialize_with = "crate::id::required")]
    #[schema(value_type = uuid::Uuid)]
    id: ReturnOrderItemId,
    #[serde(default)]
    itad_requested: Option<bool>,
    #[serde(default)]
    #[schema(schema_with = closed_reason)]
    closed_reason: Option<ClosedReason>,
}

impl TryFrom<ReturnOrderPatch> for ReturnOrderChange {
    type Error = DomainError;

    fn try_from(b: ReturnOrderPatch) -> Result<Self, DomainError> {
        let cancel = match b.status.as_deref() {
            None => false,
            Some("CANCELLED") => true,
            Some(other) => {
                return Err(DomainError::invalid(
                    "status",
                    format!(
                        "only CANCELLED may be set, not '{other}'; the status follows from the method and the lines"
                    ),
                ))
            }
        };
        Ok(Self {
            retrieval: b.retrieval_method.map(|r| RetrievalChange {
                method: r.kind,
                status: r.status,
                tracking: Tracking {
                    inbound_tracking_code: r.inbound_tracking_code,
                    inbound_tracking_link: r.inbound_tracking_link,
                    outbound_tracking_code: r.outbound_tracking_code,
                    outbound_tracking_link: r.outbound_tracking_link,
                },
            }),
            lines: b
                .lines
                .unwrap_or_default()
                .into_iter()
                .map(|l| LineChange {
                    id: l.id,
                    itad_requested: l.itad_requested,
                    closed_reason: l.closed_reason,
                })
                .collect(),
            cancel,
        })
    }
}
