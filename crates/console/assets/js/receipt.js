// @ts-check
// The warehouse receipt desk (`POST /api/v1/warehouses/{id}/receipts`): a
// barcode scanner types a serial number and Enter; each Enter sends that one
// entry at once, and its result (the API's status for the entry, in words)
// shows at the top of the list and is announced. Entries typed faster than
// the answers come are sent one after another, in the order scanned.

import { request } from "./api.js";
import { warehouses } from "./names.js";
import { href } from "./router.js";
import { can } from "./scopes.js";
import { announce, errorBox, fill, focusHeading, h, heading, loading } from "./ui.js";
import { itemLink, itemsById, propertyEnum, say } from "./lifecycle.js";
import { releaseHoldButton } from "./return.js";

const CONDITIONS = ["NEW", "USED_LIKE_NEW", "USED_GOOD", "USED_FAIR", "USED", "USED_POOR", "UNUSABLE"];

/**
 * The receipt screen.
 * @param {HTMLElement} main
 * @param {import("./lifecycle.js").Route} route
 * @param {import("./lifecycle.js").Ctx} ctx
 */
export default async function receiptView(main, route, ctx) {
  fill(main, heading("Warehouse receipt"), loading("Loading warehouses…"));
  focusHeading();
  const [stores, conditions, settings] = await Promise.all([
    warehouses(),
    propertyEnum("ReceiptItem", "condition", CONDITIONS),
    can("returns:read") ? request("GET", "/api/v1/organization/settings").catch(() => null) : null,
  ]);
  if (!ctx.isCurrent()) return;
  const chosen = route.params.get("warehouseId") || "";
  /** @type {HTMLSelectElement | HTMLInputElement} */
  let warehouse;
  if (stores.size) {
    warehouse = /** @type {HTMLSelectElement} */ (
      h(
        "select",
        { id: "receipt-warehouse", required: true },
        h("option", { value: "" }, "Choose a warehouse"),
        [...stores.values()].map((w) => h("option", { value: w.id, selected: w.id === chosen ? "" : null }, w.name)),
      )
    );
  } else {
    // Without warehouses:read the names cannot be listed: the id is typed.
    warehouse = /** @type {HTMLInputElement} */ (h("input", { id: "receipt-warehouse", required: true, value: chosen, autocomplete: "off", "aria-describedby": "receipt-warehouse-help" }));
  }
  warehouse.addEventListener("change", () => {
    const params = new URLSearchParams();
    if (warehouse.value) params.set("warehouseId", warehouse.value);
    // The URL follows the choice (bookmarkable) without drawing the screen
    // again: what was scanned stays.
    history.replaceState(null, "", href(["receipt"], params));
  });
  const condition = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id: "receipt-condition" },
      h("option", { value: "" }, "Leave as it is"),
      conditions.map((c) => h("option", { value: c }, say({}, c))),
    )
  );
  const serial = /** @type {HTMLInputElement} */ (
    h("input", { id: "receipt-serial", autocomplete: "off", autocapitalize: "characters", spellcheck: "false", "aria-describedby": "receipt-serial-help" })
  );
  const results = h("ol", { class: "receipt-results", id: "receipt-results", "aria-label": "Scanned items, newest first" });
  const counts = h("p", { class: "count", id: "receipt-count" }, "Nothing scanned yet.");
  const problem = h("div", {});
  const tally = { received: 0, refused: 0 };
  /** @type {Promise<void>} */
  let queue = Promise.resolve();
  const form = h(
    "form",
    {
      class: "filters receipt-form",
      "aria-label": "Receive items",
      novalidate: true,
      onsubmit: (/** @type {Event} */ e) => {
        e.preventDefault();
        const value = serial.value.trim();
        if (!value) return;
        if (!warehouse.value) {
          // The scan stays in the box, to be sent once a warehouse is chosen.
          fill(problem, errorBox({ detail: "Choose the warehouse that receives the items first." }, "Receiving"));
          announce("Choose the warehouse first");
          warehouse.focus();
          return;
        }
        serial.value = "";
        serial.focus();
        fill(problem);
        const row = h("li", { class: "receipt-entry pending" }, h("strong", {}, value), " ", h("span", { class: "muted" }, "sending…"));
        results.prepend(row);
        const where = warehouse.value;
        const cond = condition.value;
        queue = queue.then(() => receive(where, value, cond, row, tally, counts, stores));
      },
    },
    h(
      "div",
      { class: "field" },
      h("label", { for: "receipt-warehouse" }, "Receiving warehouse"),
      warehouse,
      stores.size ? null : h("small", { id: "receipt-warehouse-help", class: "help" }, "The warehouse's id (this key may not list warehouses)."),
    ),
    h("div", { class: "field" }, h("label", { for: "receipt-condition" }, "Condition found"), condition),
    h(
      "div",
      { class: "field grow" },
      h("label", { for: "receipt-serial" }, "Serial number"),
      serial,
      h("small", { id: "receipt-serial-help", class: "help" }, "Scan a barcode or type a serial number and press Enter: each one is received at once."),
    ),
    h("div", { class: "form-actions" }, h("button", { type: "submit" }, "Receive")),
  );
  fill(
    main,
    heading("Warehouse receipt"),
    h(
      "p",
      { class: "help" },
      "Receive returned equipment and new stock. A returned item goes on hold in the warehouse for the organization's hold period; new stock that was awaiting arrival becomes available.",
    ),
    settings ? h("p", { class: "help", id: "hold-period" }, holdWords(settings.holdPeriodDays)) : null,
    form,
    problem,
    h("section", { class: "results", "aria-labelledby": "receipt-results-title" }, h("h2", { id: "receipt-results-title" }, "Scanned"), counts, results),
  );
  focusHeading();
  if (warehouse.value) serial.focus();
}

/**
 * Sends one entry and shows its result in `row`.
 * @param {string} warehouseId
 * @param {string} serialNumber
 * @param {string} condition
 * @param {HTMLElement} row
 * @param {{received: number, refused: number}} tally
 * @param {HTMLElement} counts
 * @param {Map<string, any>} stores
 */
async function receive(warehouseId, serialNumber, condition, row, tally, counts, stores) {
  /** @type {any} */
  let result;
  try {
    /** @type {Record<string, string>} */
    const entry = { serialNumber };
    if (condition) entry.condition = condition;
    const answer = await request("POST", `/api/v1/warehouses/${encodeURIComponent(warehouseId)}/receipts`, { body: { items: [entry] } });
    result = answer.results[0];
  } catch (error) {
    // The whole request was refused (an unknown warehouse, no scope).
    row.className = "receipt-entry refused";
    fill(row, h("strong", {}, serialNumber), " ", errorBox(error, "Receiving"));
    tally.refused += 1;
    counts.textContent = countWords(tally);
    announce(`${serialNumber}: not received. ${error.detail || error.message}`);
    return;
  }
  const ok = result.status === 200;
  if (ok) tally.received += 1;
  else tally.refused += 1;
  counts.textContent = countWords(tally);
  const where = stores.get(warehouseId)?.name || "the warehouse";
  /** @type {any} */
  let item = null;
  if (result.itemId) item = (await itemsById([result.itemId])).get(result.itemId) || null;
  const words = entryWords(result, item, where);
  row.className = `receipt-entry ${ok ? "received" : "refused"}`;
  row.dataset.status = String(result.status);
  fill(
    row,
    h("strong", {}, serialNumber),
    " ",
    h("span", { class: `badge ${ok ? "badge-ok" : "badge-failed"}` }, ok ? "Received" : "Not received"),
    " ",
    h("span", { class: "entry-words" }, words),
    result.itemId ? h("span", {}, " ", itemLink(item, result.itemId)) : null,
    ok && item && item.holdStartDate && can("returns:write")
      ? h("span", { class: "entry-action" }, " ", releaseHoldButton(item, (message) => row.append(message)))
      : null,
  );
  announce(`${serialNumber}: ${ok ? "received" : "not received"}. ${words}`);
}

/**
 * The organization's hold period in words.
 * @param {number} days
 * @returns {string}
 */
function holdWords(days) {
  if (days === 0) return "This organization holds nothing: a returned item is released as soon as it is received.";
  return `This organization holds returned items for ${days} ${days === 1 ? "day" : "days"} before they go back into stock (or to disposal, when asked).`;
}

/**
 * @param {{received: number, refused: number}} tally
 * @returns {string}
 */
function countWords(tally) {
  return `${tally.received} received, ${tally.refused} not received.`;
}

/**
 * What happened to one entry, in words.
 * @param {{status: number, detail?: string}} result
 * @param {any} item the item after the receipt, when read
 * @param {string} where
 * @returns {string}
 */
export function entryWords(result, item, where) {
  if (result.status === 200) {
    if (!item) return `Received at ${where}.`;
    if (item.deployReason === "PENDING_HOLD_RELEASE") return `Received at ${where}, on hold until ${item.unlockDate}.`;
    if (item.deployStatus === "AVAILABLE") return `Received at ${where}: available.`;
    if (item.deployReason === "PENDING_FULFILLMENT") return `Received at ${where}, and reserved at once for a joiner's order that was waiting for stock.`;
    return `Received at ${where}: ${say({}, item.deployStatus).toLowerCase()}${item.deployReason ? ` (${say({}, item.deployReason).toLowerCase()})` : ""}.`;
  }
  if (result.status === 404) return "No item of the organization has this serial number.";
  if (result.status === 409) {
    if (item) {
      const now = `${say({}, item.deployStatus).toLowerCase()}${item.deployReason ? ` (${say({}, item.deployReason).toLowerCase()})` : ""}`;
      return `This item cannot be received now: it is ${now}. Only an item on an open return, or new stock awaiting arrival, can be received.`;
    }
    return `This item cannot be received now: ${result.detail || "it is not on a return or awaiting arrival"}.`;
  }
  if (result.status === 503) return "equip could not reach its database for this entry: scan it again.";
  return result.detail || "equip refused this entry without saying why: scan it again, or look at the item.";
}
