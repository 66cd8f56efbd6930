// @ts-check
// One return order (`GET /api/v1/return-orders/{id}`): who, what, how it comes
// back, its timeline (the order's events, as sentences), and with
// `returns:write` the retrieval method and tracking (`PATCH`), a line's
// write-off, and the early release of a received item's hold.

import { request } from "./api.js";
import { keys, warehouses } from "./names.js";
import { href } from "./router.js";
import { can } from "./scopes.js";
import { announce, confirm, errorBox, facts, fill, focusHeading, h, heading, loading, notice, table, text, time, webAddress } from "./ui.js";
import {
  itemLink,
  itemsById,
  METHODS,
  namesOf,
  personLink,
  propertyEnum,
  RETRIEVAL_WORDS,
  RETURN_STATUS_WORDS,
  say,
  actorWords,
  statusBadge,
  subjectEvents,
  WRITE_OFF_REASONS,
} from "./lifecycle.js";
import { retrievalWords } from "./returns.js";
import { DEPLOY_REASON_WORDS, DEPLOY_STATUS_WORDS } from "./words.js";

const CLOSED = ["RECEIVED_IN_WAREHOUSE", "NOT_RETURNED", "CANCELLED"];
/** The write-off reasons the API takes (from its OpenAPI document). */
let reasons = Object.keys(WRITE_OFF_REASONS);

/**
 * One return order.
 * @param {HTMLElement} main
 * @param {import("./lifecycle.js").Route} route
 * @param {import("./lifecycle.js").Ctx} ctx
 */
export default async function returnView(main, route, ctx) {
  fill(main, back(), heading("Return"), loading("Loading the return…"));
  focusHeading();
  await draw(main, route.path[1], ctx, null);
}

function back() {
  return h("p", { class: "back" }, h("a", { href: href(["returns"], null) }, "‹ Returns"));
}

/**
 * Draws the order; `outcome`, when given, is shown above it and focused.
 * @param {HTMLElement} main
 * @param {string} id
 * @param {import("./lifecycle.js").Ctx} ctx
 * @param {HTMLElement | null} outcome
 */
async function draw(main, id, ctx, outcome) {
  /** @type {any} */
  let order;
  /** @type {Map<string, any>} */
  let names;
  /** @type {Map<string, any>} */
  let items;
  /** @type {Map<string, any>} */
  let stores;
  try {
    order = await request("GET", `/api/v1/return-orders/${encodeURIComponent(id)}`, { signal: ctx.signal });
    [names, items, stores] = await Promise.all([
      namesOf([order.personId]),
      itemsById(order.lines.map((/** @type {any} */ l) => l.itemId), ctx.signal),
      warehouses(),
    ]);
    reasons = await propertyEnum("ReturnLinePatch", "closedReason", Object.keys(WRITE_OFF_REASONS));
  } catch (error) {
    if (error.name === "AbortError" || !ctx.isCurrent()) return;
    fill(main, back(), heading("Return"), outcome, errorBox(error, "Loading the return"));
    focusHeading();
    return;
  }
  if (!ctx.isCurrent()) return;
  const who = order.personId ? names.get(order.personId)?.name : null;
  const writable = can("returns:write");
  const finished = order.status === "CANCELLED" || order.lines.every((/** @type {any} */ l) => CLOSED.includes(l.status));
  const redraw = (/** @type {HTMLElement} */ message) => draw(main, id, ctx, message);
  fill(
    main,
    back(),
    heading(who ? `Return of ${who}'s equipment` : "Return", statusBadge(RETURN_STATUS_WORDS, order.status)),
    outcome,
    h(
      "section",
      { class: "card", "aria-label": "Details" },
      facts([
        ["Person", personLink(names, order.personId)],
        ["Status", say(RETURN_STATUS_WORDS, order.status)],
        ["Retrieval", retrievalWords(order.retrievalMethod)],
        ...trackingFacts(order.retrievalMethod),
        ["Opened", time(order.createdAt)],
        ["Last change", time(order.updatedAt)],
      ]),
    ),
    linesSection(order, items, stores, writable, redraw),
    writable && !finished ? retrievalSection(order, redraw) : null,
    writable && cancellable(order) ? cancelSection(order, who || "the person", redraw) : null,
    timelineSection(order, names, items, stores),
  );
  if (outcome) outcome.focus({ preventScroll: false });
  else focusHeading();
}

/**
 * The tracking fields the method has, as facts.
 * @param {any} method
 * @returns {[string, Node | string][]}
 */
function trackingFacts(method) {
  if (!method) return [];
  const fields = /** @type {Record<string, {tracking: Record<string, string>}>} */ (METHODS)[method.type]?.tracking || {};
  return Object.entries(fields).map(([field, words]) => [words, text(method[field])]);
}

/**
 * An outcome to show after an action: a notice or the API's error.
 * @param {Node} content
 * @returns {HTMLElement}
 */
function outcomeBox(content) {
  return h("div", { class: "outcome", tabindex: "-1", id: "return-outcome" }, content);
}

/**
 * The items of the order, with write-off and hold release.
 * @param {any} order
 * @param {Map<string, any>} items
 * @param {Map<string, any>} stores
 * @param {boolean} writable
 * @param {(message: HTMLElement) => void} redraw
 */
function linesSection(order, items, stores, writable, redraw) {
  const columns = [
    { title: "Item", cell: (/** @type {any} */ l) => itemLink(items.get(l.itemId), l.itemId) },
    { title: "Status", cell: (/** @type {any} */ l) => statusBadge(RETURN_STATUS_WORDS, l.status) },
    {
      title: "Disposal (ITAD) asked",
      cell: (/** @type {any} */ l) =>
        writable && !CLOSED.includes(l.status) && order.status !== "CANCELLED" ? itadToggle(order, l, items.get(l.itemId), redraw) : l.itadRequested ? "Yes" : "No",
    },
    {
      title: "Received",
      cell: (/** @type {any} */ l) =>
        l.receivedAt ? h("span", {}, time(l.receivedAt), " at ", stores.get(l.warehouseId)?.name || "a warehouse") : text(null),
    },
    { title: "Written off because", cell: (/** @type {any} */ l) => text(l.closedReason ? say(WRITE_OFF_REASONS, l.closedReason) : null) },
  ];
  if (writable) {
    columns.push({ title: "Action", cell: (/** @type {any} */ l) => lineAction(order, l, items.get(l.itemId), redraw) });
  }
  return h(
    "section",
    { class: "card", "aria-labelledby": "lines-title" },
    h("h2", { id: "lines-title" }, "Items coming back"),
    table({ sorted: null, caption: "Items of this return", rows: order.lines, columns, empty: "This return has no items." }),
  );
}

/**
 * What may be done with a line: write it off while open; release the hold of
 * a received item that is still held.
 * @param {any} order
 * @param {any} line
 * @param {any} item
 * @param {(message: HTMLElement) => void} redraw
 * @returns {Node | string}
 */
function lineAction(order, line, item, redraw) {
  const what = item ? `${item.skuTitle}${item.serialNumber ? ` ${item.serialNumber}` : ""}` : "this item";
  if (!CLOSED.includes(line.status) && order.status !== "CANCELLED") {
    const selectId = `write-off-${line.id}`;
    const reason = /** @type {HTMLSelectElement} */ (
      h(
        "select",
        { id: selectId },
        h("option", { value: "" }, "Choose a reason"),
        reasons.map((value) => h("option", { value }, say(WRITE_OFF_REASONS, value))),
      )
    );
    return h(
      "div",
      { class: "write-off" },
      h("label", { for: selectId }, `Why ${what} is not coming back`),
      reason,
      h(
        "button",
        {
          type: "button",
          class: "danger small",
          onclick: async () => {
            if (!reason.value) {
              announce(`Choose why ${what} is not coming back first`);
              reason.focus();
              return;
            }
            const words = say(WRITE_OFF_REASONS, reason.value);
            const sure = await confirm(
              "Write this item off?",
              `${what} will be recorded as not coming back (${words.toLowerCase()}). It becomes Archived and stays recorded with its last holder; this cannot be undone.`,
              "Write off",
            );
            if (!sure) return;
            try {
              await request("PATCH", `/api/v1/return-orders/${encodeURIComponent(order.id)}`, { body: { lines: [{ id: line.id, closedReason: reason.value }] } });
              announce(`${what} written off`);
              redraw(outcomeBox(notice(`${what} was written off: ${words}. It is now Archived.`, "success")));
            } catch (error) {
              redraw(outcomeBox(errorBox(error, "Writing the item off")));
            }
          },
        },
        "Write off",
      ),
    );
  }
  if (item && item.holdStartDate) return releaseHoldButton(item, (message) => redraw(outcomeBox(message)));
  return "";
}

/**
 * A checkbox that asks for (or no longer asks for) IT asset disposition of
 * an open line's item: it is copied onto the item's hold when received.
 * @param {any} order
 * @param {any} line
 * @param {any} item
 * @param {(message: HTMLElement) => void} redraw
 * @returns {HTMLElement}
 */
function itadToggle(order, line, item, redraw) {
  const what = item ? `${item.skuTitle}${item.serialNumber ? ` ${item.serialNumber}` : ""}` : "this item";
  const box = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", class: "itad", checked: line.itadRequested ? "" : null }));
  box.addEventListener("change", async () => {
    try {
      await request("PATCH", `/api/v1/return-orders/${encodeURIComponent(order.id)}`, { body: { lines: [{ id: line.id, itadRequested: box.checked }] } });
      const words = box.checked ? `Disposal (ITAD) asked for ${what}: it goes to disposal once its hold ends.` : `Disposal (ITAD) no longer asked for ${what}.`;
      announce(words);
      redraw(outcomeBox(notice(words, "success")));
    } catch (error) {
      redraw(outcomeBox(errorBox(error, "Changing the disposal")));
    }
  });
  return h("label", { class: "check" }, box, h("span", {}, line.itadRequested ? "Yes" : "No"), h("span", { class: "visually-hidden" }, `, ask for disposal of ${what}`));
}

/**
 * Whether the order may still be cancelled: not cancelled, and no line
 * received or written off (the API decides the rest, e.g. an offboarding's
 * return).
 * @param {any} order
 * @returns {boolean}
 */
function cancellable(order) {
  return order.status !== "CANCELLED" && order.lines.every((/** @type {any} */ l) => !CLOSED.includes(l.status));
}

/**
 * Cancel the whole return, after a confirmation.
 * @param {any} order
 * @param {string} who
 * @param {(message: HTMLElement) => void} redraw
 * @returns {HTMLElement}
 */
function cancelSection(order, who, redraw) {
  return h(
    "section",
    { class: "card", "aria-labelledby": "cancel-title" },
    h("h2", { id: "cancel-title" }, "Cancel this return"),
    h(
      "p",
      { class: "help" },
      "For a return asked by mistake: the items stay with the person. The return of someone leaving cannot be cancelled; write its items off instead.",
    ),
    h(
      "button",
      {
        type: "button",
        class: "danger",
        onclick: async () => {
          const sure = await confirm(
            "Cancel this return?",
            `Nothing comes back: the ${order.lines.length === 1 ? "item stays" : `${order.lines.length} items stay`} with ${who}, who may get a new return later. A cancelled return does not change any more.`,
            "Cancel the return",
          );
          if (!sure) return;
          try {
            await request("PATCH", `/api/v1/return-orders/${encodeURIComponent(order.id)}`, { body: { status: "CANCELLED" } });
            announce("Return cancelled");
            redraw(outcomeBox(notice(`Return cancelled: the items stay with ${who}.`, "success")));
          } catch (error) {
            redraw(outcomeBox(errorBox(error, "Cancelling the return")));
          }
        },
      },
      "Cancel the return",
    ),
  );
}

/**
 * A button that releases an item's hold early (`POST …/release-hold`).
 * @param {any} item
 * @param {(message: HTMLElement) => void} after called with the outcome
 * @returns {HTMLElement}
 */
export function releaseHoldButton(item, after) {
  const what = `${item.skuTitle}${item.serialNumber ? ` ${item.serialNumber}` : ""}`;
  const button = h(
    "button",
    {
      type: "button",
      class: "secondary small release-hold",
      // The accessible name starts with the visible text (WCAG 2.5.3), then says which item.
      "aria-label": `Release hold (until ${item.unlockDate}): ${what}`,
      onclick: async () => {
        /** @type {HTMLButtonElement} */ (button).disabled = true;
        try {
          const released = await request("POST", `/api/v1/inventory/${encodeURIComponent(item.id)}/release-hold`);
          const now = released.deployStatus === "AVAILABLE" ? "available again" : `${say(DEPLOY_STATUS_WORDS, released.deployStatus).toLowerCase()} (${say(DEPLOY_REASON_WORDS, released.deployReason).toLowerCase()})`;
          announce(`Hold released: ${what} is ${now}`);
          after(notice(`Hold released: ${what} is ${now}.`, "success"));
        } catch (error) {
          after(errorBox(error, "Releasing the hold"));
        }
      },
    },
    `Release hold (until ${item.unlockDate})`,
  );
  return button;
}

/**
 * Choose or change the retrieval method, move its status, record tracking.
 * @param {any} order
 * @param {(message: HTMLElement) => void} redraw
 */
function retrievalSection(order, redraw) {
  const current = order.retrievalMethod;
  const methods = /** @type {Record<string, {words: string, path: string[], moving: string[], tracking: Record<string, string>}>} */ (METHODS);
  const type = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id: "retrieval-type" },
      Object.entries(methods).map(([value, m]) => h("option", { value, selected: current?.type === value ? "" : null }, m.words)),
    )
  );
  const status = /** @type {HTMLSelectElement} */ (h("select", { id: "retrieval-status" }));
  const trackingBox = h("div", { class: "grid" });
  /** @type {Map<string, HTMLInputElement>} */
  const inputs = new Map();
  const result = h("div", {});
  const sync = () => {
    const m = methods[type.value];
    const same = current && current.type === type.value;
    const choices = [...m.path];
    if (m.moving.length && !choices.includes("DELIVERY_EXCEPTION")) choices.push("DELIVERY_EXCEPTION");
    const selected = same ? current.status : "REQUESTED";
    fill(status, choices.map((s) => h("option", { value: s, selected: s === selected ? "" : null }, say(RETRIEVAL_WORDS, s))));
    inputs.clear();
    fill(
      trackingBox,
      Object.entries(m.tracking).map(([field, words]) => {
        const input = /** @type {HTMLInputElement} */ (
          h("input", { id: `tracking-${field}`, name: field, type: field.endsWith("Link") ? "url" : "text", autocomplete: "off", value: same ? current[field] || "" : "" })
        );
        inputs.set(field, input);
        return h("div", { class: "field" }, h("label", { for: `tracking-${field}` }, words), input);
      }),
      Object.keys(m.tracking).length ? null : h("p", { class: "help" }, "This method has no tracking."),
    );
  };
  type.addEventListener("change", sync);
  sync();
  const form = h(
    "form",
    {
      class: "stack",
      "aria-labelledby": "retrieval-title",
      // A link typed without its scheme is taken (webAddress), not refused by the browser.
      novalidate: true,
      onsubmit: async (/** @type {Event} */ e) => {
        e.preventDefault();
        const same = current && current.type === type.value;
        /** @type {Record<string, string | null>} */
        const method = { type: type.value };
        if (!same || status.value !== current.status) method.status = status.value;
        for (const [field, input] of inputs) {
          // A tracking link is taken as typed: the https scheme is added when it has none.
          const value = field.endsWith("Link") ? webAddress(input.value) : input.value.trim();
          if (field.endsWith("Link")) input.value = value;
          const before = same ? current[field] || "" : "";
          if (value !== before) method[field] = value || null;
        }
        try {
          const changed = await request("PATCH", `/api/v1/return-orders/${encodeURIComponent(order.id)}`, { body: { retrievalMethod: method } });
          const words = `Retrieval saved: ${retrievalWords(changed.retrievalMethod)}. The return is now: ${say(RETURN_STATUS_WORDS, changed.status).toLowerCase()}.`;
          announce(words);
          redraw(outcomeBox(notice(words, "success")));
        } catch (error) {
          fill(result, errorBox(error, "Saving the retrieval"));
          announce(`Saving the retrieval failed: ${error.detail || error.message}`);
        }
      },
    },
    h("div", { class: "field" }, h("label", { for: "retrieval-type" }, "Method"), type),
    h("div", { class: "field" }, h("label", { for: "retrieval-status" }, "Where it is"), status),
    trackingBox,
    h("div", {}, h("button", { type: "submit" }, current ? "Save the retrieval" : "Choose this method")),
    result,
  );
  return h(
    "section",
    { class: "card", "aria-labelledby": "retrieval-title" },
    h("h2", { id: "retrieval-title" }, "How it comes back"),
    h(
      "p",
      { class: "help" },
      "Choose how the equipment comes back, then move it along as it travels and record the carriers' tracking. The method can be changed until something has left.",
    ),
    form,
  );
}

/**
 * The order's events (`GET /api/v1/events?subjectId=`), oldest first, as
 * sentences; without `events:read`, what the order's own dates say.
 * @param {any} order
 * @param {Map<string, any>} names
 * @param {Map<string, any>} items
 * @param {Map<string, any>} stores
 */
function timelineSection(order, names, items, stores) {
  const list = h("ol", { class: "timeline" });
  const section = h("section", { class: "card", "aria-labelledby": "timeline-title" }, h("h2", { id: "timeline-title" }, "Timeline"), list);
  const who = order.personId ? names.get(order.personId)?.name || "the person" : "no person (none is named on this return)";
  /** @type {(id: string) => string} */
  const itemWords = (itemId) => {
    const i = items.get(itemId);
    return i ? `${i.skuTitle}${i.serialNumber ? ` ${i.serialNumber}` : ""}` : "an item";
  };
  const lineItem = new Map(order.lines.map((/** @type {any} */ l) => [l.id, l.itemId]));
  if (!can("events:read")) {
    const entries = [[order.createdAt, `Return opened for ${who}, ${order.lines.length} ${order.lines.length === 1 ? "item" : "items"}.`]];
    for (const l of order.lines) {
      if (l.receivedAt) entries.push([l.receivedAt, `${itemWords(l.itemId)} received at ${stores.get(l.warehouseId)?.name || "a warehouse"}.`]);
    }
    if (order.retrievalMethod) entries.push([order.retrievalMethod.updatedAt, `Retrieval: ${retrievalWords(order.retrievalMethod)}.`]);
    entries.sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    fill(list, entries.map(([at, words]) => h("li", {}, time(at), " ", words)));
    section.append(h("p", { class: "help" }, "With the scope events:read, every change shows here with who made it."));
    return section;
  }
  fill(list, h("li", { class: "loading" }, "Loading the timeline…"));
  (async () => {
    const events = await subjectEvents(order.id);
    const actors = await keys();
    fill(
      list,
      events.length
        ? events.map((event) =>
            h(
              "li",
              {},
              time(event.occurredAt),
              " ",
              h("span", { class: "sentence" }, sentence(event, who, itemWords, lineItem, stores)),
              h("span", { class: "sub" }, ` by ${actorWords(event.actor, actors)}`),
            ),
          )
        : h("li", { class: "muted" }, "No recorded changes."),
    );
  })().catch((error) => fill(list, h("li", {}, errorBox(error, "Loading the timeline"))));
  return section;
}

/**
 * One event of a return order as a sentence.
 * @param {any} event
 * @param {string} who
 * @param {(itemId: string) => string} itemWords
 * @param {Map<string, string>} lineItem line id → item id
 * @param {Map<string, any>} stores
 * @returns {string}
 */
export function sentence(event, who, itemWords, lineItem, stores) {
  const changes = event.changes || {};
  /** @type {Map<string, Record<string, any>>} */
  const byLine = new Map();
  /** @type {Record<string, any>} */
  const top = {};
  for (const [field, change] of Object.entries(changes)) {
    const m = /^lines\.([^.]+)\.(.+)$/.exec(field);
    if (m) {
      const entry = byLine.get(m[1]) || {};
      entry[m[2]] = change?.to;
      byLine.set(m[1], entry);
    } else {
      top[field.replace(/^retrievalMethod\./, "method.")] = change?.to;
    }
  }
  if (event.type === "return_order.created") {
    const n = byLine.size || lineItem.size;
    return `Return opened for ${who}, ${n} ${n === 1 ? "item" : "items"} to come back.`;
  }
  /** @type {string[]} */
  const parts = [];
  if ("method.type" in top) parts.push(top["method.type"] ? `retrieval method chosen: ${say(METHODS_WORDS, top["method.type"]).toLowerCase()}` : "retrieval method removed");
  if ("method.status" in top && top["method.status"]) parts.push(`retrieval: ${say(RETRIEVAL_WORDS, top["method.status"]).toLowerCase()}`);
  for (const [field, words] of Object.entries(TRACKING_WORDS)) {
    const key = `method.${field}`;
    if (key in top) parts.push(top[key] ? `${words} set to ${top[key]}` : `${words} cleared`);
  }
  for (const [lineId, fields] of byLine) {
    const what = itemWords(lineItem.get(lineId) || "");
    if (fields.closedReason) parts.push(`${what} written off (${say(WRITE_OFF_REASONS, fields.closedReason).toLowerCase()})`);
    else if (fields.status === "RECEIVED_IN_WAREHOUSE" || fields.receivedAt) {
      const where = fields.warehouseId ? stores.get(fields.warehouseId)?.name : null;
      parts.push(`${what} received${where ? ` at ${where}` : " at a warehouse"}`);
    } else if (fields.status === "CANCELLED") parts.push(`${what} no longer to come back (cancelled)`);
    else if (fields.itadRequested !== undefined) parts.push(`${what}: disposal (ITAD) ${fields.itadRequested ? "asked for" : "no longer asked for"}`);
    // A line's in-flight status follows the order's: said once, below.
  }
  if ("status" in top) parts.push(`the return is now: ${say(RETURN_STATUS_WORDS, top.status).toLowerCase()}`);
  if (!parts.length) return "The return changed.";
  const text = parts.join("; ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** @type {Record<string, string>} */
const METHODS_WORDS = { RETURN_KIT: "Return kit", INBOUND_LABEL: "Pre-paid label", PHYSICAL: "In person" };

/** @type {Record<string, string>} */
const TRACKING_WORDS = {
  inboundTrackingCode: "inbound tracking code",
  inboundTrackingLink: "inbound tracking link",
  outboundTrackingCode: "tracking code of the equipment coming back",
  outboundTrackingLink: "tracking link of the equipment coming back",
};
