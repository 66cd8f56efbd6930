// @ts-check
// The domain's rules for changing an item (docs/api.md, "Changing an item"),
// so that forms offer only what is valid, and the API's refusals in plain
// words. The API still decides: its 400/409 detail is always shown too.

import { request } from "./api.js";
import { href } from "./router.js";
import { can } from "./scopes.js";
import { propertyEnum } from "./spec.js";
import { h } from "./ui.js";
import { ITEM_WORDS, say } from "./words.js";

// The statuses, reasons and conditions an item can be given are the
// `InventoryItemPatch` schema's enums in equip's OpenAPI document (itemLists);
// the lists below are only what the console falls back to when the document
// cannot be read, and the statuses' order of preference.

/** The statuses an item can be given (the deprecated ones left out), in the console's order. */
export const STATUSES = ["AVAILABLE", "DEPLOYED", "UNAVAILABLE", "AWAITING_ARRIVAL", "ON_HOLD", "ARCHIVED"];

/** Best to worst. */
export const CONDITIONS = ["NEW", "USED_LIKE_NEW", "USED_GOOD", "USED_FAIR", "USED", "USED_POOR", "UNUSABLE"];

export const REASONS = [
  "ASSIGNED_TO_ADMIN", "AWAITING_INFORMATION", "BOUGHT_OUT", "DATA_HOLD", "DECOMMISSIONED_BY_EMPLOYER",
  "END_OF_USEFUL_LIFE_DESTROYED", "END_OF_USEFUL_LIFE_DONATED", "PENDING_FULFILLMENT", "GIFTED_BY_EMPLOYER",
  "GIFTED_BY_OPERATOR", "IN_TRANSIT", "LOCKED_MAKER_ACTIVATION", "LOCKED_FMD_REPORTED_LOST_STOLEN", "LOCKED_MDM",
  "LOCKED_PIN", "LOST_BY_OPERATOR", "LOST_IN_TRANSIT", "LOST_BY_WORKER", "MARKED_FOR_DESTRUCTION", "NA",
  "NEVER_RECEIVED_BY_WORKER", "OTHER", "OUT_FOR_DESTRUCTION", "OUT_FOR_REPAIR", "PENDING_BUY_OUT",
  "RECYCLING_REQUESTED", "REQUIRES_CLEANING", "REQUIRES_REPAIR", "RETURN_IN_PROGRESS", "SENT_TO_OFFICE", "STOLEN",
  "UNRESPONSIVE_WORKER", "UNSUPPORTED_REGION", "PERSONAL_DEVICE", "PENDING_HOLD_RELEASE",
];

/** @typedef {{statuses: string[], reasons: string[], conditions: string[]}} ItemLists */

/** @type {ItemLists} */
let lists = { statuses: STATUSES, reasons: REASONS, conditions: CONDITIONS };
/** @type {Promise<ItemLists> | null} */
let loading = null;

/**
 * `values` in the order of `preferred`, then those `preferred` does not know
 * (in their own order); values only `preferred` has are left out.
 * @param {string[]} values
 * @param {string[]} preferred
 * @returns {string[]}
 */
export function inOrder(values, preferred) {
  return [...preferred.filter((v) => values.includes(v)), ...values.filter((v) => !preferred.includes(v))];
}

/**
 * The statuses, reasons and conditions an item may be given, from the
 * OpenAPI document's `InventoryItemPatch` (statuses in the console's order),
 * read once; the console's own lists when the document cannot be read. The
 * forms (validStatuses, statusFields) use what was read last.
 * @returns {Promise<ItemLists>}
 */
export function itemLists() {
  if (!loading) {
    loading = Promise.all([
      propertyEnum("InventoryItemPatch", "deployStatus", STATUSES),
      propertyEnum("InventoryItemPatch", "deployReason", REASONS),
      propertyEnum("InventoryItemPatch", "condition", CONDITIONS),
    ]).then(([statuses, reasons, conditions]) => {
      lists = {
        statuses: statuses.length ? inOrder(statuses, STATUSES) : STATUSES,
        reasons: reasons.length ? reasons : REASONS,
        conditions: conditions.length ? conditions : CONDITIONS,
      };
      return lists;
    });
  }
  return loading;
}

/**
 * Whether a status needs a reason ("required"), takes none ("none"), or may have one ("optional").
 * @param {string} status
 * @returns {"required" | "none" | "optional"}
 */
export function reasonRule(status) {
  if (status === "UNAVAILABLE" || status === "ARCHIVED") return "required";
  if (status === "DEPLOYED" || status === "AVAILABLE") return "none";
  return "optional";
}

/**
 * The statuses an item in `current` may move to when its holder (after the
 * change) is of `holderType` (PERSON, WAREHOUSE, OFFICE or null).
 * @param {string} current
 * @param {string | null} holderType
 * @returns {string[]}
 */
export function validStatuses(current, holderType) {
  if (current === "ARCHIVED") return ["ARCHIVED"];
  return lists.statuses.filter((s) => s !== "DEPLOYED" || holderType === "PERSON");
}

/**
 * A select of `values` (shown as words), with `value` chosen.
 * @param {{id: string, name?: string, values: string[], value?: string | null, empty?: string | null, required?: boolean}} o
 * @returns {HTMLSelectElement}
 */
export function enumSelect({ id, name, values, value = null, empty = null, required = false }) {
  return /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id, name, required },
      empty !== null ? h("option", { value: "" }, empty) : null,
      values.map((v) => h("option", { value: v, selected: v === value }, say(ITEM_WORDS, v))),
    )
  );
}

/**
 * What an API refusal of an item change means, in plain words (or null).
 * @param {any} error
 * @returns {string | null}
 */
export function explain(error) {
  const detail = String((error && error.detail) || "");
  const source = error && error.source;
  const status = error && error.status;
  if (status === 409 && /held by order/i.test(detail)) {
    return "A new joiner's order holds this item, so its status and holder change only through that order: ship it, or cancel the order line.";
  }
  if (status === 409 && source === "deployStatus") return "This item is archived. Archiving is final: its status cannot change any more.";
  if (status === 409 && source === "inventoryItem") return "Someone changed this item at the same moment. Look at it again as it is now and retry.";
  if (status === 400 && source === "assignedTo") return "A deployed item must be held by a person: choose a person, or another status.";
  if (status === 400 && source === "deployReason") return "This status needs a reason (Unavailable and Archived), or takes none (Deployed and Available).";
  if (status === 404 && source === "assignedTo.id") return "That person, warehouse or office is not in this organization (any more).";
  if (status === 404 && source === "inventoryItem") return "This item no longer exists in this organization.";
  if (status === 403) return "The signed-in key may not change items (it needs the scope inventory:write).";
  return null;
}

/**
 * An API refusal as a box: what failed, in plain words, and equip's own detail.
 * @param {any} error
 * @param {string} what
 * @returns {HTMLElement}
 */
export function refusal(error, what) {
  const plain = explain(error);
  const statusText = error && error.status ? ` (HTTP ${error.status})` : "";
  const order = /held by order ([0-9a-f-]{36})/i.exec(String((error && error.detail) || ""));
  return h(
    "div",
    { class: "error", role: "alert" },
    h("strong", {}, `${what} failed${statusText}`),
    plain ? h("p", { class: "error-plain" }, plain) : null,
    h("p", { class: "error-detail" }, `equip said: ${(error && (error.detail || error.message)) || "something went wrong"}`),
    order && can("orders:read") ? h("p", {}, h("a", { href: href(["orders", order[1]], null), class: "order-link" }, "Open the order that holds it")) : null,
  );
}

/**
 * PATCHes an item; answers the changed item (200) as the API gives it.
 * @param {string} id
 * @param {Record<string, any>} change
 * @returns {Promise<any>}
 */
export function patchItem(id, change) {
  return request("PATCH", `/api/v1/inventory/${encodeURIComponent(id)}`, { body: change });
}

/**
 * A status select and its reason select, kept consistent with the rules.
 * @param {string} prefix
 * @param {string[]} statuses
 * @param {string} status
 * @param {string | null} reason
 */
export function statusFields(prefix, statuses, status, reason) {
  const statusSelect = enumSelect({ id: `${prefix}-status`, values: statuses, value: statuses.includes(status) ? status : statuses[0] });
  const reasonSelect = enumSelect({ id: `${prefix}-reason`, values: lists.reasons, value: reason, empty: "No reason" });
  const reasonHelp = h("small", { class: "help", id: `${prefix}-reason-help` });
  reasonSelect.setAttribute("aria-describedby", `${prefix}-reason-help`);
  const reasonField = h("div", { class: "field" }, h("label", { for: `${prefix}-reason` }, "Reason"), reasonSelect, reasonHelp);
  const update = () => {
    const rule = reasonRule(statusSelect.value);
    reasonField.hidden = rule === "none";
    reasonSelect.required = rule === "required";
    reasonSelect.options[0].disabled = rule === "required";
    if (rule === "required" && !reasonSelect.value) reasonSelect.selectedIndex = -1;
    reasonHelp.textContent = rule === "required" ? `${say(ITEM_WORDS, statusSelect.value)} needs a reason.` : "Optional for this status.";
  };
  statusSelect.addEventListener("change", update);
  update();
  /** @param {string[]} values @param {string} preferred @param {boolean} [reset] the preferred one even if the current one is valid */
  const offer = (values, preferred, reset = false) => {
    const keep = !reset && values.includes(statusSelect.value) ? statusSelect.value : values.includes(preferred) ? preferred : values[0];
    statusSelect.replaceChildren(...values.map((v) => h("option", { value: v, selected: v === keep }, say(ITEM_WORDS, v))));
    statusSelect.value = keep;
    update();
  };
  return {
    statusField: h("div", { class: "field" }, h("label", { for: `${prefix}-status` }, "Status"), statusSelect),
    reasonField,
    statusSelect,
    reasonSelect,
    offer,
  };
}
