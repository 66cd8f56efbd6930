// @ts-check
// One joiner's order (`GET /api/v1/orders/{id}`): its lines in words (the
// category's name, the preferred SKUs' titles, the item each holds), its
// shipments, and with `orders:write` shipping lines
// (`POST …/shipments`) and recording a delivery or a delivery problem
// (`PATCH …/shipments/{id}`).

import { request } from "./api.js";
import { categories as allCategories, keys, packages, skus as allSkus } from "./names.js";
import { href } from "./router.js";
import { can } from "./scopes.js";
import { announce, errorBox, facts, fill, focusHeading, h, heading, loading, notice, table, text, time, webAddress } from "./ui.js";
import {
  actorWords,
  itemLink,
  itemsById,
  LINE_STATUS_WORDS,
  namesOf,
  ORDER_STATUS_WORDS,
  personLink,
  say,
  SHIPMENT_WORDS,
  splitChanges,
  statusBadge,
  subjectEvents,
} from "./lifecycle.js";

/**
 * One order.
 * @param {HTMLElement} main
 * @param {import("./lifecycle.js").Route} route
 * @param {import("./lifecycle.js").Ctx} ctx
 */
export default async function orderView(main, route, ctx) {
  fill(main, back(), heading("Order"), loading("Loading the order…"));
  focusHeading();
  await draw(main, route.path[1], ctx, null);
}

function back() {
  return h("p", { class: "back" }, h("a", { href: href(["orders"], null) }, "‹ Orders"));
}

/**
 * @param {HTMLElement} main
 * @param {string} id
 * @param {import("./lifecycle.js").Ctx} ctx
 * @param {HTMLElement | null} outcome shown above the order and focused
 */
async function draw(main, id, ctx, outcome) {
  /** @type {any} */
  let order;
  /** @type {[Map<string, any>, Map<string, any>, Map<string, any>, Map<string, any>, Map<string, string>]} */
  let found;
  try {
    order = await request("GET", `/api/v1/orders/${encodeURIComponent(id)}`, { signal: ctx.signal });
    found = await Promise.all([
      namesOf([order.personId]),
      itemsById(order.lines.map((/** @type {any} */ l) => l.itemId), ctx.signal),
      packages(),
      allSkus(),
      allCategories(),
    ]);
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    fill(main, back(), heading("Order"), outcome, errorBox(error, "Loading the order"));
    focusHeading();
    return;
  }
  if (!ctx.isCurrent()) return;
  const [names, items, kits, skus, categories] = found;
  const who = names.get(order.personId)?.name;
  const kit = order.packageId ? kits.get(order.packageId) : null;
  const redraw = (/** @type {Node} */ message) => draw(main, id, ctx, h("div", { class: "outcome", tabindex: "-1", id: "order-outcome" }, message));
  /** @type {(l: any) => string} */
  const lineWords = (l) => {
    const item = l.itemId ? items.get(l.itemId) : null;
    const category = categories.get(l.categoryCode) || l.categoryCode;
    return item ? `${category}: ${item.skuTitle}${item.serialNumber ? ` ${item.serialNumber}` : ""}` : category;
  };
  const writable = can("orders:write");
  fill(
    main,
    back(),
    heading(who ? `Order for ${who}` : "Order", statusBadge(ORDER_STATUS_WORDS, order.status)),
    outcome,
    h(
      "section",
      { class: "card", "aria-label": "Details" },
      facts([
        ["Person", personLink(names, order.personId)],
        ["Package", kit ? h("a", { href: href(["packages", kit.id], null) }, kit.name) : text(order.packageId ? "a package" : null)],
        ["Status", say(ORDER_STATUS_WORDS, order.status)],
        ["Created", time(order.createdAt)],
        ["Last change", time(order.updatedAt)],
      ]),
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "order-lines-title" },
      h("h2", { id: "order-lines-title" }, "What they receive"),
      table({
        sorted: null,
        caption: "Lines of this order, one per unit",
        rows: order.lines,
        empty: "This order has no lines.",
        columns: [
          { title: "Category", cell: (/** @type {any} */ l) => categories.get(l.categoryCode) || l.categoryCode },
          {
            title: "Preferred models",
            cell: (/** @type {any} */ l) => text(l.skuIds.map((/** @type {string} */ s) => skus.get(s)?.title || "an unlisted model").join(", then ") || "any"),
          },
          { title: "Status", cell: (/** @type {any} */ l) => statusBadge(LINE_STATUS_WORDS, l.status) },
          { title: "Item", cell: (/** @type {any} */ l) => (l.itemId ? itemLink(items.get(l.itemId), l.itemId) : text(null)) },
        ],
      }),
    ),
    writable ? shipSection(order, lineWords, redraw) : null,
    shipmentsSection(order, lineWords, writable, redraw),
    can("events:read") ? timelineSection(order, who || "the person", categories) : null,
  );
  if (outcome) outcome.focus();
  else focusHeading();
}

/**
 * Ship the ALLOCATED lines chosen, with the carrier's tracking.
 * @param {any} order
 * @param {(l: any) => string} lineWords
 * @param {(message: Node) => void} redraw
 * @returns {HTMLElement | null}
 */
function shipSection(order, lineWords, redraw) {
  const ready = order.lines.filter((/** @type {any} */ l) => l.status === "ALLOCATED");
  if (!ready.length) return null;
  const boxes = ready.map((/** @type {any} */ l) => {
    const box = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", name: "lineIds", value: l.id, checked: true }));
    return { line: l, box, label: h("label", { class: "check" }, box, lineWords(l)) };
  });
  const carrier = /** @type {HTMLInputElement} */ (h("input", { id: "ship-carrier", autocomplete: "off", maxlength: "256" }));
  const code = /** @type {HTMLInputElement} */ (h("input", { id: "ship-tracking-code", autocomplete: "off", maxlength: "256" }));
  const link = /** @type {HTMLInputElement} */ (h("input", { id: "ship-tracking-link", type: "url", autocomplete: "off", "aria-describedby": "ship-tracking-link-help" }));
  const result = h("div", {});
  const form = h(
    "form",
    {
      class: "stack",
      "aria-labelledby": "ship-title",
      novalidate: true,
      onsubmit: async (/** @type {Event} */ e) => {
        e.preventDefault();
        const lineIds = boxes.filter((/** @type {any} */ b) => b.box.checked).map((/** @type {any} */ b) => b.line.id);
        /** @type {Record<string, any>} */
        const body = { lineIds };
        if (carrier.value.trim()) body.carrier = carrier.value.trim();
        if (code.value.trim()) body.trackingCode = code.value.trim();
        // What a person types ("track.example/123") is taken: the https scheme is added when it has none.
        const typed = webAddress(link.value);
        if (typed) {
          body.trackingLink = typed;
          link.value = typed;
        }
        try {
          const shipment = await request("POST", `/api/v1/orders/${encodeURIComponent(order.id)}/shipments`, { body });
          const n = shipment.lineIds.length;
          const words = `Shipped ${n} ${n === 1 ? "item" : "items"}${shipment.carrier ? ` with ${shipment.carrier}` : ""}${shipment.trackingCode ? `, tracking ${shipment.trackingCode}` : ""}.`;
          announce(words);
          redraw(notice(words, "success"));
        } catch (error) {
          fill(result, errorBox(error, "Recording the shipment"));
          announce(`Recording the shipment failed: ${error.detail || error.message}`);
        }
      },
    },
    h("fieldset", { class: "statuses" }, h("legend", {}, "Items to ship"), boxes.map((/** @type {any} */ b) => b.label)),
    h(
      "div",
      { class: "grid" },
      h("div", { class: "field" }, h("label", { for: "ship-carrier" }, "Carrier"), carrier),
      h("div", { class: "field" }, h("label", { for: "ship-tracking-code" }, "Tracking code"), code),
      h(
        "div",
        { class: "field" },
        h("label", { for: "ship-tracking-link" }, "Tracking link"),
        link,
        h("small", { id: "ship-tracking-link-help", class: "help" }, "The carrier's tracking page (the https scheme is added when left out)."),
      ),
    ),
    h("div", {}, h("button", { type: "submit" }, "Record the shipment")),
    result,
  );
  return h(
    "section",
    { class: "card", "aria-labelledby": "ship-title" },
    h("h2", { id: "ship-title" }, "Ship"),
    h("p", { class: "help" }, "Items reserved for this order can leave the warehouse together; items still waiting for stock ship later."),
    form,
  );
}

/**
 * The order's shipments, with delivery actions.
 * @param {any} order
 * @param {(l: any) => string} lineWords
 * @param {boolean} writable
 * @param {(message: Node) => void} redraw
 * @returns {HTMLElement}
 */
function shipmentsSection(order, lineWords, writable, redraw) {
  const byId = new Map(order.lines.map((/** @type {any} */ l) => [l.id, l]));
  /** @type {(s: any, status: string, words: string, cls: string) => HTMLElement} */
  const act = (s, status, words, cls) =>
    h(
      "button",
      {
        type: "button",
        class: `${cls} small`,
        "data-shipment": s.id,
        "data-to": status,
        onclick: async () => {
          try {
            const changed = await request("PATCH", `/api/v1/orders/${encodeURIComponent(order.id)}/shipments/${encodeURIComponent(s.id)}`, { body: { status } });
            const said =
              changed.status === "DELIVERED"
                ? `Delivered: the items are now deployed to the person${changed.deliveredAt ? "" : ""}.`
                : "Delivery problem recorded: the items stay in transit.";
            announce(said);
            redraw(notice(said, "success"));
          } catch (error) {
            announce(`Failed: ${error.detail || error.message}`);
            redraw(errorBox(error, "Recording the delivery"));
          }
        },
      },
      words,
    );
  const columns = [
    { title: "Shipped", cell: (/** @type {any} */ s) => time(s.shippedAt) },
    {
      title: "Items",
      cell: (/** @type {any} */ s) => h("ul", { class: "plain" }, s.lineIds.map((/** @type {string} */ id) => h("li", {}, byId.has(id) ? lineWords(byId.get(id)) : "a line"))),
    },
    { title: "Carrier", cell: (/** @type {any} */ s) => text(s.carrier) },
    { title: "Tracking", cell: (/** @type {any} */ s) => h("span", {}, text(s.trackingCode), s.trackingLink ? h("span", { class: "sub tracking-link" }, ` ${s.trackingLink}`) : null) },
    { title: "Status", cell: (/** @type {any} */ s) => statusBadge(SHIPMENT_WORDS, s.status) },
    { title: "Delivered", cell: (/** @type {any} */ s) => time(s.deliveredAt) },
  ];
  if (writable) {
    columns.push({
      title: "Action",
      cell: (/** @type {any} */ s) =>
        s.status === "DELIVERED"
          ? ""
          : h(
              "span",
              { class: "actions" },
              act(s, "DELIVERED", "Mark delivered", "primary"),
              s.status === "SHIPPED" ? act(s, "DELIVERY_EXCEPTION", "Report a delivery problem", "secondary") : null,
            ),
    });
  }
  return h(
    "section",
    { class: "card", "aria-labelledby": "shipments-title" },
    h("h2", { id: "shipments-title" }, "Shipments"),
    table({ sorted: null, caption: "Shipments of this order", rows: order.shipments, columns, empty: "Nothing has shipped yet." }),
  );
}

/**
 * The order's events as sentences, oldest first, each with who made it.
 * @param {any} order
 * @param {string} who
 * @param {Map<string, string>} categories
 * @returns {HTMLElement}
 */
function timelineSection(order, who, categories) {
  const list = h("ol", { class: "timeline" }, h("li", { class: "loading" }, "Loading the timeline…"));
  const section = h("section", { class: "card", "aria-labelledby": "order-timeline-title" }, h("h2", { id: "order-timeline-title" }, "Timeline"), list);
  /** @type {Map<string, string>} line id → category code, from the order and its events */
  const lineCategory = new Map(order.lines.map((/** @type {any} */ l) => [l.id, l.categoryCode]));
  (async () => {
    const [events, actors] = await Promise.all([subjectEvents(order.id), keys()]);
    fill(
      list,
      events.length
        ? events.map((event) =>
            h(
              "li",
              {},
              time(event.occurredAt),
              " ",
              h("span", { class: "sentence" }, orderSentence(event, who, lineCategory, categories)),
              h("span", { class: "sub" }, ` by ${actorWords(event.actor, actors)}`),
            ),
          )
        : h("li", { class: "muted" }, "No recorded changes."),
    );
  })().catch((error) => fill(list, h("li", {}, errorBox(error, "Loading the timeline"))));
  return section;
}

/**
 * One event of an order as a sentence.
 * @param {any} event
 * @param {string} who
 * @param {Map<string, string>} lineCategory
 * @param {Map<string, string>} categories
 * @returns {string}
 */
export function orderSentence(event, who, lineCategory, categories) {
  const { top, parts } = splitChanges(event.changes);
  const lines = parts.lines || new Map();
  const shipments = parts.shipments || new Map();
  for (const [id, fields] of lines) if (fields.categoryCode) lineCategory.set(id, fields.categoryCode);
  /** @type {(ids: string[]) => string} */
  const what = (ids) => {
    /** @type {Map<string, number>} */
    const counts = new Map();
    for (const id of ids) {
      const name = categories.get(lineCategory.get(id) || "") || lineCategory.get(id) || "an item";
      counts.set(name, (counts.get(name) || 0) + 1);
    }
    return [...counts].map(([name, n]) => (n > 1 ? `${n} × ${name}` : name)).join(", ");
  };
  /** @type {(status: string) => string[]} */
  const linesTo = (status) => [...lines].filter(([, f]) => f.status === status).map(([id]) => id);
  if (event.type === "order.created") {
    const waiting = linesTo("BACKORDERED");
    const all = [...lines.keys()];
    return `Order made for ${who}: ${what(all)}${waiting.length ? `; waiting for stock: ${what(waiting)}` : "; every item reserved"}.`;
  }
  if (event.type === "order.backordered") {
    return `Waiting for stock: ${what(linesTo("BACKORDERED"))}.`;
  }
  /** @type {string[]} */
  const said = [];
  for (const [, s] of shipments) {
    if (s.status === "SHIPPED") said.push(`shipped${s.carrier ? ` with ${s.carrier}` : ""}${s.trackingCode ? `, tracking ${s.trackingCode}` : ""}`);
    else if (s.status === "DELIVERED") said.push("delivered to the person");
    else if (s.status === "DELIVERY_EXCEPTION") said.push("the carrier reported a delivery problem");
  }
  const named = (/** @type {string} */ status, /** @type {string} */ words) => {
    const ids = linesTo(status);
    if (ids.length) said.push(`${what(ids)} ${words}`);
  };
  if (!shipments.size) {
    named("ALLOCATED", "reserved from stock");
    named("BACKORDERED", "waiting for stock");
  } else {
    const moved = [...lines].filter(([, f]) => f.status === "SHIPPED" || f.status === "DELIVERED").map(([id]) => id);
    if (moved.length && said.length) said[0] = `${what(moved)} ${said[0]}`;
  }
  named("CANCELLED", "cancelled");
  if ("status" in top) said.push(`the order is now ${say(ORDER_STATUS_WORDS, top.status).toLowerCase()}`);
  if (!said.length) return "The order changed.";
  const text = said.join("; ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}
