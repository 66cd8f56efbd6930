// @ts-check
// Every code the console shows a person, in words: the API's statuses,
// reasons, conditions, retrieval methods and event types (the enums of
// /openapi.json, docs/api.md). Histories, lists, detail pages, the overview
// and the CSV exports all say a code through `say` with one of these tables;
// a code the console does not know yet is made readable (`label`).

import { label } from "./ui.js";

/** An item's deploy status. */
export const DEPLOY_STATUS_WORDS = {
  DEPLOYED: "Deployed",
  AVAILABLE: "Available",
  UNAVAILABLE: "Unavailable",
  AWAITING_ARRIVAL: "Awaiting arrival",
  ARCHIVED: "Archived",
  ON_HOLD: "On hold",
  VOIDED: "Voided",
};

/** Why an item is unavailable or archived. */
export const DEPLOY_REASON_WORDS = {
  ASSIGNED_TO_ADMIN: "Assigned to an administrator",
  AWAITING_INFORMATION: "Awaiting information",
  BOUGHT_OUT: "Bought by the person",
  DATA_HOLD: "Held for its data",
  DECOMMISSIONED_BY_EMPLOYER: "Decommissioned",
  END_OF_USEFUL_LIFE_DESTROYED: "End of life, destroyed",
  END_OF_USEFUL_LIFE_DONATED: "End of life, donated",
  PENDING_FULFILLMENT: "Waiting for fulfilment",
  GIFTED_BY_EMPLOYER: "Given to the person",
  GIFTED_BY_OPERATOR: "Given away by the operator",
  IN_TRANSIT: "In transit",
  LOCKED_MAKER_ACTIVATION: "Locked (maker's activation lock)",
  LOCKED_FMD_REPORTED_LOST_STOLEN: "Locked (reported lost or stolen)",
  LOCKED_MDM: "Locked (device management)",
  LOCKED_PIN: "Locked (PIN)",
  LOST_BY_OPERATOR: "Lost by the operator",
  LOST_IN_TRANSIT: "Lost in transit",
  LOST_BY_WORKER: "Lost by the person",
  MARKED_FOR_DESTRUCTION: "Marked for destruction",
  NA: "Not applicable",
  NEVER_RECEIVED_BY_WORKER: "Never received by the person",
  OTHER: "Other",
  OUT_FOR_DESTRUCTION: "Out for destruction",
  OUT_FOR_REPAIR: "Out for repair",
  PENDING_BUY_OUT: "Waiting for the person to buy it",
  RECYCLING_REQUESTED: "Recycling requested",
  REQUIRES_CLEANING: "Requires cleaning",
  REQUIRES_REPAIR: "Requires repair",
  RETURN_IN_PROGRESS: "Being returned",
  SENT_TO_OFFICE: "Sent to an office",
  STOLEN: "Stolen",
  UNRESPONSIVE_WORKER: "The person does not answer",
  UNSUPPORTED_REGION: "Unsupported region",
  PERSONAL_DEVICE: "A personal device",
  PENDING_HOLD_RELEASE: "Pending hold release",
};

/** An item's condition. */
export const CONDITION_WORDS = {
  NEW: "New",
  USED_LIKE_NEW: "Used like new",
  USED_GOOD: "Used good",
  USED_FAIR: "Used fair",
  USED: "Used",
  USED_POOR: "Used poor",
  UNUSABLE: "Unusable",
};

/** Who holds an item. */
export const HOLDER_TYPE_WORDS = { PERSON: "Person", WAREHOUSE: "Warehouse", OFFICE: "Office" };

/** A person's status (the SCIM extension's `status`). */
export const PERSON_STATUS_WORDS = { ACTIVE: "Active", OFFBOARDING: "Leaving", OFFBOARDED: "Left" };

/** Return orders' statuses, as people read them. */
export const RETURN_STATUS_WORDS = {
  PENDING: "Pending: no retrieval chosen yet",
  PROCESSING: "Being retrieved",
  RETURN_KIT_SENT: "Return kit sent to the person",
  RETURN_KIT_DELIVERED: "Return kit delivered to the person",
  RETURN_KIT_SENT_BACK: "Sent back by the person",
  RECEIVED_IN_WAREHOUSE: "Received in a warehouse",
  COMPLETED: "Completed: everything received",
  PARTIALLY_COMPLETED: "Completed: some received, the rest written off",
  NOT_COMPLETED: "Closed: everything written off",
  NOT_RETURNED: "Written off",
  SUBMITTED: "Submitted",
  CONFIRMED: "Confirmed",
  RETURNED: "Returned",
  NONE: "No return",
  CANCELLED: "Cancelled",
};

/** Retrieval methods, short. */
export const RETRIEVAL_METHOD_WORDS = { RETURN_KIT: "Return kit", INBOUND_LABEL: "Pre-paid label", PHYSICAL: "In person" };

/** Retrieval statuses in words. */
export const RETRIEVAL_WORDS = {
  REQUESTED: "Requested",
  LABEL_CREATED: "Label created",
  SHIPPED: "Kit shipped to the person",
  DELIVERED: "Kit delivered to the person",
  SENT_BACK: "Sent back by the person",
  ARRIVED_AT_PROCESSING_FACILITY: "Arrived at the processing facility",
  SCHEDULING_PICK_UP: "Scheduling the pick-up",
  DELIVERY_EXCEPTION: "Delivery problem reported by the carrier",
  CANCELLED: "Cancelled",
  PROCESSED: "Processed",
  NOT_PROCESSED: "Not processed",
  PARTIALLY_PROCESSED: "Partially processed",
};

/** Why a return line is written off. */
export const WRITE_OFF_REASONS = {
  LOST_BY_WORKER: "Lost by the person",
  STOLEN: "Stolen",
  UNRESPONSIVE_WORKER: "The person does not answer",
  NEVER_RECEIVED_BY_WORKER: "The person never received it",
  BOUGHT_OUT: "Bought by the person",
  GIFTED_BY_EMPLOYER: "Given to the person",
  PERSONAL_DEVICE: "A personal device",
};

/** Orders' statuses. */
export const ORDER_STATUS_WORDS = {
  PENDING: "Waiting for stock",
  ALLOCATED: "Ready to ship",
  SHIPPED: "Shipped",
  DELIVERED: "Delivered",
  CANCELLED: "Cancelled",
};

/** Order lines' statuses. */
export const LINE_STATUS_WORDS = {
  BACKORDERED: "Waiting for stock (backordered)",
  ALLOCATED: "Item reserved, ready to ship",
  SHIPPED: "Shipped",
  DELIVERED: "Delivered",
  CANCELLED: "Cancelled",
};

/** Shipments' statuses. */
export const SHIPMENT_WORDS = {
  SHIPPED: "On its way",
  DELIVERED: "Delivered",
  DELIVERY_EXCEPTION: "Delivery problem reported",
};

/** Reminders' statuses. */
export const REMINDER_STATUS_WORDS = { PENDING: "Waiting to be sent", SENT: "Sent", DEAD: "Could not be sent" };

/** How a renewal date was set. */
export const RENEWAL_WORDS = {
  RENEWAL_DATE_ORGANIZATION_LEVEL: "The organization's renewal rule",
  RENEWAL_DATE_ORGANIZATION_CATEGORY_LEVEL: "The category's renewal rule",
  RENEWAL_DATE_MANUALLY_UPDATED: "Set by hand",
  CLEAR_RENEWAL_DATE_MANUALLY_SET: "Cleared by hand",
};

/** Who supplied an item. */
export const SUPPLIED_BY_WORDS = { OPERATOR: "The operator", ORGANIZATION: "The organization" };

/** Event types. */
export const EVENT_TYPE_WORDS = {
  "inventory.item.created": "Item created",
  "inventory.item.updated": "Item changed",
  "person.created": "Person created",
  "person.updated": "Person changed",
  "person.offboarding_started": "Offboarding started",
  "person.offboarded": "Offboarding completed",
  "group.created": "Group created",
  "group.updated": "Group changed",
  "group.deleted": "Group deleted",
  "group.member_added": "Member added to a group",
  "group.member_removed": "Member removed from a group",
  "inventory_level.created": "Inventory level created",
  "inventory_level.deactivated": "Inventory level deactivated",
  "inventory_level.updated": "Inventory level changed",
  "inventory_level.below_minimum": "Stock below minimum",
  "reminder.created": "Reminder queued",
  "reminder.delivered": "Reminder sent",
  "reminder.failed": "Reminder could not be sent",
  "return_order.created": "Return started",
  "return_order.updated": "Return changed",
  "order.created": "Order created",
  "order.backordered": "Order waiting for stock",
  "order.updated": "Order changed",
};

/**
 * A code in words from `words`, else the code made readable; "" for none.
 * @param {Record<string, string>} words
 * @param {string | null | undefined} value
 * @returns {string}
 */
export function say(words, value) {
  if (!value) return "";
  return words[value] || label(String(value).replaceAll(".", "_"));
}

/** An item's codes (statuses, reasons, conditions) in one table, for forms that list any of them. */
export const ITEM_WORDS = { ...DEPLOY_STATUS_WORDS, ...DEPLOY_REASON_WORDS, ...CONDITION_WORDS };
