// @ts-check
// Inventory levels (`GET /api/v1/inventory-levels`): per SKU and warehouse,
// the minimum and target stock, the available stock and whether it is below
// the minimum. With `inventory-levels:write`, a level can be created
// (`POST /api/v1/inventory-levels`) and an active one deactivated
// (`DELETE /api/v1/inventory-levels/{id}`) after a confirmation. "Export CSV"
// downloads the levels shown, by name (export.js).

import { request } from "./api.js";
import { exportButton } from "./export.js";
import { productNames } from "./holders.js";
import { warehouses } from "./names.js";
import { go, href } from "./router.js";
import { can } from "./scopes.js";
import { announce, badge, confirm, errorBox, fill, focusHeading, h, heading, loading, notice, table, time } from "./ui.js";

/**
 * @typedef {{signal: AbortSignal, isCurrent: () => boolean}} Ctx
 * @typedef {{titles: Map<string, any>, names: Map<string, any>}} Names
 */

/**
 * @param {HTMLElement} main
 * @param {{path: string[], params: URLSearchParams}} route
 * @param {Ctx} ctx
 */
export default async function levelsView(main, route, ctx) {
  const includeInactive = route.params.get("includeInactive") === "true";
  const belowOnly = route.params.get("below") === "true";
  const toggle = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", id: "include-inactive", checked: includeInactive }));
  const below = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", id: "below-only", checked: belowOnly }));
  const refilter = () => {
    const params = new URLSearchParams();
    if (toggle.checked) params.set("includeInactive", "true");
    if (below.checked) params.set("below", "true");
    go(["levels"], params.toString() ? params : null);
  };
  toggle.addEventListener("change", refilter);
  below.addEventListener("change", refilter);
  const message = h("div", { class: "level-message", tabindex: "-1" });
  const body = h("div", {}, loading("Loading inventory levels…"));
  const createSlot = h("div", { class: "level-create-slot" });
  fill(
    main,
    heading("Inventory levels"),
    h("p", { class: "help" }, "Per SKU and warehouse: the stock below which to restock, and the stock to restock up to. Available counts the SKU's items that are Available in that warehouse."),
    h(
      "div",
      { class: "filters" },
      h("label", { class: "check" }, toggle, "Show deactivated levels too"),
      h("label", { class: "check" }, below, "Only levels below their minimum"),
    ),
    createSlot,
    message,
    body,
  );
  focusHeading();
  const state = { body, message, includeInactive, belowOnly, ctx };
  const [titles, names] = await Promise.all([productNames(), warehouses()]);
  if (!ctx.isCurrent()) return;
  /** @type {Names} */
  const known = { titles, names };
  if (can("inventory-levels:write")) fill(createSlot, createForm(known, state));
  await draw(known, state);
}

/**
 * @typedef {{body: HTMLElement, message: HTMLElement, includeInactive: boolean, belowOnly: boolean, ctx: Ctx}} State
 */

/**
 * A SKU's name for people.
 * @param {Names} known
 * @param {string} id
 */
function skuName(known, id) {
  const s = known.titles.get(id);
  return s ? s.title : `SKU ${id.slice(0, 8)}`;
}

/**
 * @param {Names} known
 * @param {string} id
 */
function warehouseName(known, id) {
  const w = known.names.get(id);
  return w ? w.name : `warehouse ${id.slice(0, 8)}`;
}

/**
 * The form that creates a level.
 * @param {Names} known
 * @param {State} state
 * @returns {HTMLElement}
 */
function createForm(known, state) {
  /** @type {Map<string, any[]>} */
  const byCategory = new Map();
  for (const s of known.titles.values()) {
    const key = s.categoryName || s.categoryCode || "Other";
    if (!byCategory.has(key)) byCategory.set(key, []);
    /** @type {any[]} */ (byCategory.get(key)).push(s);
  }
  const sku = h(
    "select",
    { id: "level-sku", required: true },
    h("option", { value: "" }, "Choose a product…"),
    [...byCategory.entries()].map(([category, list]) =>
      h("optgroup", { label: category }, list.map((s) => h("option", { value: s.id }, s.vendorSku ? `${s.title} (${s.vendorSku})` : s.title))),
    ),
  );
  const warehouse = h(
    "select",
    { id: "level-warehouse", required: true },
    h("option", { value: "" }, "Choose a warehouse…"),
    [...known.names.values()].map((w) => h("option", { value: w.id }, w.name)),
  );
  const minimum = h("input", { id: "level-minimum", type: "number", min: "0", max: "1000000", step: "1", required: true, value: "2", inputmode: "numeric" });
  const target = h("input", { id: "level-target", type: "number", min: "0", max: "1000000", step: "1", required: true, value: "10", inputmode: "numeric" });
  const outcome = h("div", { class: "level-create-outcome", tabindex: "-1" });
  const form = h(
    "form",
    { class: "action-form level-create", id: "level-create", "aria-labelledby": "level-create-title" },
    h("h2", { id: "level-create-title", class: "visually-hidden" }, "Create a level"),
    h(
      "div",
      { class: "grid" },
      h("div", { class: "field wide" }, h("label", { for: "level-sku" }, "Product (SKU)"), sku),
      h("div", { class: "field" }, h("label", { for: "level-warehouse" }, "Warehouse"), warehouse),
      h("div", { class: "field compact" }, h("label", { for: "level-minimum" }, "Minimum"), minimum),
      h("div", { class: "field compact" }, h("label", { for: "level-target" }, "Target"), target),
    ),
    h("div", { class: "form-actions" }, h("button", { type: "submit", id: "level-create-submit" }, "Create level")),
    outcome,
  );
  const details = h("details", { class: "card level-create-card", open: !known.titles.size ? false : undefined }, h("summary", {}, "Create a level"), form);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = {
      skuId: /** @type {HTMLSelectElement} */ (sku).value,
      warehouseId: /** @type {HTMLSelectElement} */ (warehouse).value,
      minimumQuantity: Number(/** @type {HTMLInputElement} */ (minimum).value),
      targetQuantity: Number(/** @type {HTMLInputElement} */ (target).value),
    };
    const what = `${skuName(known, body.skuId)} in ${warehouseName(known, body.warehouseId)}`;
    try {
      const level = await request("POST", "/api/v1/inventory-levels", { body });
      fill(
        outcome,
        notice(
          `Created the level of ${what}: minimum ${level.minimumQuantity}, target ${level.targetQuantity}; ${level.availableQuantity} available now${level.belowMinimum ? ", below the minimum" : ""}.`,
          "success",
        ),
      );
      announce("Level created");
    } catch (error) {
      fill(outcome, errorBox({ ...error, detail: plainLevelError(error) }, "Creating the level"));
    }
    await draw(known, state);
    outcome.focus({ preventScroll: true });
  });
  return details;
}

/**
 * The API's refusal of a new level, in plain words (its detail kept).
 * @param {any} error
 * @returns {string}
 */
function plainLevelError(error) {
  const detail = error && error.detail ? String(error.detail) : "something went wrong";
  if (error.status === 409) return `This product already has an active level in this warehouse: deactivate that one first. (equip said: ${detail})`;
  if (error.status === 400 && error.source === "targetQuantity") return `The target must be at least the minimum, and at most 1,000,000. (equip said: ${detail})`;
  if (error.status === 400 && error.source === "minimumQuantity") return `The minimum must be a whole number from 0 up to the target. (equip said: ${detail})`;
  if (error.status === 400 && (error.source === "skuId" || error.source === "warehouseId")) return `Choose a product and a warehouse. (equip said: ${detail})`;
  return detail;
}

/**
 * Draws the levels.
 * @param {Names} known
 * @param {State} state
 */
async function draw(known, state) {
  const { body, message, includeInactive, belowOnly, ctx } = state;
  let levels;
  try {
    levels = await readLevels(includeInactive, ctx.signal);
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    fill(body, errorBox(error, "Loading inventory levels"));
    return;
  }
  if (!ctx.isCurrent()) return;
  const shown = belowOnly ? levels.filter(isBelow) : levels;
  const mayDeactivate = can("inventory-levels:write");
  const columns = [
    {
      title: "SKU",
      cell: (/** @type {any} */ l) => h("a", { href: href(["inventory"], new URLSearchParams({ skuIds: l.skuId })), title: l.skuId }, skuName(known, l.skuId)),
    },
    {
      title: "Warehouse",
      cell: (/** @type {any} */ l) => h("a", { href: href(["inventory"], new URLSearchParams({ warehouseId: l.warehouseId })) }, warehouseName(known, l.warehouseId)),
    },
    {
      title: "Available",
      cell: (/** @type {any} */ l) =>
        h(
          "a",
          { class: "available", href: href(["inventory"], new URLSearchParams({ skuIds: l.skuId, warehouseId: l.warehouseId, deployStatuses: "AVAILABLE" })), "aria-label": `${l.availableQuantity} available: list them` },
          String(l.availableQuantity),
        ),
    },
    { title: "Minimum", cell: (/** @type {any} */ l) => String(l.minimumQuantity) },
    { title: "Target", cell: (/** @type {any} */ l) => String(l.targetQuantity) },
    {
      title: "Stock",
      cell: (/** @type {any} */ l) =>
        l.belowMinimum
          ? h("span", { class: "badge badge-below" }, `Below minimum: ${l.minimumQuantity - l.availableQuantity} short`)
          : h("span", { class: "badge badge-ok" }, "OK"),
    },
    { title: "State", cell: (/** @type {any} */ l) => (l.active ? badge("ACTIVE") : h("span", {}, badge("DEACTIVATED"), " ", time(l.deactivatedAt))) },
    { title: "Created", cell: (/** @type {any} */ l) => time(l.createdAt) },
  ];
  if (mayDeactivate) {
    columns.push({
      title: "Action",
      cell: (/** @type {any} */ l) =>
        l.active
          ? h(
              "button",
              {
                type: "button",
                class: "danger small",
                "data-level": l.id,
                "aria-label": `Deactivate the level of ${skuName(known, l.skuId)} in ${warehouseName(known, l.warehouseId)}`,
                onclick: () => deactivate(l, known, state),
              },
              "Deactivate",
            )
          : "",
    });
  }
  const belowCount = levels.filter((/** @type {any} */ l) => l.active && l.belowMinimum).length;
  fill(
    body,
    h("p", { class: "count" }, `${shown.length} levels`),
    shown.length ? levelsExport(known, includeInactive, belowOnly) : null,
    belowCount ? h("p", { class: "below-summary" }, h("span", { class: "badge badge-below" }, `${belowCount} below minimum`)) : null,
    table({ caption: "Inventory levels", empty: belowOnly ? "No active level is below its minimum." : "No inventory levels.", rows: shown, columns, sorted: null }),
  );
}

/**
 * The organization's levels (the deactivated ones too with `includeInactive`).
 * @param {boolean} includeInactive
 * @param {AbortSignal} [signal]
 * @returns {Promise<any[]>}
 */
async function readLevels(includeInactive, signal) {
  const answer = await request("GET", "/api/v1/inventory-levels", { query: [["includeInactive", includeInactive ? "true" : ""]], signal });
  return answer.data;
}

/** @param {any} l a level */
function isBelow(l) {
  return l.belowMinimum && l.active;
}

/**
 * "Export CSV" of the levels the screen's filters select, read again from
 * the API when clicked (the listing is one page), with products, categories
 * and warehouses by name and the level's id last.
 * @param {Names} known
 * @param {boolean} includeInactive
 * @param {boolean} belowOnly
 * @returns {HTMLElement}
 */
function levelsExport(known, includeInactive, belowOnly) {
  return exportButton({
    noun: "levels",
    filename: `inventory-levels${belowOnly ? "-below-minimum" : ""}.csv`,
    columns: [
      { header: "product", value: (l) => skuName(known, l.skuId) },
      { header: "category", value: (l) => known.titles.get(l.skuId)?.categoryName || known.titles.get(l.skuId)?.categoryCode || "" },
      { header: "vendor_sku", value: (l) => known.titles.get(l.skuId)?.vendorSku || "" },
      { header: "warehouse", value: (l) => warehouseName(known, l.warehouseId) },
      { header: "available", value: (l) => l.availableQuantity },
      { header: "minimum", value: (l) => l.minimumQuantity },
      { header: "target", value: (l) => l.targetQuantity },
      { header: "below_minimum", value: (l) => (isBelow(l) ? "yes" : "no") },
      { header: "short", value: (l) => (isBelow(l) ? l.minimumQuantity - l.availableQuantity : 0) },
      { header: "state", value: (l) => (l.active ? "active" : "deactivated") },
      { header: "created", value: (l) => l.createdAt },
      { header: "deactivated", value: (l) => l.deactivatedAt || "" },
      { header: "level_id", value: (l) => l.id },
    ],
    fetchPage: async () => {
      const levels = await readLevels(includeInactive);
      return { rows: belowOnly ? levels.filter(isBelow) : levels, totalPages: 1 };
    },
  });
}

/**
 * @param {any} level
 * @param {Names} known
 * @param {State} state
 */
async function deactivate(level, known, state) {
  const sku = skuName(known, level.skuId);
  const where = warehouseName(known, level.warehouseId);
  const sure = await confirm(
    "Deactivate this inventory level?",
    `${sku} in ${where} (minimum ${level.minimumQuantity}, target ${level.targetQuantity}) will stop being watched. The level is kept, deactivated; to watch the SKU again, create a new level on this screen.`,
    "Deactivate",
  );
  if (!sure) return;
  try {
    await request("DELETE", `/api/v1/inventory-levels/${encodeURIComponent(level.id)}`);
    fill(state.message, notice(`Deactivated the level of ${sku} in ${where}.`, "success"));
    announce("Level deactivated");
  } catch (error) {
    fill(state.message, errorBox(error, "Deactivating the level"));
  }
  await draw(known, state);
  // The button that opened the dialog is drawn again: the keyboard's place
  // is the outcome.
  state.message.focus({ preventScroll: true });
}
