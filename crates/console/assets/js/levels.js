// Inventory levels (`GET /api/v1/inventory-levels`): per SKU and warehouse,
// the minimum and target stock; an active level can be deactivated
// (`DELETE /api/v1/inventory-levels/{id}`) after a confirmation.

import { request } from "./api.js";
import { go } from "./router.js";
import { can } from "./scopes.js";
import { announce, badge, confirm, errorBox, fill, focusHeading, h, heading, loading, notice, table, time } from "./ui.js";

export default async function levelsView(main, route, ctx) {
  const includeInactive = route.params.get("includeInactive") === "true";
  const toggle = h("input", { type: "checkbox", id: "include-inactive", checked: includeInactive });
  toggle.addEventListener("change", () => go(["levels"], toggle.checked ? new URLSearchParams({ includeInactive: "true" }) : null));
  const message = h("div", { class: "level-message", tabindex: "-1" });
  const body = h("div", {}, loading("Loading inventory levels…"));
  fill(
    main,
    heading("Inventory levels"),
    h("p", { class: "help" }, "Per SKU and warehouse: the stock below which to restock, and the stock to restock up to."),
    h("div", { class: "filters" }, h("label", { class: "check" }, toggle, "Show deactivated levels too")),
    message,
    body,
  );
  focusHeading();
  await draw(body, message, includeInactive, ctx);
}

async function draw(body, message, includeInactive, ctx) {
  let levels;
  let names = new Map();
  let titles = new Map();
  try {
    const [answer, warehouses] = await Promise.all([
      request("GET", "/api/v1/inventory-levels", { query: [["includeInactive", includeInactive ? "true" : ""]], signal: ctx.signal }),
      can("warehouses:read") ? request("GET", "/api/v1/warehouses", { signal: ctx.signal }).catch(() => null) : null,
    ]);
    levels = answer.data;
    if (warehouses) names = new Map(warehouses.data.map((w) => [w.id, w.name]));
    titles = await skuTitles(levels, ctx.signal);
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    fill(body, errorBox(error, "Loading inventory levels"));
    return;
  }
  if (!ctx.isCurrent()) return;
  const mayDeactivate = can("inventory-levels:write");
  const columns = [
    { title: "SKU", cell: (l) => (titles.get(l.skuId) ? h("span", { title: l.skuId }, titles.get(l.skuId)) : h("code", { title: l.skuId }, l.skuId.slice(0, 8))) },
    { title: "Warehouse", cell: (l) => names.get(l.warehouseId) || h("code", { title: l.warehouseId }, l.warehouseId.slice(0, 8)) },
    { title: "Minimum", cell: (l) => String(l.minimumQuantity) },
    { title: "Target", cell: (l) => String(l.targetQuantity) },
    { title: "State", cell: (l) => (l.active ? badge("ACTIVE") : h("span", {}, badge("DEACTIVATED"), " ", time(l.deactivatedAt))) },
    { title: "Created", cell: (l) => time(l.createdAt) },
  ];
  if (mayDeactivate) {
    columns.push({
      title: "Action",
      cell: (l) =>
        l.active
          ? h(
              "button",
              {
                type: "button",
                class: "danger small",
                "data-level": l.id,
                "aria-label": `Deactivate the level of ${titles.get(l.skuId) || `SKU ${l.skuId.slice(0, 8)}`} in ${names.get(l.warehouseId) || "its warehouse"}`,
                onclick: () => deactivate(l, titles.get(l.skuId) || `SKU ${l.skuId}`, names, body, message, includeInactive, ctx),
              },
              "Deactivate",
            )
          : "",
    });
  }
  fill(
    body,
    h("p", { class: "count" }, `${levels.length} levels`),
    table({ caption: "Inventory levels", empty: "No inventory levels.", rows: levels, columns }),
  );
}

/// The SKUs' titles, from the items of those SKUs (the API has no catalog
/// endpoint): one request, at most 500 SKUs and the first 1,000 items; a SKU
/// not among them shows its id.
async function skuTitles(levels, signal) {
  const ids = [...new Set(levels.map((l) => l.skuId))].slice(0, 500);
  const titles = new Map();
  if (!ids.length) return titles;
  try {
    const answer = await request("GET", "/api/v1/inventory", { query: [["skuIds", ids.join(",")], ["size", "1000"], ["sortBy", "skuId"]], signal });
    for (const item of answer.data) if (!titles.has(item.skuId)) titles.set(item.skuId, item.skuTitle);
  } catch (error) {
    if (error.name === "AbortError") throw error;
  }
  return titles;
}

async function deactivate(level, sku, names, body, message, includeInactive, ctx) {
  const where = names.get(level.warehouseId) || `warehouse ${level.warehouseId}`;
  const sure = await confirm(
    "Deactivate this inventory level?",
    `${sku} in ${where} (minimum ${level.minimumQuantity}, target ${level.targetQuantity}) will stop being watched. The level is kept, deactivated; to watch the SKU again, create a new level.`,
    "Deactivate",
  );
  if (!sure) return;
  try {
    await request("DELETE", `/api/v1/inventory-levels/${encodeURIComponent(level.id)}`);
    fill(message, notice(`Deactivated the level of ${sku} in ${where}.`, "success"));
    announce("Level deactivated");
  } catch (error) {
    fill(message, errorBox(error, "Deactivating the level"));
  }
  await draw(body, message, includeInactive, ctx);
  // The button that opened the dialog is drawn again: the keyboard's place
  // is the outcome.
  message.focus({ preventScroll: true });
}
