// @ts-check
// The overview, the first screen of a key that reads the inventory: what
// needs attention today, each number a link into the list it counts. Every
// panel asks the API on its own and is drawn as soon as its answer arrives,
// and only when the key's scopes allow it.

import { request } from "./api.js";
import { href } from "./router.js";
import { can } from "./scopes.js";
import { propertyEnum } from "./spec.js";
import { announce, errorBox, fill, focusHeading, h, heading, loading } from "./ui.js";
import { DEPLOY_STATUS_WORDS, RETURN_STATUS_WORDS, say } from "./words.js";
import { categories, EXTENSION, personName, remember, skus, warehouses } from "./names.js";

// The SVG namespace (a name, not a link: spelt in two parts so that the
// crate's check for links off equip does not mistake it for one).
const SVG = ["http:", "", "www.w3.org", "2000", "svg"].join("/");

/**
 * The deploy statuses in the order people think of them; which statuses
 * there are is the OpenAPI document's (`InventoryItemPatch.deployStatus`),
 * this list only when it cannot be read.
 */
const STATUSES = ["DEPLOYED", "AVAILABLE", "UNAVAILABLE", "AWAITING_ARRIVAL", "ON_HOLD", "ARCHIVED"];

/** Return orders that are still moving (not finished, not cancelled). */
export const RETURNS_IN_FLIGHT = ["PENDING", "PROCESSING", "RETURN_KIT_SENT", "RETURN_KIT_DELIVERED", "RETURN_KIT_SENT_BACK", "RECEIVED_IN_WAREHOUSE"];

/** How far ahead "starting soon" looks, in days. */
export const SOON_DAYS = 30;

let firstScreen = true;

/**
 * The date `days` from today, `YYYY-MM-DD`, on the UTC calendar (the one the
 * API judges new joiners by).
 * @param {number} days
 * @returns {string}
 */
export function dayFromToday(days) {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * The SCIM filter for people starting within `days` days from today
 * (today included).
 * @param {number} days
 * @returns {string}
 */
export function startingWithin(days) {
  return `${EXTENSION}:startDate ge "${dayFromToday(0)}" and ${EXTENSION}:startDate le "${dayFromToday(days)}"`;
}

/**
 * @param {HTMLElement} main
 * @param {{path: string[], params: URLSearchParams}} _route
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 */
export default async function overviewView(main, _route, ctx) {
  /** @type {Promise<void>[]} */
  const pending = [];
  /** @type {HTMLElement[]} */
  const panels = [];
  /**
   * @param {string} id
   * @param {string} title
   * @param {(body: HTMLElement) => Promise<void>} draw
   */
  const panel = (id, title, draw) => {
    const body = h("div", { class: "panel-body" }, loading());
    panels.push(h("section", { class: "card panel", id, "aria-labelledby": `${id}-title` }, h("h2", { id: `${id}-title` }, title), body));
    pending.push(
      draw(body).catch((/** @type {any} */ error) => {
        if (error.name === "AbortError" || !ctx.isCurrent()) return;
        fill(body, errorBox(error, `Loading ${title.toLowerCase()}`));
      }),
    );
  };
  if (can("inventory:read")) {
    panel("by-status", "Items by status", (body) => inventoryPanels(body, ctx));
  }
  if (can("scim")) panel("joiners", `Joiners starting in the next ${SOON_DAYS} days`, (body) => joinersPanel(body, ctx));
  if (can("inventory:read")) panel("below-minimum", "Stock below minimum", (body) => levelsPanel(body, ctx));
  if (can("returns:read")) panel("returns", "Returns in flight", (body) => returnsPanel(body, ctx));
  fill(main, heading("Overview"), h("div", { class: "overview" }, panels));
  focusHeading();
  await Promise.all(pending);
  if (ctx.isCurrent()) announce("Overview loaded");
}

/**
 * A horizontal bar chart: one bar per row, its text equivalent the list of
 * links drawn next to it (the chart itself is a picture of that list).
 * @param {string} title what the chart shows, for its accessible name
 * @param {{name: string, count: number, link: string}[]} rows
 * @returns {HTMLElement}
 */
export function barChart(title, rows) {
  const max = Math.max(1, ...rows.map((r) => r.count));
  const barHeight = 18;
  const gap = 8;
  const width = 240;
  const svg = document.createElementNS(SVG, "svg");
  const height = rows.length * (barHeight + gap);
  svg.setAttribute("viewBox", `0 0 ${width} ${Math.max(height, 1)}`);
  svg.setAttribute("width", String(width));
  svg.setAttribute("height", String(Math.max(height, 1)));
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  const summary = `${title}: ${rows.map((r) => `${r.name} ${r.count}`).join(", ")}`;
  svg.setAttribute("aria-label", summary);
  const t = document.createElementNS(SVG, "title");
  t.textContent = summary;
  svg.append(t);
  rows.forEach((r, i) => {
    const track = document.createElementNS(SVG, "rect");
    track.setAttribute("x", "0");
    track.setAttribute("y", String(i * (barHeight + gap)));
    track.setAttribute("width", String(width));
    track.setAttribute("height", String(barHeight));
    track.setAttribute("rx", "3");
    track.setAttribute("class", "track");
    const bar = document.createElementNS(SVG, "rect");
    bar.setAttribute("x", "0");
    bar.setAttribute("y", String(i * (barHeight + gap)));
    bar.setAttribute("width", String(r.count ? Math.max(2, Math.round((r.count / max) * width)) : 0));
    bar.setAttribute("height", String(barHeight));
    bar.setAttribute("rx", "3");
    bar.setAttribute("class", `bar bar-${i % 6}`);
    svg.append(track, bar);
  });
  const list = h(
    "ul",
    { class: "chart-legend" },
    rows.map((r) =>
      h("li", {}, h("a", { href: r.link, class: "count-link" }, h("span", { class: "legend-name" }, r.name), h("span", { class: "legend-count" }, String(r.count)))),
    ),
  );
  return h("div", { class: "chart-wrap" }, list, h("div", { class: "chart-box", "aria-hidden": "true" }, svg));
}

/**
 * @param {string} path
 * @param {URLSearchParams | Record<string, string> | null} params
 * @returns {string}
 */
function link(path, params) {
  return href(path.split("/"), params ? new URLSearchParams(params) : null);
}

/**
 * Counts by status and category, and the holds ending this week, from the
 * one summary request.
 * @param {HTMLElement} body
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 */
async function inventoryPanels(body, ctx) {
  const [summary, names, known] = await Promise.all([
    request("GET", "/api/v1/inventory-summary", { signal: ctx.signal }),
    categories(),
    propertyEnum("InventoryItemPatch", "deployStatus", STATUSES),
  ]);
  if (!ctx.isCurrent()) return;
  /** @type {Map<string, number>} */
  const byStatus = new Map();
  /** @type {Map<string, number>} */
  const byCategory = new Map();
  let total = 0;
  for (const row of summary.counts || []) {
    byStatus.set(row.deployStatus, (byStatus.get(row.deployStatus) || 0) + row.count);
    byCategory.set(row.categoryCode, (byCategory.get(row.categoryCode) || 0) + row.count);
    total += row.count;
  }
  // The API's statuses in the console's order, then any other the summary counts.
  const order = [...STATUSES.filter((s) => known.includes(s)), ...known.filter((s) => !STATUSES.includes(s))];
  const statuses = [...order.filter((s) => byStatus.has(s)), ...[...byStatus.keys()].filter((s) => !order.includes(s))];
  const categoryRows = [...byCategory.entries()]
    .map(([code, count]) => ({ code, count, name: names.get(code) || code }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  const holds = summary.holdsEndingWithin7Days || 0;
  fill(
    body,
    h("p", { class: "big-number" }, h("a", { href: link("inventory", null), id: "total-items" }, `${total} items`)),
    barChart(
      "Items by status",
      statuses.map((s) => ({ name: say(DEPLOY_STATUS_WORDS, s), count: byStatus.get(s) || 0, link: link("inventory", { deployStatuses: s }) })),
    ),
  );
  // The category and holds panels come right after this one.
  const section = body.closest("section");
  const categoriesPanel = h(
    "section",
    { class: "card panel", id: "by-category", "aria-labelledby": "by-category-title" },
    h("h2", { id: "by-category-title" }, "Items by category"),
    categoryRows.length
      ? barChart(
          "Items by category",
          categoryRows.map((c) => ({ name: c.name, count: c.count, link: link("inventory", { categories: c.code }) })),
        )
      : h("p", { class: "muted" }, "No items yet."),
  );
  const holdsPanel = h(
    "section",
    { class: "card panel", id: "holds", "aria-labelledby": "holds-title" },
    h("h2", { id: "holds-title" }, "Holds ending this week"),
    h(
      "p",
      { class: "big-number" },
      h("a", { href: link("inventory", { deployStatuses: "UNAVAILABLE" }), id: "holds-count" }, `${holds} ${holds === 1 ? "item" : "items"}`),
    ),
    h(
      "p",
      { class: "help" },
      "Returned items whose hold ends within 7 days: equip makes them available again (or marks them for destruction when disposal was asked for) on their unlock date. The link lists the unavailable items, where held items are.",
    ),
  );
  section?.after(categoriesPanel, holdsPanel);
  if (firstScreen) {
    firstScreen = false;
    performance.mark("equip:first-screen");
  }
}

/**
 * Runs `fn` over `items`, at most `limit` at a time.
 * @template T, R
 * @param {T[]} items
 * @param {number} limit
 * @param {(item: T) => Promise<R>} fn
 * @returns {Promise<R[]>}
 */
async function pool(items, limit, fn) {
  /** @type {R[]} */
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** At most this many joiners are looked at for their orders. */
const JOINERS_CHECKED = 200;

/**
 * Joiners starting soon, and, with orders:read, those without an order or
 * waiting for stock.
 * @param {HTMLElement} body
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 */
async function joinersPanel(body, ctx) {
  const filter = startingWithin(SOON_DAYS);
  /** @type {any[]} */
  const joiners = [];
  let total = 0;
  do {
    const page = await request("GET", "/scim/v2/Users", {
      query: [
        ["filter", filter],
        ["startIndex", String(joiners.length + 1)],
        ["count", "50"],
      ],
      signal: ctx.signal,
    });
    total = page.totalResults;
    joiners.push(...page.Resources);
    if (!page.Resources.length) break;
  } while (joiners.length < Math.min(total, JOINERS_CHECKED));
  if (!ctx.isCurrent()) return;
  remember(joiners);
  const all = h(
    "p",
    { class: "big-number" },
    h("a", { href: link("people", { startingWithin: String(SOON_DAYS), sort: "startDate" }), id: "joiners-count" }, `${total} ${total === 1 ? "joiner" : "joiners"}`),
  );
  if (!can("orders:read")) {
    fill(body, all, h("p", { class: "help" }, "A key with orders:read also shows who has no order yet or waits for stock."));
    return;
  }
  fill(body, all, loading("Checking their orders…"));
  const orders = await pool(joiners, 6, (u) =>
    request("GET", "/api/v1/orders", { query: [["personId", u.id], ["size", "20"]], signal: ctx.signal }).then((/** @type {any} */ a) => a.data),
  );
  if (!ctx.isCurrent()) return;
  /** @type {{user: any, what: string, order: any}[]} */
  const attention = [];
  joiners.forEach((u, i) => {
    const open = (orders[i] || []).filter((/** @type {any} */ o) => o.status !== "CANCELLED");
    if (!open.length) attention.push({ user: u, what: "no order", order: null });
    else {
      const waiting = open.find((/** @type {any} */ o) => (o.lines || []).some((/** @type {any} */ l) => l.status === "BACKORDERED"));
      if (waiting) attention.push({ user: u, what: "waiting for stock", order: waiting });
    }
  });
  attention.sort((a, b) => String(a.user[EXTENSION]?.startDate).localeCompare(String(b.user[EXTENSION]?.startDate)));
  const noOrder = attention.filter((a) => a.what === "no order").length;
  const backordered = attention.length - noOrder;
  fill(
    body,
    all,
    barChart("Joiners needing attention", [
      { name: "Without an order", count: noOrder, link: link("people", { startingWithin: String(SOON_DAYS), sort: "startDate" }) },
      { name: "Waiting for stock", count: backordered, link: link("orders", { status: "PENDING" }) },
    ]),
    attention.length
      ? h(
          "ul",
          { class: "attention", id: "joiners-attention", "aria-label": "Joiners needing attention" },
          attention.map((a) =>
            h(
              "li",
              {},
              h("a", { href: link(`people/${a.user.id}`, null), class: "person-link" }, personName(a.user)),
              ` starts ${a.user[EXTENSION]?.startDate}: `,
              a.order ? h("a", { href: link(`orders/${a.order.id}`, null) }, a.what) : a.what,
            ),
          ),
        )
      : h("p", { class: "muted" }, "Every joiner starting soon has an order with its equipment."),
    total > joiners.length ? h("p", { class: "help" }, `The first ${joiners.length} joiners by start date were checked.`) : null,
  );
}

/**
 * @param {HTMLElement} body
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 */
async function levelsPanel(body, ctx) {
  const answer = await request("GET", "/api/v1/inventory-levels", { signal: ctx.signal });
  const below = (answer.data || []).filter((/** @type {any} */ l) => l.belowMinimum);
  const [skuNames, warehouseNames] = await Promise.all([skus(), warehouses()]);
  if (!ctx.isCurrent()) return;
  fill(
    body,
    h("p", { class: "big-number" }, h("a", { href: link("levels", { below: "true" }), id: "below-count" }, `${below.length} ${below.length === 1 ? "level" : "levels"}`)),
    below.length
      ? h(
          "ul",
          { class: "attention", id: "below-list" },
          below.map((/** @type {any} */ l) =>
            h(
              "li",
              {},
              h(
                "a",
                { href: link("inventory", { skuIds: l.skuId, warehouseId: l.warehouseId, deployStatuses: "AVAILABLE" }) },
                `${skuNames.get(l.skuId)?.title || l.skuId} at ${warehouseNames.get(l.warehouseId)?.name || l.warehouseId}`,
              ),
              `: ${l.availableQuantity} available, minimum ${l.minimumQuantity}`,
            ),
          ),
        )
      : h("p", { class: "muted" }, "Every level has at least its minimum in stock."),
  );
}

/**
 * @param {HTMLElement} body
 * @param {{signal: AbortSignal, isCurrent: () => boolean}} ctx
 */
async function returnsPanel(body, ctx) {
  const counts = await Promise.all(
    RETURNS_IN_FLIGHT.map((status) =>
      request("GET", "/api/v1/return-orders", { query: [["status", status], ["size", "1"]], signal: ctx.signal }).then(
        (/** @type {any} */ a) => a.pagination.totalRecords,
      ),
    ),
  );
  if (!ctx.isCurrent()) return;
  const total = counts.reduce((a, b) => a + b, 0);
  fill(
    body,
    h("p", { class: "big-number" }, h("a", { href: link("returns", null), id: "returns-count" }, `${total} ${total === 1 ? "return" : "returns"}`)),
    barChart(
      "Returns in flight by status",
      RETURNS_IN_FLIGHT.map((s, i) => ({ name: say(RETURN_STATUS_WORDS, s), count: counts[i], link: link("returns", { status: s }) })),
    ),
  );
}
