//! Rows of joiners' orders, their lines and their shipments, and the
//! conversion of one order's rows to and from the domain's
//! [`Order`](equip_domain::orders::order::Order).

use equip_domain::ids::{OrderId, OrderLineId, ShipmentId};
use equip_domain::orders::order::{Order, OrderLine, Shipment};
use equip_domain::orders::{LineStatus, OrderStatus, ShipmentStatus};

use super::*;
use crate::schema::{order_lines, orders, shipments};

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = orders, treat_none_as_default_value = false)]
pub(crate) struct OrderRow {
    pub id: String,
    pub organization_id: String,
    pub person_id: String,
    pub package_id: Option<String>,
    /// Derived from the lines by the domain; a copy for filtering.
    pub status: String,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = order_lines, treat_none_as_default_value = false)]
pub(crate) struct OrderLineRow {
    pub id: String,
    pub organization_id: String,
    pub order_id: String,
    pub position: i32,
    pub category_code: String,
    /// JSON array of SKU ids, in order of preference.
    pub sku_ids: String,
    pub status: String,
    pub inventory_item_id: Option<String>,
    pub shipment_id: Option<String>,
    pub created_at: NaiveDateTime,
    pub updated_at: NaiveDateTime,
}

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = shipments, treat_none_as_default_value = false)]
pub(crate) struct ShipmentRow {
    pub id: String,
    pub organization_id: String,
    pub order_id: String,
    pub status: String,
    pub carrier: Option<String>,
    pub tracking_code: Option<String>,
    pub tracking_link: Option<String>,
    pub shipped_at: NaiveDateTime,
    pub delivered_at: Option<NaiveDateTime>,
    pub updated_at: NaiveDateTime,
}

/// What a change writes to a line's row (its category, preferred SKUs and
/// position never change).
#[derive(Debug, Clone, AsChangeset)]
#[diesel(table_name = order_lines, treat_none_as_null = true)]
pub(crate) struct OrderLineChange {
    pub status: String,
    pub inventory_item_id: Option<String>,
    pub shipment_id: Option<String>,
    pub updated_at: NaiveDateTime,
}

/// What a change writes to a shipment's row.
#[derive(Debug, Clone, AsChangeset)]
#[diesel(table_name = shipments, treat_none_as_null = true)]
pub(crate) struct ShipmentChange {
    pub status: String,
    pub carrier: Option<String>,
    pub tracking_code: Option<String>,
    pub tracking_link: Option<String>,
    pub delivered_at: Option<NaiveDateTime>,
    pub updated_at: NaiveDateTime,
}

impl OrderRow {
    pub(crate) fn of(org: &str, o: &Order) -> Self {
        Self {
            id: o.id.to_string(),
            organization_id: org.to_owned(),
            person_id: o.person_id.to_string(),
            package_id: o.package_id.map(|p| p.to_string()),
            status: o.status.as_str().to_owned(),
            created_at: db_time(o.created_at),
            updated_at: db_time(o.updated_at),
        }
    }
}

impl OrderLineRow {
    pub(crate) fn of(org: &str, order: OrderId, l: &OrderLine) -> DbResult<Self> {
        Ok(Self {
            id: l.id.to_string(),
            organization_id: org.to_owned(),
            order_id: order.to_string(),
            position: i32::try_from(l.position)
                .map_err(|_| DbError::corrupt("line position out of range"))?,
            category_code: l.category_code.clone(),
            sku_ids: to_json(&l.sku_ids)?,
            status: l.status.as_str().to_owned(),
            inventory_item_id: l.item_id.map(|i| i.to_string()),
            shipment_id: l.shipment_id.map(|s| s.to_string()),
            created_at: db_time(l.created_at),
            updated_at: db_time(l.updated_at),
        })
    }

    fn into_domain(self) -> DbResult<OrderLine> {
        Ok(OrderLine {
            id: parse_id::<OrderLineId>(&self.id)?,
            position: u32::try_from(self.position)
                .map_err(|_| DbError::corrupt("negative line position"))?,
            category_code: self.category_code,
            sku_ids: from_json(&self.sku_ids)?,
            status: parse_enum(&self.status, LineStatus::parse)?,
            item_id: self
                .inventory_item_id
                .as_deref()
                .map(parse_id::<InventoryItemId>)
                .transpose()?,
            shipment_id: self
                .shipment_id
                .as_deref()
                .map(parse_id::<ShipmentId>)
                .transpose()?,
            created_at: utc(self.created_at),
            updated_at: utc(self.updated_at),
        })
    }
}

impl OrderLineChange {
    pub(crate) fn of(l: &OrderLine) -> Self {
        Self {
            status: l.status.as_str().to_owned(),
            inventory_item_id: l.item_id.map(|i| i.to_string()),
            shipment_id: l.shipment_id.map(|s| s.to_string()),
            updated_at: db_time(l.updated_at),
        }
    }
}

impl ShipmentRow {
    pub(crate) fn of(org: &str, s: &Shipment) -> Self {
        Self {
            id: s.id.to_string(),
            organization_id: org.to_owned(),
            order_id: s.order_id.to_string(),
            status: s.status.as_str().to_owned(),
            carrier: s.carrier.clone(),
            tracking_code: s.tracking_code.clone(),
            tracking_link: s.tracking_link.clone(),
            shipped_at: db_time(s.shipped_at),
            delivered_at: s.delivered_at.map(db_time),
            updated_at: db_time(s.updated_at),
        }
    }
}

impl ShipmentChange {
    pub(crate) fn of(s: &Shipment) -> Self {
        Self {
            status: s.status.as_str().to_owned(),
            carrier: s.carrier.clone(),
            tracking_code: s.tracking_code.clone(),
            tracking_link: s.tracking_link.clone(),
            delivered_at: s.delivered_at.map(db_time),
            updated_at: db_time(s.updated_at),
        }
    }
}

/// An order from its row, its lines' rows and its shipments' rows (any
/// order: lines are sorted by position, shipments by `shipped_at` then id;
/// a shipment's `line_ids` are the lines that name it, by position).
pub(crate) fn order_from_rows(
    order: OrderRow,
    mut lines: Vec<OrderLineRow>,
    mut ships: Vec<ShipmentRow>,
) -> DbResult<Order> {
    lines.sort_by(|a, b| a.position.cmp(&b.position).then_with(|| a.id.cmp(&b.id)));
    ships.sort_by(|a, b| {
        a.shipped_at
            .cmp(&b.shipped_at)
            .then_with(|| a.id.cmp(&b.id))
    });
    let lines = lines
        .into_iter()
        .map(OrderLineRow::into_domain)
        .collect::<DbResult<Vec<_>>>()?;
    let order_id = parse_id::<OrderId>(&order.id)?;
    let shipments = ships
        .into_iter()
        .map(|s| {
            let id = parse_id::<ShipmentId>(&s.id)?;
            Ok(Shipment {
                id,
                order_id,
                status: parse_enum(&s.status, ShipmentStatus::parse)?,
                line_ids: lines
                    .iter()
                    .filter(|l| l.shipment_id == Some(id))
                    .map(|l| l.id)
                    .collect(),
                carrier: s.carrier,
                tracking_code: s.tracking_code,
                tracking_link: s.tracking_link,
                shipped_at: utc(s.shipped_at),
                delivered_at: s.delivered_at.map(utc),
                updated_at: utc(s.updated_at),
            })
        })
        .collect::<DbResult<Vec<_>>>()?;
    Ok(Order {
        id: order_id,
        organization_id: parse_id::<OrganizationId>(&order.organization_id)?,
        person_id: parse_id::<PersonId>(&order.person_id)?,
        package_id: order
            .package_id
            .as_deref()
            .map(parse_id::<PackageId>)
            .transpose()?,
        status: parse_enum(&order.status, OrderStatus::parse)?,
        lines,
        shipments,
        created_at: utc(order.created_at),
        updated_at: utc(order.updated_at),
    })
}
