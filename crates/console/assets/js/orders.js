// @ts-check
// Orders: joiners' orders (`GET /api/v1/orders`), newest first, filtered by
// status, 25 a page, with the person's and the package's names. The
// backorders view is the orders waiting for stock (status PENDING: a line is
// BACKORDERED and nothing shipped yet).

import { request } from "./api.js";
import { packages } from "./names.js";
import { href } from "./router.js";
import { announce, errorBox, fill, focusHeading, h, heading, loading, pager, table, time } from "./ui.js";
import { exportButton, goPage, maxPageSize, namesOf, personFilterNotice, parameterEnum, say, ORDER_STATUS_WORDS, pageOf, personLink, statusBadge, statusFilter } from "./lifecycle.js";

const PAGE_SIZE = 25;
const STATUSES = ["PENDING", "ALLOCATED", "SHIPPED", "DELIVERED", "CANCELLED"];
/** @type {Record<string, string>} */
const FILTER_WORDS = { ...ORDER_STATUS_WORDS, PENDING: "Waiting for stock (backorders)" };

/**
 * The orders listing.
 * @param {HTMLElement} main
 * @param {import("./lifecycle.js").Route} route
 * @param {import("./lifecycle.js").Ctx} ctx
 */
export default async function ordersView(main, route, ctx) {
  const params = route.params;
  const page = pageOf(params);
  const backorders = params.get("status") === "PENDING";
  const statuses = await parameterEnum("/api/v1/orders", "status", STATUSES);
  if (!ctx.isCurrent()) return;
  const body = h("div", {}, loading("Loading orders…"));
  fill(
    main,
    heading(backorders ? "Backorders" : "Orders"),
    h(
      "p",
      { class: "help" },
      backorders
        ? "Joiners' orders waiting for stock: a line found no available item of its category, and nothing has shipped yet. A line takes an item as soon as one becomes available."
        : "The equipment each joiner receives with their package: one line per unit, shipped and delivered.",
    ),
    h(
      "form",
      { class: "filters", "aria-label": "Filter orders", onsubmit: (/** @type {Event} */ e) => e.preventDefault() },
      statusFilter({ area: "orders", params, statuses, words: FILTER_WORDS, label: "Status" }),
      h(
        "p",
        { class: "quick-links" },
        backorders ? h("a", { href: href(["orders"], null) }, "All orders") : h("a", { href: href(["orders"], new URLSearchParams({ status: "PENDING" })), id: "backorders-link" }, "Backorders"),
      ),
    ),
    h("section", { class: "results", "aria-label": "Orders" }, body),
  );
  focusHeading();
  /** @type {any} */
  let answer;
  /** @type {Map<string, any>} */
  let names;
  /** @type {Map<string, any>} */
  let kits;
  try {
    answer = await request("GET", "/api/v1/orders", {
      query: [["status", params.get("status")], ["personId", params.get("personId")], ["page", String(page)], ["size", String(PAGE_SIZE)]],
      signal: ctx.signal,
    });
    [names, kits] = await Promise.all([namesOf(answer.data.map((/** @type {any} */ o) => o.personId)), packages()]);
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    fill(body, errorBox(error, "Loading orders"));
    return;
  }
  if (!ctx.isCurrent()) return;
  const total = answer.pagination.totalRecords;
  const notice = await personFilterNotice(params, "orders", "orders");
  if (!ctx.isCurrent()) return;
  if (notice) body.before(notice);
  const noun = backorders ? "orders waiting for stock" : "orders";
  fill(
    body,
    h(
      "div",
      { class: "list-head" },
      h("p", { class: "count", id: "result-count" }, `${total} ${noun}`),
      total
        ? exportButton({
            noun: "orders",
            filename: `orders${params.get("status") ? `-${params.get("status")?.toLowerCase()}` : ""}.csv`,
            columns: [
              { header: "person", value: (o) => o._person?.name || "" },
              { header: "email", value: (o) => o._person?.email || "" },
              { header: "package", value: (o) => (o.packageId ? kits.get(o.packageId)?.name || "" : "") },
              { header: "status", value: (o) => say(ORDER_STATUS_WORDS, o.status) },
              { header: "lines", value: (o) => linesWords(o) },
              { header: "created", value: (o) => o.createdAt },
              { header: "order_id", value: (o) => o.id },
            ],
            fetchPage: async (p) => {
              const all = await request("GET", "/api/v1/orders", {
                query: [["status", params.get("status")], ["personId", params.get("personId")], ["page", String(p)], ["size", String(await maxPageSize("/api/v1/orders"))]],
              });
              const who = await namesOf(all.data.map((/** @type {any} */ o) => o.personId));
              return { rows: all.data.map((/** @type {any} */ o) => ({ ...o, _person: who.get(o.personId) })), totalPages: all.pagination.totalPages };
            },
          })
        : null,
    ),
    table({
      sorted: null,
      caption: backorders ? "Orders waiting for stock" : "Orders",
      empty: "No orders with this status.",
      rows: answer.data,
      columns: [
        { title: "Order", cell: (/** @type {any} */ o) => h("a", { href: href(["orders", o.id], null), class: "order-link" }, orderTitle(o)) },
        { title: "Person", cell: (/** @type {any} */ o) => personLink(names, o.personId) },
        { title: "Package", cell: (/** @type {any} */ o) => (o.packageId ? kits.get(o.packageId)?.name || "a package" : "—") },
        { title: "Status", cell: (/** @type {any} */ o) => statusBadge(ORDER_STATUS_WORDS, o.status) },
        { title: "Lines", cell: (/** @type {any} */ o) => linesWords(o) },
        { title: "Created", cell: (/** @type {any} */ o) => time(o.createdAt) },
      ],
    }),
    pager({ page, pages: answer.pagination.totalPages, total, noun, go: (/** @type {number} */ p) => goPage("orders", params, p) }),
  );
  announce(`${total} ${noun}`);
}

/**
 * "Order of 3 items" (lines that are not cancelled).
 * @param {any} order
 * @returns {string}
 */
export function orderTitle(order) {
  const n = order.lines.filter((/** @type {any} */ l) => l.status !== "CANCELLED").length;
  return `Order of ${n} ${n === 1 ? "item" : "items"}`;
}

/**
 * The lines by status, in words: "1 waiting for stock, 2 delivered".
 * @param {any} order
 * @returns {string}
 */
export function linesWords(order) {
  /** @type {Record<string, string>} */
  const words = { BACKORDERED: "waiting for stock", ALLOCATED: "ready to ship", SHIPPED: "shipped", DELIVERED: "delivered", CANCELLED: "cancelled" };
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const l of order.lines) counts.set(l.status, (counts.get(l.status) || 0) + 1);
  return Object.keys(words)
    .filter((s) => counts.get(s))
    .map((s) => `${counts.get(s)} ${words[s]}`)
    .join(", ");
}
