//! Where a joiner's order is decided (docs/orders.md): the joiner's half of
//! the equipment lifecycle, from the provisioning change that gives a person
//! a package with contents to the items DEPLOYED to them.
//!
//! - [`order`]: the order, its lines (one per unit) and its shipments as
//!   resources, and the view their events record;
//! - [`status`]: the order's status, derived from its lines;
//! - [`plan`]: what a provisioning change does to a person's order (create
//!   one, replace its unshipped lines, cancel it, or nothing);
//! - [`allocation`]: which AVAILABLE item a line takes, as the ordered
//!   tiers a store searches;
//! - [`shipment`]: what shipping lines and recording a delivery do;
//! - [`query`]: the order listing's filters and paging;
//! - [`fulfilment`]: what each step does to the item a line holds;
//! - [`held`]: what other writers may not change of an item a line holds.
//!
//! A store applies these as it applies the import's rules
//! (`crate::import::stored`): it locks and reads the facts in its
//! transaction, asks the functions here, and writes what they decided.

pub mod allocation;
pub mod fulfilment;
pub mod held;
pub mod order;
pub mod plan;
pub mod query;
pub mod shipment;
pub mod status;

wire_enum! {
    /// Where an order stands, derived from its lines ([`status::order_status`]).
    OrderStatus, field = "status", unknown = (|raw: &str| format!(
        "unknown order status '{raw}'; expected PENDING, ALLOCATED, SHIPPED, DELIVERED or CANCELLED"
    )) {
        /// A line waits for stock and none has shipped.
        Pending => "PENDING",
        /// Every line holds an item.
        Allocated => "ALLOCATED",
        /// A line has shipped.
        Shipped => "SHIPPED",
        /// Every line was delivered.
        Delivered => "DELIVERED",
        /// Cancelled (offboarding, or the package taken away before shipment).
        Cancelled => "CANCELLED",
    }
}

wire_enum! {
    /// Where one line (one unit) of an order stands.
    LineStatus, field = "lines.status" {
        /// No stock: waiting for an item of its category.
        Backordered => "BACKORDERED",
        /// Holds an item (UNAVAILABLE, PENDING_FULFILLMENT).
        Allocated => "ALLOCATED",
        /// Its item is on its way (UNAVAILABLE, IN_TRANSIT).
        Shipped => "SHIPPED",
        /// Its item reached the person (DEPLOYED to them).
        Delivered => "DELIVERED",
        /// Cancelled; an item it held is AVAILABLE again.
        Cancelled => "CANCELLED",
    }
}

impl LineStatus {
    /// The line holds an item that is not yet the person's: ALLOCATED or
    /// SHIPPED.
    #[must_use]
    pub const fn holds_item(self) -> bool {
        matches!(self, Self::Allocated | Self::Shipped)
    }

    /// Nothing has left the warehouse for it: BACKORDERED or ALLOCATED (a
    /// package change replaces such lines; a cancellation cancels them).
    #[must_use]
    pub const fn unshipped(self) -> bool {
        matches!(self, Self::Backordered | Self::Allocated)
    }
}

wire_enum! {
    /// Where a shipment stands.
    ShipmentStatus, field = "status", unknown = (|raw: &str| format!(
        "unknown shipment status '{raw}'; expected SHIPPED, DELIVERED or DELIVERY_EXCEPTION"
    )) {
        /// On its way.
        Shipped => "SHIPPED",
        /// Delivered to the person: its items are DEPLOYED to them.
        Delivered => "DELIVERED",
        /// The carrier reported a problem; it may still be delivered.
        DeliveryException => "DELIVERY_EXCEPTION",
    }
}
