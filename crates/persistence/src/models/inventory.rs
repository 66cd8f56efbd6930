//! Rows of inventory items with their pricing, tags and return lines, and
//! the conversion of one item's rows to and from the domain.

use super::*;
use crate::schema::{
    inventory_item_pricing, inventory_item_tags, inventory_items, return_order_items, return_orders,
};

#[derive(Debug, Clone, Queryable, Selectable, Insertable, AsChangeset)]
#[diesel(table_name = inventory_items, treat_none_as_default_value = false, treat_none_as_null = true)]
pub(crate) struct ItemRow {
    pub id: String,
    pub organization_id: String,
    pub sku_id: String,
    pub serial_number: Option<String>,
    pub imei: String,
    pub deploy_status: String,
    pub deploy_reason: Option<String>,
    pub condition: String,
    pub renewal_date: Option<NaiveDate>,
    pub renewal_date_updated_by: Option<String>,
    pub billing_start_date: Option<NaiveDate>,
    pub billing_end_date: Option<NaiveDate>,
    pub procurement_method: Option<String>,
    pub assignee_type: Option<String>,
    pub assignee_id: Option<String>,
    pub assigned_at: Option<NaiveDateTime>,
    pub description: Option<String>,
    pub erp_invoice_id: Option<String>,
    pub hold_start_date: Option<NaiveDate>,
    pub unlock_date: Option<NaiveDate>,
    pub itad_requested: Option<bool>,
    pub device_program_status: Option<String>,
    pub device_program_last_sync_at: Option<NaiveDateTime>,
    pub device_program_next_sync_at: Option<NaiveDateTime>,
    pub supplied_by: String,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = inventory_item_pricing, treat_none_as_default_value = false)]
pub(crate) struct PricingRow {
    pub item_id: String,
    pub organization_id: String,
    pub region_code: String,
    pub price_option: String,
    pub price: f64,
    pub currency_code: String,
    pub discounted_price: f64,
    pub discount_percentage: f64,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = inventory_item_tags, treat_none_as_default_value = false)]
pub(crate) struct TagRow {
    pub item_id: String,
    pub organization_id: String,
    pub position: i32,
    pub tag_id: String,
    pub label: String,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = return_orders, treat_none_as_default_value = false)]
pub(crate) struct ReturnOrderRow {
    pub id: String,
    pub organization_id: String,
    pub person_id: Option<String>,
    pub status: String,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
    pub cancelled: bool,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = return_order_items, treat_none_as_default_value = false)]
pub(crate) struct ReturnOrderItemRow {
    pub id: String,
    pub organization_id: String,
    pub return_order_id: String,
    pub inventory_item_id: String,
    pub status: String,
    pub active: bool,
    pub retrieval_id: Option<String>,
    pub retrieval_type: Option<String>,
    pub retrieval_status: Option<String>,
    pub retrieval_updated_at: Option<NaiveDateTime>,
    pub inbound_tracking_code: Option<String>,
    pub inbound_tracking_link: Option<String>,
    pub outbound_tracking_code: Option<String>,
    pub outbound_tracking_link: Option<String>,
    pub itad_requested: bool,
    pub received_at: Option<NaiveDateTime>,
    pub warehouse_id: Option<String>,
    pub closed_reason: Option<String>,
}

/// Rows of one inventory item.
pub(crate) struct ItemRows {
    pub item: ItemRow,
    pub pricing: Option<PricingRow>,
    pub tags: Vec<TagRow>,
    /// The active return: its order and its line for this item.
    pub active_return: Option<(ReturnOrderRow, ReturnOrderItemRow)>,
}

impl ItemRows {
    pub(crate) fn from_domain(i: &InventoryItem) -> DbResult<Self> {
        let id = i.id.to_string();
        let org = i.organization_id.to_string();
        let tags = i
            .tags
            .iter()
            .enumerate()
            .map(|(n, t)| {
                Ok(TagRow {
                    item_id: id.clone(),
                    organization_id: org.clone(),
                    position: position(n)?,
                    tag_id: t.id.to_string(),
                    label: t.label.clone(),
                })
            })
            .collect::<DbResult<Vec<_>>>()?;
        let pricing = i.pricing.as_ref().map(|p| PricingRow {
            item_id: id.clone(),
            organization_id: org.clone(),
            region_code: p.region_code.clone(),
            price_option: p.price_option.clone(),
            price: p.price,
            currency_code: p.currency_code.clone(),
            discounted_price: p.discounted_price,
            discount_percentage: p.discount_percentage,
        });
        let active_return = i.return_order.as_ref().map(|r| {
            let (rid, rtype, rstatus, rat, in_code, in_link, out_code, out_link) =
                retrieval_columns(r.retrieval.as_ref());
            (
                ReturnOrderRow {
                    id: r.id.to_string(),
                    organization_id: org.clone(),
                    // The order is the holder's return (docs/import.md).
                    person_id: match i.assignment.map(|a| a.assignee) {
                        Some(Assignee::Person(p)) => Some(p.to_string()),
                        _ => None,
                    },
                    status: r.status.as_str().to_owned(),
                    created_at: db_time(r.created_at),
                    updated_at: db_time(r.created_at),
                    cancelled: false,
                },
                ReturnOrderItemRow {
                    id: r.return_order_item_id.to_string(),
                    organization_id: org.clone(),
                    return_order_id: r.id.to_string(),
                    inventory_item_id: id.clone(),
                    status: r.return_order_item_status.as_str().to_owned(),
                    active: true,
                    retrieval_id: rid,
                    retrieval_type: rtype,
                    retrieval_status: rstatus,
                    retrieval_updated_at: rat,
                    inbound_tracking_code: in_code,
                    inbound_tracking_link: in_link,
                    outbound_tracking_code: out_code,
                    outbound_tracking_link: out_link,
                    itad_requested: false,
                    received_at: None,
                    warehouse_id: None,
                    closed_reason: None,
                },
            )
        });
        let (assignee_type, assignee_id, assigned_at) = match i.assignment {
            Some(a) => (
                Some(a.assignee.kind().as_str().to_owned()),
                Some(id_text(&a.assignee.id())),
                a.assigned_at.map(db_time),
            ),
            None => (None, None, None),
        };
        let item = ItemRow {
            id,
            organization_id: org,
            sku_id: i.sku_id.to_string(),
            serial_number: i.serial_number.clone(),
            imei: to_json(&i.imei)?,
            deploy_status: i.deploy_status.as_str().to_owned(),
            deploy_reason: i.deploy_reason.map(|r| r.as_str().to_owned()),
            condition: i.condition.as_str().to_owned(),
            renewal_date: i.renewal_date,
            renewal_date_updated_by: i.renewal_date_updated_by.map(|r| r.as_str().to_owned()),
            billing_start_date: i.billing_start_date,
            billing_end_date: i.billing_end_date,
            procurement_method: i.procurement_method.clone(),
            assignee_type,
            assignee_id,
            assigned_at,
            description: i.description.clone(),
            erp_invoice_id: i.erp_invoice_id.clone(),
            hold_start_date: i.hold_start_date,
            unlock_date: i.unlock_date,
            itad_requested: i.itad_requested,
            device_program_status: i
                .device_program
                .as_ref()
                .map(|d| d.assignment_status.as_str().to_owned()),
            device_program_last_sync_at: i
                .device_program
                .as_ref()
                .and_then(|d| d.last_sync_timestamp.map(db_time)),
            device_program_next_sync_at: i
                .device_program
                .as_ref()
                .map(|d| db_time(d.next_sync_timestamp)),
            supplied_by: i.supplied_by.as_str().to_owned(),
            created_at: db_time(i.created_at),
            updated_at: db_time(i.updated_at),
        };
        Ok(Self {
            item,
            pricing,
            tags,
            active_return,
        })
    }

    /// `tags` must be in position order.
    pub(crate) fn into_domain(self) -> DbResult<InventoryItem> {
        let r = self.item;
        let assignment = match (r.assignee_type.as_deref(), r.assignee_id.as_deref()) {
            (Some(kind), Some(id)) => Some(Assignment {
                assignee: Assignee::new(
                    parse_enum(kind, AssigneeType::parse)?,
                    Uuid::parse_str(id)
                        .map_err(|_| DbError::corrupt(format!("'{id}' is not a UUID")))?,
                ),
                assigned_at: r.assigned_at.map(utc),
            }),
            (None, None) => None,
            _ => return Err(DbError::corrupt("assignee_type and assignee_id disagree")),
        };
        let device_program = match (
            r.device_program_status.as_deref(),
            r.device_program_next_sync_at,
        ) {
            (Some(status), Some(next)) => Some(DeviceProgram {
                assignment_status: parse_enum(status, DeviceProgramStatus::parse)?,
                last_sync_timestamp: r.device_program_last_sync_at.map(utc),
                next_sync_timestamp: utc(next),
            }),
            (None, _) => None,
            (Some(_), None) => {
                return Err(DbError::corrupt("device program without next sync time"))
            }
        };
        let return_order = self
            .active_return
            .map(|(o, line)| return_info(o, line))
            .transpose()?;
        Ok(InventoryItem {
            id: parse_id::<InventoryItemId>(&r.id)?,
            organization_id: parse_id::<OrganizationId>(&r.organization_id)?,
            sku_id: parse_id(&r.sku_id)?,
            serial_number: r.serial_number,
            imei: from_json(&r.imei)?,
            deploy_status: parse_enum(&r.deploy_status, DeployStatus::parse)?,
            deploy_reason: parse_opt_enum(r.deploy_reason.as_deref(), DeployReason::parse)?,
            condition: parse_enum(&r.condition, Condition::parse)?,
            renewal_date: r.renewal_date,
            renewal_date_updated_by: parse_opt_enum(
                r.renewal_date_updated_by.as_deref(),
                RenewalDateUpdatedBy::parse,
            )?,
            billing_start_date: r.billing_start_date,
            billing_end_date: r.billing_end_date,
            procurement_method: r.procurement_method,
            assignment,
            tags: self
                .tags
                .into_iter()
                .map(|t| {
                    Ok(Tag {
                        id: parse_id::<TagId>(&t.tag_id)?,
                        label: t.label,
                    })
                })
                .collect::<DbResult<Vec<_>>>()?,
            pricing: self.pricing.map(|p| Price {
                region_code: p.region_code,
                price_option: p.price_option,
                price: p.price,
                currency_code: p.currency_code,
                discounted_price: p.discounted_price,
                discount_percentage: p.discount_percentage,
            }),
            description: r.description,
            erp_invoice_id: r.erp_invoice_id,
            hold_start_date: r.hold_start_date,
            unlock_date: r.unlock_date,
            itad_requested: r.itad_requested,
            device_program,
            supplied_by: parse_enum(&r.supplied_by, SuppliedBy::parse)?,
            return_order,
            created_at: utc(r.created_at),
            updated_at: utc(r.updated_at),
        })
    }
}

fn return_info(order: ReturnOrderRow, line: ReturnOrderItemRow) -> DbResult<ReturnInfo> {
    let retrieval = retrieval_of(&line)?;
    Ok(ReturnInfo {
        id: parse_id::<ReturnOrderId>(&order.id)?,
        status: parse_enum(&order.status, ReturnStatus::parse)?,
        created_at: utc(order.created_at),
        return_order_item_id: parse_id::<ReturnOrderItemId>(&line.id)?,
        return_order_item_status: parse_enum(&line.status, ReturnStatus::parse)?,
        retrieval,
    })
}

/// The retrieval a line's row holds (each line of an order holds a copy of
/// the order's); `None` while no method is chosen.
pub(crate) fn retrieval_of(line: &ReturnOrderItemRow) -> DbResult<Option<Retrieval>> {
    Ok(
        match (
            line.retrieval_id.as_deref(),
            line.retrieval_type.as_deref(),
            line.retrieval_status.as_deref(),
            line.retrieval_updated_at,
        ) {
            (None, None, None, None) => None,
            (Some(id), Some(kind), Some(status), Some(updated_at)) => {
                let kind = match kind {
                    "RETURN_KIT" => RetrievalKind::ReturnKit {
                        inbound_tracking_code: line.inbound_tracking_code.clone(),
                        inbound_tracking_link: line.inbound_tracking_link.clone(),
                        outbound_tracking_code: line.outbound_tracking_code.clone(),
                        outbound_tracking_link: line.outbound_tracking_link.clone(),
                    },
                    "INBOUND_LABEL" => RetrievalKind::InboundLabel {
                        inbound_tracking_code: line.inbound_tracking_code.clone(),
                        inbound_tracking_link: line.inbound_tracking_link.clone(),
                    },
                    "PHYSICAL" => RetrievalKind::Physical,
                    other => {
                        return Err(DbError::corrupt(format!(
                            "unknown retrieval type '{other}'"
                        )))
                    }
                };
                Some(Retrieval {
                    id: parse_id::<RetrievalId>(id)?,
                    status: parse_enum(status, RetrievalStatus::parse)?,
                    updated_at: utc(updated_at),
                    kind,
                })
            }
            _ => return Err(DbError::corrupt("incomplete retrieval columns")),
        },
    )
}

/// A return order from its row and its lines' rows (any order; sorted by
/// line id). The order's retrieval is its first line's; a line is received
/// when `received_at` is set, written off when `closed_reason` is, cancelled
/// when its order is or when it is inactive without being closed, else open.
pub(crate) fn return_order_from_rows(
    order: ReturnOrderRow,
    mut lines: Vec<ReturnOrderItemRow>,
) -> DbResult<ReturnOrder> {
    lines.sort_by(|a, b| a.id.cmp(&b.id));
    let retrieval = match lines.first() {
        Some(line) => retrieval_of(line)?,
        None => None,
    };
    let lines = lines
        .into_iter()
        .map(|l| {
            let state = if l.received_at.is_some() {
                LineState::Received
            } else if let Some(reason) = l.closed_reason.as_deref() {
                LineState::WrittenOff(parse_enum(reason, ClosedReason::parse)?)
            } else if order.cancelled || !l.active {
                LineState::Cancelled
            } else {
                LineState::Open
            };
            Ok(ReturnLine {
                id: parse_id::<ReturnOrderItemId>(&l.id)?,
                item: parse_id::<InventoryItemId>(&l.inventory_item_id)?,
                state,
                status: parse_enum(&l.status, ReturnStatus::parse)?,
                itad_requested: l.itad_requested,
                received_at: l.received_at.map(utc),
                warehouse_id: l
                    .warehouse_id
                    .as_deref()
                    .map(parse_id::<WarehouseId>)
                    .transpose()?,
            })
        })
        .collect::<DbResult<Vec<_>>>()?;
    Ok(ReturnOrder {
        id: parse_id::<ReturnOrderId>(&order.id)?,
        organization_id: parse_id::<OrganizationId>(&order.organization_id)?,
        person: order
            .person_id
            .as_deref()
            .map(parse_id::<PersonId>)
            .transpose()?,
        status: parse_enum(&order.status, ReturnStatus::parse)?,
        cancelled: order.cancelled,
        retrieval,
        lines,
        created_at: utc(order.created_at),
        updated_at: utc(order.updated_at),
    })
}

/// What a change writes to a return line's row: everything but its ids.
#[derive(Debug, Clone, AsChangeset)]
#[diesel(table_name = return_order_items, treat_none_as_null = true)]
pub(crate) struct ReturnLineChange {
    pub status: String,
    pub active: bool,
    pub retrieval_id: Option<String>,
    pub retrieval_type: Option<String>,
    pub retrieval_status: Option<String>,
    pub retrieval_updated_at: Option<NaiveDateTime>,
    pub inbound_tracking_code: Option<String>,
    pub inbound_tracking_link: Option<String>,
    pub outbound_tracking_code: Option<String>,
    pub outbound_tracking_link: Option<String>,
    pub itad_requested: bool,
    pub received_at: Option<NaiveDateTime>,
    pub warehouse_id: Option<String>,
    pub closed_reason: Option<String>,
}

/// A retrieval as the columns of its line's row: id, type, status, last
/// change, then the inbound and outbound tracking codes and links (all
/// `None` without a retrieval; those a method lacks `None`).
type RetrievalColumns = (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<NaiveDateTime>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

fn retrieval_columns(retrieval: Option<&Retrieval>) -> RetrievalColumns {
    let Some(ret) = retrieval else {
        return (None, None, None, None, None, None, None, None);
    };
    let (a, b, c, d) = match &ret.kind {
        RetrievalKind::ReturnKit {
            inbound_tracking_code,
            inbound_tracking_link,
            outbound_tracking_code,
            outbound_tracking_link,
        } => (
            inbound_tracking_code.clone(),
            inbound_tracking_link.clone(),
            outbound_tracking_code.clone(),
            outbound_tracking_link.clone(),
        ),
        RetrievalKind::InboundLabel {
            inbound_tracking_code,
            inbound_tracking_link,
        } => (
            inbound_tracking_code.clone(),
            inbound_tracking_link.clone(),
            None,
            None,
        ),
        RetrievalKind::Physical => (None, None, None, None),
    };
    (
        Some(ret.id.to_string()),
        Some(ret.kind.type_name().to_owned()),
        Some(ret.status.as_str().to_owned()),
        Some(db_time(ret.updated_at)),
        a,
        b,
        c,
        d,
    )
}

impl ReturnLineChange {
    /// The row of `line` of an order whose retrieval is `retrieval`.
    pub(crate) fn of(line: &ReturnLine, retrieval: Option<&Retrieval>) -> Self {
        let (rid, rtype, rstatus, rat, a, b, c, d) = retrieval_columns(retrieval);
        Self {
            status: line.status.as_str().to_owned(),
            active: line.active(),
            retrieval_id: rid,
            retrieval_type: rtype,
            retrieval_status: rstatus,
            retrieval_updated_at: rat,
            inbound_tracking_code: a,
            inbound_tracking_link: b,
            outbound_tracking_code: c,
            outbound_tracking_link: d,
            itad_requested: line.itad_requested,
            received_at: line.received_at.map(db_time),
            warehouse_id: line.warehouse_id.map(|w| w.to_string()),
            closed_reason: match line.state {
                LineState::WrittenOff(r) => Some(r.as_str().to_owned()),
                _ => None,
            },
        }
    }
}
